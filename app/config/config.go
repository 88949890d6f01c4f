// Package config is Switchboard's config file: the Config it holds, how
// it is loaded, parsed and validated, the Watcher that reloads it live, and
// the settings edits (hub.SettingsService) that rewrite it.
//
// A new file, whether a hand edit the Watcher sees or a settings PATCH, goes
// the way of syncthing's verify → commit: it is parsed with a fresh viper,
// validated, and only then handed to one apply(from, to) callback. A file
// that fails is reported and changes nothing: the last good config stays in
// force. viper and fsnotify are imported here and nowhere else.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/engine"
)

// Config is the config file (YAML). Keys are exactly these; an unknown key
// is an error, so a typo never silently does nothing.
type Config struct {
	Listen         string   `mapstructure:"listen"`
	AllowPublic    bool     `mapstructure:"allowPublic"`
	AllowedHosts   []string `mapstructure:"allowedHosts"`
	AllowedOrigins []string `mapstructure:"allowedOrigins"`
	Permissions    struct {
		Timeout time.Duration `mapstructure:"timeout"`
	} `mapstructure:"permissions"`
	Limits struct {
		MaxAgentProcesses int           `mapstructure:"maxAgentProcesses"`
		AgentIdleTimeout  time.Duration `mapstructure:"agentIdleTimeout"`
		TurnTimeout       time.Duration `mapstructure:"turnTimeout"`
	} `mapstructure:"limits"`
	Context struct {
		RecentTurns int `mapstructure:"recentTurns"`
		MaxChars    int `mapstructure:"maxChars"`
	} `mapstructure:"context"`
	Notifications struct {
		Enabled       bool `mapstructure:"enabled"`
		TurnCompleted bool `mapstructure:"turnCompleted"`
	} `mapstructure:"notifications"`
	Tray struct {
		Enabled bool `mapstructure:"enabled"`
	} `mapstructure:"tray"`
	UI struct {
		// Theme is the window's and the web UI's colours: light, dark or
		// system (follow the OS).
		Theme string `mapstructure:"theme"`
	} `mapstructure:"ui"`
	Agents map[string]acp.AgentConfig `mapstructure:"agents"`
}

// DefaultListen is the hub's default listen address (API.md).
const DefaultListen = "127.0.0.1:8686"

// setDefaults sets the documented defaults, as viper keys.
func setDefaults(v *viper.Viper) {
	d := engine.DefaultConfig()
	v.SetDefault("listen", DefaultListen)
	v.SetDefault("allowPublic", false)
	v.SetDefault("allowedHosts", []string{})
	v.SetDefault("allowedOrigins", []string{})
	v.SetDefault("permissions.timeout", d.PermissionTimeout)
	v.SetDefault("limits.maxAgentProcesses", d.MaxAgentProcesses)
	v.SetDefault("limits.agentIdleTimeout", d.AgentIdleTimeout)
	v.SetDefault("limits.turnTimeout", d.TurnTimeout)
	v.SetDefault("context.recentTurns", d.ContextRecentTurns)
	v.SetDefault("context.maxChars", d.ContextMaxChars)
	v.SetDefault("notifications.enabled", true)
	v.SetDefault("notifications.turnCompleted", true)
	v.SetDefault("tray.enabled", true)
	v.SetDefault("ui.theme", hub.ThemeSystem)
}

// DefaultPath is the OS config dir's switchboard/config.yaml.
func DefaultPath() (string, error) {
	d, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "switchboard", "config.yaml"), nil
}

// Load reads and validates the config file at path. A missing file
// is not an error when mustExist is false: the defaults apply. Every error
// names the file, and for a syntax error the line.
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

