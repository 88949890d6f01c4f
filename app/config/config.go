// Package config is Switchboard's config file (YAML): the Config it holds
// (config.go), how it is loaded, parsed and validated (load.go,
// validate.go, errorlines.go), the Watcher that reloads it live (watch.go,
// diff.go) and the settings edits that rewrite it (settings.go,
// yamlpatch.go, file.go).
//
// A new file, a hand edit the Watcher sees or a settings update, goes the
// way of syncthing's verify → commit: it is parsed with a fresh viper,
// validated, and only then handed to one apply(from, to) callback, which
// is what applying a config means to the running hub (the app's). A file
// that fails is reported and commits nothing: the last good config stays
// in force.
//
// viper and fsnotify are imported here and nowhere else.
package config

import (
	"os"
	"path/filepath"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/engine"
)

// DefaultRegistryURL is registry.url's default: the ACP registry's public
// index. Tests that start hubs in their process set it to "" (no test
// hub asks the network).
var DefaultRegistryURL = acp.PublicRegistryURL

// Config is the config file (YAML). Keys are exactly these; an unknown key
// is an error, so a typo never silently does nothing. A Config from Load or
// a Watcher is valid. It is a value, but its slices and Agents map are
// shared by every copy: treat them as read-only.
type Config struct {
	Listen         string   `mapstructure:"listen"`
	AllowPublic    bool     `mapstructure:"allowPublic"`
	AllowedHosts   []string `mapstructure:"allowedHosts"`
	AllowedOrigins []string `mapstructure:"allowedOrigins"`
	Permissions    struct {
		Timeout time.Duration `mapstructure:"timeout"`
		// EscalateAfter: a permission still pending this long is
		// escalated (0: never); shorter than Timeout.
		EscalateAfter time.Duration `mapstructure:"escalateAfter"`
		// Rules are tried in order before anyone is asked (rules.go).
		Rules []hub.PermissionRule `mapstructure:"rules"`
	} `mapstructure:"permissions"`
	Limits struct {
		MaxAgentProcesses int           `mapstructure:"maxAgentProcesses"`
		AgentIdleTimeout  time.Duration `mapstructure:"agentIdleTimeout"`
		TurnTimeout       time.Duration `mapstructure:"turnTimeout"`
		// TurnIdleTimeout: a turn with no session/update and no agent
		// request for this long is cancelled, then killed (0: off); the
		// clock pauses while a permission or client request of the turn
		// is pending or a terminal runs.
		TurnIdleTimeout time.Duration `mapstructure:"turnIdleTimeout"`
		// AgentRequests: agent→hub requests (fs/*, terminal/*) served at
		// once per agent process; more wait.
		AgentRequests int `mapstructure:"agentRequests"`
		// PendingPermissionsPerTurn: past it an agent's permission request
		// is refused at once.
		PendingPermissionsPerTurn int `mapstructure:"pendingPermissionsPerTurn"`
		// StreamsPerClient: SSE streams open at once per X-Client-ID; the
		// next is 429.
		StreamsPerClient int `mapstructure:"streamsPerClient"`
		// LiveEventBytes: an event larger than this is sent cut on the
		// streams (whole in history).
		LiveEventBytes int `mapstructure:"liveEventBytes"`
		// ImportMaxBytes bounds the body of POST /v1/threads/import (the
		// one exception to the 10 MiB body cap).
		ImportMaxBytes int64 `mapstructure:"importMaxBytes"`
	} `mapstructure:"limits"`
	Context struct {
		RecentTurns int `mapstructure:"recentTurns"`
		MaxChars    int `mapstructure:"maxChars"`
		// CompactAt: compact a thread automatically once the agent reports
		// (usage_update) this fraction of its context window used;
		// 0.5–0.95, or 0 (the default): never automatically.
		CompactAt float64 `mapstructure:"compactAt"`
	} `mapstructure:"context"`
	Notifications struct {
		// Enabled is the master switch; each reason has its own
		// (app/notify.go): a pending permission, an agent's question, a
		// completed turn, an error (a failed turn, a config file not
		// applied), a budget warning or overrun. All default on; live.
		Enabled       bool `mapstructure:"enabled"`
		Permission    bool `mapstructure:"permission"`
		Question      bool `mapstructure:"question"`
		TurnCompleted bool `mapstructure:"turnCompleted"`
		Error         bool `mapstructure:"error"`
		Budget        bool `mapstructure:"budget"`
	} `mapstructure:"notifications"`
	Tray struct {
		// Enabled: the desktop app starts switchboard-tray as its child.
		Enabled bool `mapstructure:"enabled"`
		// Autostart: the user's autostart entry starts switchboard-tray at
		// login (Settings → "Start the tray at login"; tray/autostart).
		Autostart bool `mapstructure:"autostart"`
	} `mapstructure:"tray"`
	// Redaction replaces well-known secret formats before anything is
	// stored or streamed (docs/SECURITY.md "Secrets at rest"); live.
	Redaction struct {
		Enabled bool `mapstructure:"enabled"`
	} `mapstructure:"redaction"`
	// Search indexes what is stored for full-text search (GET
	// /v1/search); on restart. Off, nothing is indexed and the next start
	// with it on rebuilds the index in the background.
	Search struct {
		Enabled bool `mapstructure:"enabled"`
	} `mapstructure:"search"`
	UI struct {
		// Theme is the window's and the web UI's colours: light, dark or
		// system (follow the OS).
		Theme string `mapstructure:"theme"`
	} `mapstructure:"ui"`
	Terminals struct {
		// InheritEnv names the hub's environment variables that terminal
		// commands agents run inherit besides the default list (exact
		// names, or prefixes ending in '*'): DBUS_SESSION_BUS_ADDRESS and
		// SSH_AUTH_SOCK are withheld unless named here.
		InheritEnv []string `mapstructure:"inheritEnv"`
	} `mapstructure:"terminals"`
	// Install configures installing agents from npm (hub/agentsetup).
	Install struct {
		// Registry is the npm registry to install from ("" : npm's own
		// configuration, normally https://registry.npmjs.org/).
		Registry string `mapstructure:"registry"`
	} `mapstructure:"install"`
	// Registry is the ACP registry whose agents join the catalogue
	// (hub/agentsetup); default the public one (acp.PublicRegistryURL),
	// "" leaves it out. Asked only when a client lists the agents, at
	// most daily (ADR 0020).
	Registry struct {
		URL string `mapstructure:"url"`
	} `mapstructure:"registry"`
	// Worktrees: where worktree threads' worktrees go (issue 19).
	Worktrees struct {
		// Location is the folder of new worktrees, as <location>/<branch>
		// (absolute or ~/…); "": <repo>-worktrees beside the repository.
		Location string `mapstructure:"location"`
	} `mapstructure:"worktrees"`
	// Folders holds per-folder settings by folder glob (folders.go).
	// Budgets are the spending limits (budgets.currency, daily, monthly,
	// perThread, agents.<id>.daily|monthly); live.
	Budgets hub.Budgets `mapstructure:"budgets"`
	Folders Folders     `mapstructure:"folders"`
	// MCPServers are MCP servers for every agent, by name (mcp.go).
	MCPServers acp.MCPServers             `mapstructure:"mcpServers"`
	Agents     map[string]acp.AgentConfig `mapstructure:"agents"`
	// Hosts are other machines reached over the user's ssh, by name
	// (hosts.go, ADR 0045); live.
	Hosts map[string]HostConfig `mapstructure:"hosts"`
}

