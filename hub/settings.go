package hub

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Themes (Settings.UI.Theme).
const (
	ThemeLight  = "light"
	ThemeDark   = "dark"
	ThemeSystem = "system" // follow the OS (prefers-color-scheme); the default
)

// Bounds of Settings.Permissions.Timeout as a settings update accepts it:
// shorter gives nobody time to read the request, longer leaves an agent
// blocked for days.
const (
	MinPermissionTimeout = time.Second
	MaxPermissionTimeout = 24 * time.Hour
)

// Settings is the part of the hub's configuration a user edits from a
// settings page (GET /v1/settings). It is read from the config file the
// hub runs with; ConfigFile names it.
type Settings struct {
	// ConfigFile is the absolute path of the config file (as given: a
	// symlink stays a symlink).
	ConfigFile string `json:"configFile"`
	// ConfigError says why the config file as it is on disk was refused
	// (with its line), while the hub runs on the last good one; "" when
	// the file is the one in force. A settings update is refused while it
	// is set: the file must be fixed first.
	ConfigError   string               `json:"configError,omitempty"`
	Permissions   PermissionSettings   `json:"permissions"`
	Notifications NotificationSettings `json:"notifications"`
	UI            UISettings           `json:"ui"`
	Tray          TraySettings         `json:"tray"`
	Redaction     RedactionSettings    `json:"redaction"`
	Agents        []AgentSettings      `json:"agents"`
	// MCPServers are the config's top-level mcpServers, by name, values
	// of env and headers left out (extension; issue 15).
	MCPServers []MCPServerSetting `json:"mcpServers,omitempty"`
	// Folders are the config's folders: sections that hold MCP servers
	// or instructions, by glob (the other per-folder keys are not edited
	// here).
	Folders []FolderSettings `json:"folders,omitempty"`
	// Budgets are the config's spending limits (usage.go).
	Budgets Budgets `json:"budgets"`
}

// PermissionSettings is the config file's permissions: section.
type PermissionSettings struct {
	// Timeout is how long a permission waits for a decision before it
	// expires (refused), as a duration string: "10m", "90s", "1h30m".
	Timeout string `json:"timeout"`
	// EscalateAfter is how long a permission waits before it is escalated
	// (a permission_escalated event, a critical notification); "" for never.
	// Always shorter than Timeout.
	EscalateAfter string `json:"escalateAfter,omitempty"`
	// Rules are the config rules, in order (first match wins).
	Rules []PermissionRule `json:"rules"`
}

// NotificationSettings is the config file's notifications: section.
type NotificationSettings struct {
	Enabled       bool `json:"enabled"`
	TurnCompleted bool `json:"turnCompleted"`
	// Permission, Question, Error and Budget switch the notifications of
	// each reason (docs/CONFIGURATION.md).
	Permission bool `json:"permission"`
	Question   bool `json:"question"`
	Error      bool `json:"error"`
	Budget     bool `json:"budget"`
}

// UISettings is the config file's ui: section.
type UISettings struct {
	// Theme is ThemeLight, ThemeDark or ThemeSystem.
	Theme string `json:"theme"`
}

// TraySettings is the config file's tray: section, as far as Settings
// edits it.
type TraySettings struct {
	// Autostart: the tray starts at login (the hub writes the user's
	// autostart entry; it removes it when turned off).
	Autostart bool `json:"autostart"`
}

// RedactionSettings is the config file's redaction: section.
type RedactionSettings struct {
	// Enabled: well-known secret formats are replaced before anything is
	// stored (and so streamed): prompts, agent text, tool calls, session
	// state, client requests, titles. Applies at once to what is stored
	// from then on; what is already stored stays as it is.
	Enabled bool `json:"enabled"`
}

