package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"time"
)

// PublicRegistryURL is the ACP registry's public index, as the registry
// project documents it (agentclientprotocol.com/get-started/registry):
// the default of the config's registry.url (hub/agentsetup reads it).
const PublicRegistryURL = "https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json"

// AgentSpec is an agent Switchboard knows how to start.
type AgentSpec struct {
	ID      string
	Name    string
	Command Command
	// Install tells a user how to get the agent when it is missing.
	Install string
	// Custom is true for agents defined in the config file.
	Custom bool
	// Disabled agents are listed but never started.
	Disabled bool
	// MCPServers are the agent's own MCP servers (agents.<id>.mcpServers),
	// laid over the config's top-level ones.
	MCPServers MCPServers
	// NPM, when set, is the npm package the agent is installed from
	// (Settings → Agents → Install, into <data-dir>/agents/<id>).
	NPM *NPMPackage
	// Installed is what <data-dir>/agents/<id> holds, when the agent was
	// installed there (the app sets it, and points Command.Path at it);
	// Latest the registry's latest version when known.
	Installed *InstalledPackage
	Latest    string
	// Registry is true for agents from the ACP registry.
	Registry bool
	// Icon is the agent's logo as a data: URL, when the ACP registry gave
	// one (the app sets it from its kept copy; acp/install/icons.go).
	Icon string
	// Defaults are what every new session of the agent is given before
	// its first prompt (agents.<id>.defaults over the catalogue's own;
	// ADR 0032).
	Defaults SessionDefaults
	// Instructions are the client system prompt every new thread of the
	// agent combines with its folder's (agents.<id>.instructions; ADR
	// 0050); nil: none.
	Instructions *SystemPrompt
	// NotInstalled, when set, says why the agent cannot run yet: a
	// registry agent the user has not installed. Detect lists it
	// unavailable with this reason and the hub never starts it, whatever
	// its Command finds on PATH (a registry entry must not pick a program
	// the user already has, such as sh, and run it).
	NotInstalled string
}

// NPMPackage is an agent's npm package: its name, the version the
// catalogue pins, the program it installs, and the Node major it needs.
type NPMPackage struct {
	Package string `mapstructure:"package" json:"package"`
	Version string `mapstructure:"version" json:"version"`
	Bin     string `mapstructure:"bin" json:"bin"`
	MinNode int    `mapstructure:"minNode" json:"minNode,omitempty"`
}

// InstalledPackage is an installed npm agent: its version and program.
type InstalledPackage struct {
	Version string
	Path    string
}

// Builtin returns the catalogue of known ACP agents. Each agent sees only
// its own vendor's credentials from the hub's environment (PassEnv), beside
// the base allowlist of BuildEnv.
func Builtin() []AgentSpec {
	return []AgentSpec{
		{ID: "claude", Name: "Claude Code", Command: Command{Path: "claude-agent-acp", PassEnv: []string{"ANTHROPIC_*", "CLAUDE_*", "AWS_*", "GOOGLE_CLOUD_*", "VERTEX_*"}},
			NPM:     &NPMPackage{Package: "@agentclientprotocol/claude-agent-acp", Version: "0.100.0", Bin: "claude-agent-acp", MinNode: 22},
			Install: "npm install -g @agentclientprotocol/claude-agent-acp"},
		{ID: "codex", Name: "Codex", Command: Command{Path: "codex-acp", PassEnv: []string{"OPENAI_*", "CODEX_*"}},
			NPM:     &NPMPackage{Package: "@agentclientprotocol/codex-acp", Version: "2.6.0", Bin: "codex-acp", MinNode: 22},
			Install: "npm install -g @agentclientprotocol/codex-acp"},
		{ID: "gemini", Name: "Gemini CLI", Command: Command{Path: "gemini", Args: []string{"--acp"}, PassEnv: []string{"GEMINI_*", "GOOGLE_*"}},
			NPM:     &NPMPackage{Package: "@google/gemini-cli", Version: "0.61.0", Bin: "gemini", MinNode: 22},
			Install: "npm install -g @google/gemini-cli"},
		// Qwen Code starts its sessions in "auto", where a classifier
		// approves edits and commands; "default" asks before each (ACP.md).
		{ID: "qwen", Name: "Qwen Code", Command: Command{Path: "qwen", Args: []string{"--acp"}, PassEnv: []string{"QWEN_*", "DASHSCOPE_*", "OPENAI_*"}},
			NPM:      &NPMPackage{Package: "@qwen-code/qwen-code", Version: "0.24.4", Bin: "qwen", MinNode: 22},
			Install:  "npm install -g @qwen-code/qwen-code",
			Defaults: SessionDefaults{Mode: "default"}},
		{ID: "opencode", Name: "OpenCode", Command: Command{Path: "opencode", Args: []string{"acp"}, PassEnv: []string{"OPENCODE_*", "ANTHROPIC_*", "OPENAI_*", "GEMINI_*", "OPENROUTER_*"}},
			NPM:     &NPMPackage{Package: "opencode-ai", Version: "1.18.33", Bin: "opencode", MinNode: 22},
			Install: "npm install -g opencode-ai"},
		{ID: "copilot", Name: "GitHub Copilot", Command: Command{Path: "copilot", Args: []string{"--acp"}, PassEnv: []string{"COPILOT_*", "GH_TOKEN", "GITHUB_TOKEN"}},
			NPM:     &NPMPackage{Package: "@github/copilot", Version: "1.0.102", Bin: "copilot", MinNode: 22},
			Install: "npm install -g @github/copilot"},
		{ID: "goose", Name: "Goose", Command: Command{Path: "goose", Args: []string{"acp"}, PassEnv: []string{"GOOSE_*", "ANTHROPIC_*", "OPENAI_*", "GEMINI_*", "OPENROUTER_*"}},
			Install: "install Goose from https://block.github.io/goose/docs/getting-started/installation"},
	}
}