// DefaultListen is the hub's default listen address (API.md).
const DefaultListen = "127.0.0.1:8686"

// DefaultPath returns the default config file: the OS config dir's
// switchboard/config.yaml. It fails when the OS has no config dir.
func DefaultPath() (string, error) {
	d, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "switchboard", "config.yaml"), nil
}

// EngineConfig is the engine's part of c: permission timeout, escalation
// and rules (compiled), limits, context sizes, the folder rules, what
// terminals inherit and redaction. c must be valid.
func (c Config) EngineConfig() engine.Config {
	rules, _ := compileRules(c.Permissions.Rules) // validated by Load
	return engine.Config{
		Rules:              rules,
		EscalateAfter:      c.Permissions.EscalateAfter,
		PermissionTimeout:  c.Permissions.Timeout,
		MaxAgentProcesses:  c.Limits.MaxAgentProcesses,
		AgentIdleTimeout:   c.Limits.AgentIdleTimeout,
		TurnTimeout:        c.Limits.TurnTimeout,
		TurnIdleTimeout:    c.Limits.TurnIdleTimeout,
		ContextCompactAt:   c.Context.CompactAt,
		ContextRecentTurns: c.Context.RecentTurns,
		ContextMaxChars:    c.Context.MaxChars,
		Folders:            c.Folders.rules(),
		MCPServers:         c.MCPServers,
		TerminalInheritEnv: c.Terminals.InheritEnv,
		Redaction:          c.Redaction.Enabled,
		WorktreeLocation:   expandHome(c.Worktrees.Location),

		AgentRequests:             c.Limits.AgentRequests,
		PendingPermissionsPerTurn: c.Limits.PendingPermissionsPerTurn,
		Budgets:                   c.Budgets,
	}
}

// Catalogue is the agent catalogue of c: the built-in agents merged with
// the config's. c must be valid (from Load or a Watcher); for an invalid
// c it is nil.
func (c Config) Catalogue() []acp.AgentSpec {
	specs, _ := acp.Merge(acp.Builtin(), c.Agents) // validated by Load
	return specs
}