func decodeConfig(v *viper.Viper, path string, data []byte) (Config, error) {
	var c Config
	if err := v.UnmarshalExact(&c); err != nil {
		return Config{}, fmt.Errorf("config %s: %w", path, withKeyLines(err, data))
	}
	if err := restoreEnvCase(data, c.Agents); err != nil {
		return Config{}, fmt.Errorf("config %s: %w", path, err)
	}
	if err := c.validate(); err != nil {
		return Config{}, fmt.Errorf("config %s: %w", path, err)
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

func (c Config) validate() error {
	if err := CheckListen(c.Listen, c.AllowPublic); err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	positive := map[string]time.Duration{
		"permissions.timeout":     c.Permissions.Timeout,
		"limits.agentIdleTimeout": c.Limits.AgentIdleTimeout,
		"limits.turnTimeout":      c.Limits.TurnTimeout,
	}
	for k, d := range positive {
		if d <= 0 {
			return fmt.Errorf("%s must be a positive duration such as 10m", k)
		}
	}
	if c.Limits.MaxAgentProcesses < 1 {
		return errors.New("limits.maxAgentProcesses must be at least 1")
	}
	if c.Context.RecentTurns < 0 || c.Context.MaxChars < 0 {
		return errors.New("context.recentTurns and context.maxChars must not be negative")
	}
	switch c.UI.Theme {
	case hub.ThemeLight, hub.ThemeDark, hub.ThemeSystem:
	default:
		return fmt.Errorf("ui.theme must be light, dark or system, not %q", c.UI.Theme)
	}
	if _, err := acp.Merge(acp.Builtin(), c.Agents); err != nil {
		return err
	}
	return nil
}

// CheckListen refuses a non-loopback address unless allowPublic.
func CheckListen(addr string, allowPublic bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not host:port: %w", addr, err)
	}
	if allowPublic {
		return nil
	}
	if strings.EqualFold(host, "localhost") {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%s is not a loopback address; set allowPublic: true to serve beyond this machine", addr)
}

// EngineConfig is the engine's part of c: permission timeout, limits and
// context sizes.
func (c Config) EngineConfig() engine.Config {
	return engine.Config{
		PermissionTimeout:  c.Permissions.Timeout,
		MaxAgentProcesses:  c.Limits.MaxAgentProcesses,
		AgentIdleTimeout:   c.Limits.AgentIdleTimeout,
		TurnTimeout:        c.Limits.TurnTimeout,
		ContextRecentTurns: c.Context.RecentTurns,
		ContextMaxChars:    c.Context.MaxChars,
	}
}

// Catalogue is the agent catalogue of c: the built-in agents merged with
// the config's. c must be valid (from Load or a Watcher); for an invalid
// c it is nil.
func (c Config) Catalogue() []acp.AgentSpec {
	specs, _ := acp.Merge(acp.Builtin(), c.Agents) // validated by Load
	return specs
}

// withKeyLines rewrites a decoding error of viper's (mapstructure's) into
// one line per problem that names the key and its line in data:
// "line 3: unknown key permissions.timout". It returns err unchanged when
// it cannot.
func withKeyLines(err error, data []byte) error {
	msg := err.Error()
	const header = "decoding failed due to the following error(s):"
	body, ok := strings.CutPrefix(msg, header)
	if !ok {
		return err
	}
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil {
		return err
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(body), "\n") {
		m := decodeErrLine.FindStringSubmatch(l)
		if m == nil {
			out = append(out, l)
			continue
		}
		prefix := strings.NewReplacer("[", ".", "]", "").Replace(m[1])
		if bad, ok := strings.CutPrefix(m[2], "has invalid keys: "); ok {
			for _, k := range strings.Split(bad, ", ") {
				key := strings.TrimPrefix(prefix+"."+k, ".")
				out = append(out, lineOf(&root, key)+"unknown key "+key)
			}
			continue
		}
		out = append(out, lineOf(&root, prefix)+prefix+": "+m[2])
	}
	return errors.New(strings.Join(out, "; "))
}

var decodeErrLine = regexp.MustCompile(`^'([^']*)' (.*)$`)

// lineOf returns "line N: " for the dotted key in the YAML document root
// (keys compared case-insensitively, as viper does), or "".
func lineOf(root *yaml.Node, key string) string {
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	line := 0
	for _, part := range strings.Split(key, ".") {
		if n.Kind != yaml.MappingNode {
			return ""
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if strings.EqualFold(n.Content[i].Value, part) {
				line, next = n.Content[i].Line, n.Content[i+1]
				break
			}
		}
		if next == nil {
			return ""
		}
		n = next
	}
	return fmt.Sprintf("line %d: ", line)
}

// syntaxLine corrects the line of a YAML syntax error: yaml.v3 reports
// parser errors one line early (a 0-based line) and some scanner errors
// without a line ("mapping values are not allowed in this context"). The
// line is taken to be the first at which a prefix of data stops parsing,
// unless yaml's own is later.
func syntaxLine(err error, data []byte) error {
	lines := strings.SplitAfter(string(data), "\n")
	first := 0
	for i := range lines {
		var v any
		if yaml.Unmarshal([]byte(strings.Join(lines[:i+1], "")), &v) != nil {
			first = i + 1
			break
		}
	}
	if first == 0 {
		return err
	}
	msg := err.Error()
	m := yamlLine.FindStringSubmatchIndex(msg)
	if m == nil {
		return &lineError{fmt.Sprintf("line %d: %s", first, msg), err}
	}
	if n, _ := strconv.Atoi(msg[m[2]:m[3]]); n >= first {
		return err
	}
	return &lineError{msg[:m[2]] + strconv.Itoa(first) + msg[m[3]:], err}
}

var yamlLine = regexp.MustCompile(`line (\d+): `)

// lineError is an error with its message corrected.
type lineError struct {
	msg string
	err error
}

func (e *lineError) Error() string { return e.msg }
func (e *lineError) Unwrap() error { return e.err }