// AgentSettings is one entry of the config file's agents: map. It never
// carries the values of the agent's environment (they may hold API keys),
// only their names.
type AgentSettings struct {
	ID      string   `json:"id"`
	Name    string   `json:"name,omitempty"`
	Command string   `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	// EnvKeys are the names of the variables the entry adds to the
	// agent's environment, sorted.
	EnvKeys []string `json:"envKeys,omitempty"`
	// Enabled is the entry's enabled: (absent: not set, the agent is on).
	Enabled *bool `json:"enabled,omitempty"`
	// Builtin says the id is one of the built-in catalogue's agents: the
	// entry changes that agent (removing it restores the built-in one);
	// otherwise it defines a custom agent.
	Builtin bool `json:"builtin"`
	// MCPServers are the entry's agents.<id>.mcpServers (values left out).
	MCPServers []MCPServerSetting `json:"mcpServers,omitempty"`
	// Defaults are the entry's agents.<id>.defaults (the catalogue's own,
	// such as Qwen Code's mode, are on the Agent, not here).
	Defaults *SessionDefaults `json:"defaults,omitempty"`
	// Instructions are the entry's agents.<id>.instructions: the client
	// system prompt of the agent's new threads (ADR 0050).
	Instructions *Instructions `json:"instructions,omitempty"`
}

// SessionDefaults are an agent's session defaults (agents.<id>.defaults;
// ADR 0032): the mode and config option values every new session of the
// agent is set to before its first prompt, unless the user chose
// otherwise on the thread. A default the session does not offer refuses
// the prompt (SESSION_DEFAULTS_NOT_OFFERED).
type SessionDefaults struct {
	// Mode is a mode id of the agent's ("" for none).
	Mode string `json:"mode,omitempty"`
	// Options are config option values by config option id (a boolean
	// option's as "true" or "false").
	Options map[string]string `json:"options,omitempty"`
}

// IsZero reports whether d sets nothing.
func (d SessionDefaults) IsZero() bool { return d.Mode == "" && len(d.Options) == 0 }

// FolderSettings is one folders.<glob> section as Settings shows it.
type FolderSettings struct {
	Glob       string             `json:"glob"`
	MCPServers []MCPServerSetting `json:"mcpServers,omitempty"`
	// Instructions are the section's instructions: the client system
	// prompt of new threads in matching folders, after their agent's
	// (ADR 0050).
	Instructions *Instructions `json:"instructions,omitempty"`
}

// SettingsPatch is the body of PATCH /v1/settings: only the fields present
// change; everything else in the config file stays as it is.
type SettingsPatch struct {
	Permissions   *PermissionSettingsPatch   `json:"permissions,omitempty"`
	Notifications *NotificationSettingsPatch `json:"notifications,omitempty"`
	UI            *UISettingsPatch           `json:"ui,omitempty"`
	Tray          *TraySettingsPatch         `json:"tray,omitempty"`
	// Redaction, when present, sets redaction.enabled.
	Redaction *RedactionSettingsPatch `json:"redaction,omitempty"`
	// Agents adds or replaces ({"id": {…}}) and removes ({"id": null})
	// entries of the config file's agents: map.
	Agents map[string]*AgentPatch `json:"agents,omitempty"`
	// MCPServers adds or replaces top-level MCP servers by name; null
	// removes one (names keep their case).
	MCPServers map[string]*MCPServerPatch `json:"mcpServers,omitempty" ts_type:"Record<string, MCPServerPatch | null>"`
	// Folders changes folders.<glob> sections (globs exact, as written):
	// a FolderPatch's MCP servers are merged by name into the section's
	// (null removes one); a null folder removes the whole section.
	Folders map[string]*FolderPatch `json:"folders,omitempty"`
	// Budgets, when present, replaces the budgets section whole.
	Budgets *Budgets `json:"budgets,omitempty"`
}

// FolderPatch is one folder of SettingsPatch.Folders.
type FolderPatch struct {
	// MCPServers adds or replaces the folder's MCP servers by name; null
	// removes one.
	MCPServers map[string]*MCPServerPatch `json:"mcpServers,omitempty" ts_type:"Record<string, MCPServerPatch | null>"`
	// Instructions replaces the folder's instructions; one without text
	// removes them. Absent: they stay.
	Instructions *Instructions `json:"instructions,omitempty"`
}

// PermissionSettingsPatch changes permissions.timeout when Timeout is set,
// permissions.escalateAfter when EscalateAfter is ("" removes it), and
// replaces the whole permissions.rules list when Rules is set (order
// matters, so the list is not merged).
type PermissionSettingsPatch struct {
	Timeout       *string           `json:"timeout,omitempty"`
	EscalateAfter *string           `json:"escalateAfter,omitempty"`
	Rules         *[]PermissionRule `json:"rules,omitempty"`
}

// RedactionSettingsPatch changes redaction.enabled when Enabled is set.
type RedactionSettingsPatch struct {
	Enabled *bool `json:"enabled,omitempty"`
}

// NotificationSettingsPatch changes the notification switches that are set.
type NotificationSettingsPatch struct {
	Enabled       *bool `json:"enabled,omitempty"`
	TurnCompleted *bool `json:"turnCompleted,omitempty"`
	Permission    *bool `json:"permission,omitempty"`
	Question      *bool `json:"question,omitempty"`
	Error         *bool `json:"error,omitempty"`
	Budget        *bool `json:"budget,omitempty"`
}

// UISettingsPatch changes ui.theme when Theme is set.
type UISettingsPatch struct {
	Theme *string `json:"theme,omitempty"`
}

// TraySettingsPatch changes tray.autostart when Autostart is set.
type TraySettingsPatch struct {
	Autostart *bool `json:"autostart,omitempty"`
}

// AgentPatch is a whole agents: entry, replacing the one of its id: name,
// command, args and enabled are as given (absent: not set). Env is merged
// into the existing entry's environment instead, because clients never see
// its values: a name with a string sets that variable, a name with null
// removes it, and variables not named stay as they are. MCPServers are
// merged likewise into the entry's mcpServers, by name (a server replaced
// whole; null removes one; those not named stay). A patch that sets only
// MCPServers changes nothing else of the entry (and needs no command).
//
// Env's ts_type tag is for the window's generated TypeScript
// (frontend/wailsjs/go/models.ts): without it Wails v2 emits an invalid
// `class string` for the map's *string values, which fails the frontend's
// type check.
type AgentPatch struct {
	Name    string             `json:"name,omitempty"`
	Command string             `json:"command,omitempty"`
	Args    []string           `json:"args,omitempty"`
	Env     map[string]*string `json:"env,omitempty" ts_type:"Record<string, string | null>"`
	Enabled *bool              `json:"enabled,omitempty"`
	// MCPServers: agents.<id>.mcpServers, merged by name (see above).
	MCPServers map[string]*MCPServerPatch `json:"mcpServers,omitempty" ts_type:"Record<string, MCPServerPatch | null>"`
	// Defaults replaces agents.<id>.defaults whole; an empty one ({})
	// removes them. Absent: the entry's defaults stay.
	Defaults *SessionDefaults `json:"defaults,omitempty"`
	// Instructions replaces agents.<id>.instructions; one without text
	// removes them. Absent: they stay (also when the entry is replaced).
	Instructions *Instructions `json:"instructions,omitempty"`
}

// OnlyNested reports whether a sets MCP servers, defaults or instructions
// and nothing else: the rest of the entry then stays as it is.
func (a AgentPatch) OnlyNested() bool {
	return (len(a.MCPServers) > 0 || a.Defaults != nil || a.Instructions != nil) && a.Name == "" && a.Command == "" && a.Args == nil && a.Env == nil && a.Enabled == nil
}

// SettingsService reads and changes the settings. The HTTP API and the
// window consume it; the app implements it over the config file.
type SettingsService interface {
	// Settings returns the settings in force.
	Settings(ctx context.Context) (Settings, error)
	// UpdateSettings applies patch to the config file and to the running
	// hub, and returns the settings then in force. An invalid patch is an
	// INVALID_ARGUMENT *Error naming the field (Details["field"]), and
	// changes nothing.
	UpdateSettings(ctx context.Context, patch SettingsPatch) (Settings, error)
}

var (
	agentIDPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)
	envKeyPattern  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// Validate checks the fields of p on their own: a timeout that parses and
// lies within [MinPermissionTimeout, MaxPermissionTimeout], a known theme,
// agent ids matching [a-z0-9][a-z0-9._-]* (at most 64 characters), a
// non-empty command for an agent that is not builtin(id), environment
// variable names. (Whether the whole config file is then valid is the
// implementation's to check.) Its error is an INVALID_ARGUMENT *Error
// with Details["field"] naming the field, e.g. "agents.my-agent.command".
func (p SettingsPatch) Validate(builtin func(id string) bool) error {
	if p.Permissions != nil && p.Permissions.Timeout != nil {
		if _, err := ParsePermissionTimeout(*p.Permissions.Timeout); err != nil {
			return err
		}
	}
	if p.Permissions != nil && p.Permissions.EscalateAfter != nil {
		if s := strings.TrimSpace(*p.Permissions.EscalateAfter); s != "" {
			if d, err := time.ParseDuration(s); err != nil || d <= 0 {
				return FieldError("permissions.escalateAfter", "permissions.escalateAfter must be a positive duration such as 2m, or empty to never escalate, not %q", s)
			}
		}
	}
	if p.UI != nil && p.UI.Theme != nil {
		switch *p.UI.Theme {
		case ThemeLight, ThemeDark, ThemeSystem:
		default:
			return FieldError("ui.theme", "ui.theme must be light, dark or system, not %q", *p.UI.Theme)
		}
	}
	if p.Budgets != nil {
		if err := p.Budgets.Validate(); err != nil {
			return err
		}
	}
	ids := make([]string, 0, len(p.Agents))
	for id := range p.Agents {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if len(id) > 64 || !agentIDPattern.MatchString(id) {
			return FieldError("agents", "agents: the id %q must be lowercase letters, digits, '.', '_' or '-' (at most 64), starting with a letter or digit", id)
		}
		a := p.Agents[id]
		if a == nil {
			continue
		}
		field := "agents." + id
		if err := validateServerNames(field+".mcpServers", a.MCPServers); err != nil {
			return err
		}
		if err := a.Defaults.validate(field + ".defaults"); err != nil {
			return err
		}
		if a.Instructions != nil {
			if err := a.Instructions.Validate(field + ".instructions"); err != nil {
				return err
			}
		}
		if a.OnlyNested() {
			continue
		}
		if strings.TrimSpace(a.Command) == "" && (builtin == nil || !builtin(id)) {
			return FieldError(field+".command", "%s.command is required: the program that speaks ACP on stdio", field)
		}
		if strings.ContainsRune(a.Command, 0) || strings.ContainsRune(a.Name, 0) {
			return FieldError(field, "%s holds a NUL character", field)
		}
		for _, arg := range a.Args {
			if strings.ContainsRune(arg, 0) {
				return FieldError(field+".args", "%s.args holds a NUL character", field)
			}
		}
		for k := range a.Env {
			if !envKeyPattern.MatchString(k) {
				return FieldError(field+".env", "%s.env: %q is not an environment variable name", field, k)
			}
		}
	}
	if err := validateServerNames("mcpServers", p.MCPServers); err != nil {
		return err
	}
	globs := make([]string, 0, len(p.Folders))
	for g := range p.Folders {
		globs = append(globs, g)
	}
	sort.Strings(globs)
	for _, g := range globs {
		if strings.TrimSpace(g) == "" || strings.ContainsRune(g, 0) || len(g) > 4096 {
			return FieldError("folders", "folders: %q is not a folder glob", g)
		}
		if f := p.Folders[g]; f != nil {
			if err := validateServerNames(fmt.Sprintf("folders.%q.mcpServers", g), f.MCPServers); err != nil {
				return err
			}
			if f.Instructions != nil {
				if err := f.Instructions.Validate(fmt.Sprintf("folders.%q.instructions", g)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// validateServerNames checks the names of a patch's MCP servers (the
// servers themselves are checked with the config they make).
func validateServerNames(field string, servers map[string]*MCPServerPatch) error {
	for name := range servers {
		if strings.TrimSpace(name) == "" || strings.ContainsRune(name, 0) || len(name) > 256 {
			return FieldError(field, "%s: %q is not a server name", field, name)
		}
	}
	return nil
}

// ParsePermissionTimeout parses a permissions.timeout duration string
// ("10m", "90s") and checks its bounds.
func ParsePermissionTimeout(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return 0, FieldError("permissions.timeout", "permissions.timeout must be a duration such as 10m or 90s, not %q", s)
	}
	if d < MinPermissionTimeout || d > MaxPermissionTimeout {
		return 0, FieldError("permissions.timeout", "permissions.timeout must be between %v and %v, not %v", MinPermissionTimeout, MaxPermissionTimeout, d)
	}
	return d, nil
}

// FormatDuration writes d the way a person would in the config file:
// "10m" rather than "10m0s".
func FormatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// FieldError is an INVALID_ARGUMENT *Error about one settings field:
// Details["field"] is its dotted name.
func FieldError(field, format string, args ...any) *Error {
	return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf(format, args...), Details: map[string]any{"field": field}}
}

// validate checks defaults patched at field (nil: none): a mode and option
// ids without spaces around them or NULs, option values not empty.
func (d *SessionDefaults) validate(field string) error {
	if d == nil {
		return nil
	}
	if d.Mode != strings.TrimSpace(d.Mode) || strings.ContainsRune(d.Mode, 0) {
		return FieldError(field+".mode", "%s.mode must be a mode id the agent offers, not %q", field, d.Mode)
	}
	for id, v := range d.Options {
		if id == "" || id != strings.TrimSpace(id) || strings.ContainsRune(id, 0) {
			return FieldError(field+".options", "%s.options: %q is not a config option id", field, id)
		}
		if strings.TrimSpace(v) == "" || strings.ContainsRune(v, 0) {
			return FieldError(field+".options."+id, "%s.options.%s must be a value the agent offers, not %q", field, id, v)
		}
	}
	return nil
}
