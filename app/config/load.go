package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/engine"
)

// setDefaults sets the documented defaults, as viper keys.
func setDefaults(v *viper.Viper) {
	d := engine.DefaultConfig()
	v.SetDefault("listen", DefaultListen)
	v.SetDefault("allowPublic", false)
	v.SetDefault("allowedHosts", []string{})
	v.SetDefault("allowedOrigins", []string{})
	v.SetDefault("permissions.timeout", d.PermissionTimeout)
	v.SetDefault("permissions.escalateAfter", time.Duration(0))
	v.SetDefault("permissions.rules", []any{})
	v.SetDefault("limits.maxAgentProcesses", d.MaxAgentProcesses)
	v.SetDefault("limits.agentIdleTimeout", d.AgentIdleTimeout)
	v.SetDefault("limits.turnTimeout", d.TurnTimeout)
	v.SetDefault("limits.turnIdleTimeout", d.TurnIdleTimeout)
	v.SetDefault("limits.agentRequests", d.AgentRequests)
	v.SetDefault("limits.pendingPermissionsPerTurn", d.PendingPermissionsPerTurn)
	v.SetDefault("limits.streamsPerClient", hub.DefaultStreamsPerClient)
	v.SetDefault("limits.liveEventBytes", hub.DefaultLiveEventBytes)
	v.SetDefault("limits.importMaxBytes", hub.DefaultImportMaxBytes)
	v.SetDefault("context.recentTurns", d.ContextRecentTurns)
	v.SetDefault("context.maxChars", d.ContextMaxChars)
	v.SetDefault("context.compactAt", d.ContextCompactAt)
	v.SetDefault("notifications.enabled", true)
	v.SetDefault("notifications.turnCompleted", true)
	v.SetDefault("notifications.permission", true)
	v.SetDefault("notifications.question", true)
	v.SetDefault("notifications.error", true)
	v.SetDefault("notifications.budget", true)
	v.SetDefault("tray.enabled", true)
	v.SetDefault("tray.autostart", false)
	v.SetDefault("redaction.enabled", d.Redaction)
	v.SetDefault("budgets.currency", "USD")
	v.SetDefault("search.enabled", true)
	v.SetDefault("ui.theme", hub.ThemeSystem)
	v.SetDefault("terminals.inheritEnv", []string{})
	v.SetDefault("install.registry", "")
	v.SetDefault("registry.url", DefaultRegistryURL) // fetched only when a client lists the agents (ADR 0020)
}

// Load reads and validates the config file at path. A missing file is not
// an error when mustExist is false: the defaults apply. Every error names
// the file, and the line where it can ("line 4: unknown key
// permissions.timout"); with an error the Config is zero.
func Load(path string, mustExist bool) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && !mustExist {
			v := viper.New()
			setDefaults(v)
			return decodeConfig(v, path, nil)
		}
		return Config{}, fmt.Errorf("config %s: %w", path, err)
	}
	return parse(path, data)
}

// parse parses and validates data, the content of the config file at
// path, with a fresh viper (never one shared with a reader). Every error
// names the file, and for a syntax error the line.
func parse(path string, data []byte) (Config, error) {
	v := viper.New()
	setDefaults(v)
	v.SetConfigType("yaml")
	if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
		return Config{}, fmt.Errorf("config %s: %w", path, syntaxLine(err, data))
	}
	return decodeConfig(v, path, data)
}

// decodeConfig decodes v (read from data, the file at path; nil when there
// is none) into a Config, exactly (an unknown key is an error), and
// validates it.
func decodeConfig(v *viper.Viper, path string, data []byte) (Config, error) {
	var c Config
	if err := v.UnmarshalExact(&c, decodeOption); err != nil {
		return Config{}, fmt.Errorf("config %s: %w", path, withKeyLines(err, data))
	}
	folders, err := decodeFolders(data)
	if err != nil {
		return Config{}, fmt.Errorf("config %s: %w", path, err)
	}
	c.Folders = folders
	if err := decodeMCP(data, &c); err != nil {
		return Config{}, fmt.Errorf("config %s: %w", path, err)
	}
	if err := decodePrices(data, &c.Budgets); err != nil {
		return Config{}, fmt.Errorf("config %s: %w", path, err)
	}
	if err := restoreEnvCase(data, c.Agents); err != nil {
		return Config{}, fmt.Errorf("config %s: %w", path, err)
	}
	if err := decodeDefaults(data, c.Agents); err != nil {
		return Config{}, fmt.Errorf("config %s: %w", path, err)
	}
	if err := c.validate(); err != nil {
		return Config{}, fmt.Errorf("config %s: %w", path, withRuleLine(err, data))
	}
	return c, nil
}

// restoreEnvCase puts back the case of agents' environment variable names,
// which viper lowercases with every other key: ANTHROPIC_API_KEY must reach
// the agent as written. (Agent ids stay lowercase.)
func restoreEnvCase(data []byte, agents map[string]acp.AgentConfig) error {
	if len(agents) == 0 {
		return nil
	}
	var raw struct {
		Agents map[string]struct {
			Env map[string]string `yaml:"env"`
		} `yaml:"agents"`
	}
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return err
	}
	for id, a := range raw.Agents {
		key := strings.ToLower(id)
		if c, ok := agents[key]; ok && a.Env != nil {
			c.Env = a.Env
			agents[key] = c
		}
	}
	return nil
}