// AgentConfig is one entry of the config file's `agents:` map. Over a
// built-in agent of the same id, set fields replace the built-in ones
// (Env entries are added); any other id defines a custom agent, which needs
// a Command.
type AgentConfig struct {
	Name    string            `mapstructure:"name" json:"name,omitempty"`
	Command string            `mapstructure:"command" json:"command,omitempty"`
	Args    []string          `mapstructure:"args" json:"args,omitempty"`
	Env     map[string]string `mapstructure:"env" json:"env,omitempty"`
	Enabled *bool             `mapstructure:"enabled" json:"enabled,omitempty"`
	// MCPServers are MCP servers for this agent only, by name (read from
	// the YAML as written: names, env and header keys keep their case).
	MCPServers MCPServers `mapstructure:"mcpServers" json:"mcpServers,omitempty"`
	// NPM makes the agent installable from npm (a custom agent then
	// needs no command: it is the package's program).
	NPM *NPMPackage `mapstructure:"npm" json:"npm,omitempty"`
	// Defaults are the agent's session defaults; over a built-in agent's,
	// a mode given replaces its mode and options are laid over its
	// options by id.
	Defaults *SessionDefaults `mapstructure:"defaults" json:"defaults,omitempty"`
	// Instructions are the agent's client system prompt ({mode, text};
	// ADR 0050).
	Instructions *SystemPrompt `mapstructure:"instructions" json:"instructions,omitempty"`
}

// SessionDefaults are an agent's session defaults (agents.<id>.defaults):
// the mode and config option values every new session (session/new, not a
// reopened one) is set to before its first prompt, unless the user chose
// otherwise on the thread. A default the session does not offer refuses
// the prompt (ADR 0032).
type SessionDefaults struct {
	// Mode is a mode id ("" for none).
	Mode string `mapstructure:"mode" json:"mode,omitempty"`
	// Options are config option values by option id (a boolean option's
	// value as "true" or "false").
	Options OptionValues `mapstructure:"options" json:"options,omitempty"`
}

// OptionValues are config option values by option id, as written (ids
// keep their case).
type OptionValues map[string]string

// IsZero reports whether d sets nothing.
func (d SessionDefaults) IsZero() bool { return d.Mode == "" && len(d.Options) == 0 }

// Over returns d laid over base: d's mode when set, else base's; base's
// options with d's laid over them by id.
func (d SessionDefaults) Over(base SessionDefaults) SessionDefaults {
	out := SessionDefaults{Mode: base.Mode}
	if d.Mode != "" {
		out.Mode = d.Mode
	}
	if len(base.Options)+len(d.Options) > 0 {
		out.Options = make(OptionValues, len(base.Options)+len(d.Options))
		for k, v := range base.Options {
			out.Options[k] = v
		}
		for k, v := range d.Options {
			out.Options[k] = v
		}
	}
	return out
}

// Merge lays cfg over the built-in catalogue and returns the agents sorted
// by id. A custom agent without a command is an error naming it.
func Merge(builtin []AgentSpec, cfg map[string]AgentConfig) ([]AgentSpec, error) {
	byID := make(map[string]AgentSpec, len(builtin)+len(cfg))
	for _, s := range builtin {
		byID[s.ID] = s
	}
	for id, c := range cfg {
		s, known := byID[id]
		if !known {
			if c.Command == "" && (c.NPM == nil || c.NPM.Bin == "") {
				return nil, fmt.Errorf("agents.%s: a custom agent needs a command (or an npm package with its bin)", id)
			}
			s = AgentSpec{ID: id, Name: id, Custom: true}
			if c.NPM != nil {
				s.Command.Path = c.NPM.Bin
			}
		}
		if c.NPM != nil {
			if c.NPM.Package == "" || c.NPM.Version == "" || c.NPM.Bin == "" {
				return nil, fmt.Errorf("agents.%s.npm: package, version and bin are required", id)
			}
			n := *c.NPM
			s.NPM = &n
		}
		if c.Name != "" {
			s.Name = c.Name
		}
		if c.Command != "" {
			s.Command.Path = c.Command
			s.Command.Args = nil
		}
		if c.Args != nil {
			s.Command.Args = slices.Clone(c.Args)
		}
		s.Command.Env = slices.Clone(s.Command.Env)
		keys := make([]string, 0, len(c.Env))
		for k := range c.Env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			s.Command.Env = append(s.Command.Env, k+"="+c.Env[k])
		}
		if c.Enabled != nil {
			s.Disabled = !*c.Enabled
		}
		if c.MCPServers != nil {
			s.MCPServers = c.MCPServers
		}
		if c.Defaults != nil {
			s.Defaults = c.Defaults.Over(s.Defaults)
		}
		if c.Instructions != nil && !c.Instructions.IsZero() {
			in := *c.Instructions
			s.Instructions = &in
		}
		byID[id] = s
	}
	out := make([]AgentSpec, 0, len(byID))
	for _, s := range byID {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// Detection says whether an agent can be started here.
type Detection struct {
	Available bool
	Path      string // the resolved program
	Reason    string // why not, for a user: "claude-agent-acp not found on PATH; npm install -g …"
}

// Detect looks the agent's program up on PATH (or checks its absolute
// path). It starts nothing.
func Detect(s AgentSpec) Detection {
	if s.Disabled {
		return Detection{Reason: "disabled in the config file"}
	}
	if s.NotInstalled != "" {
		return Detection{Reason: s.NotInstalled}
	}
	path, err := exec.LookPath(s.Command.Path)
	if err != nil {
		reason := fmt.Sprintf("%s not found on PATH", s.Command.Path)
		if s.Install != "" {
			reason += "; install it with: " + s.Install
		}
		return Detection{Reason: reason}
	}
	return Detection{Available: true, Path: path}
}

// ProbeResult is what an agent says about itself in initialize.
type ProbeResult struct {
	Name         string
	Version      string
	Capabilities AgentCapabilities
	AuthMethods  []AuthMethod
	// Raw is the whole initialize answer, as sent.
	Raw json.RawMessage
}

// Probe starts the agent, runs initialize only, and stops it. timeout bounds
// the whole (default 15s).
func Probe(ctx context.Context, cmd Command, opts AgentOptions, timeout time.Duration) (ProbeResult, error) {
	if timeout <= 0 {
		timeout = 15 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	a, err := Launch(ctx, cmd, refusingClient{}, opts)
	if err != nil {
		return ProbeResult{}, err
	}
	defer a.Close(context.Background())
	r := ProbeResult{Capabilities: a.Init.AgentCapabilities, AuthMethods: a.Init.AuthMethods, Raw: a.Init.Raw}
	if a.Init.AgentInfo != nil {
		r.Name, r.Version = a.Init.AgentInfo.Name, strings.TrimSpace(a.Init.AgentInfo.Version)
	}
	return r, nil
}

// refusingClient serves a probe: it never grants anything.
type refusingClient struct{}

func (refusingClient) SessionUpdate(context.Context, SessionNotification) {}

func (refusingClient) RequestPermission(context.Context, RequestPermissionRequest) (RequestPermissionResponse, error) {
	return Cancelled(), nil
}
