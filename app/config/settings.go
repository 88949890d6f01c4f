package config

import (
	"context"
	"errors"
	"fmt"
	"go.yaml.in/yaml/v3"
	"maps"
	"slices"
	"sort"
	"sync"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/policy"
)

// Settings is hub.SettingsService over the config file of a Watcher: the
// settings page of the window and of the web UI (GET and PATCH
// /v1/settings) edit the same file a user edits by hand, never a second
// store.
//
// UpdateSettings guarantees:
//   - Only what the patch names changes: the file is edited as a YAML node
//     tree, so comments, key order and every other key stay.
//   - The edited file is validated exactly as the hub validates a file at
//     start and on live reload (Load, the Watcher), so an API write can
//     never leave a file the hub would refuse. A refused patch leaves the
//     file byte for byte as it was, and the last good config in force.
//   - The write is atomic: a temp file in the same folder, fsync, rename,
//     fsync of the folder. An existing file keeps its mode (a new one is
//     0600, in a 0700 folder if the folder is new); a symlinked config file
//     is resolved and its target written, so the link stays a link.
//   - The running hub applies the new file before UpdateSettings returns,
//     through the Watcher's own apply; the Watcher then finds the content
//     unchanged and does nothing. The answer is the new state.
//   - Updates are serialised (one mutex), and never interleave with a
//     live-reload check of the file (the Watcher's edit lock, which every
//     Settings over the same Watcher shares).
//
// A config file that does not exist yet is created with just the patched
// keys.
type Settings struct {
	w *Watcher // the file (w.path, as given: maybe a symlink), its last good config and its edit lock

	// mu serialises this value's updates. Every Settings of a hub (the
	// API's, the window's) edits through the one Watcher, whose edit lock
	// serialises them all, and hand-edit checks with them.
	mu sync.Mutex
}

var _ hub.SettingsService = (*Settings)(nil)

// NewSettings returns the settings service over w's config file. It reads
// w's last good config and LastError, and applies updates through w (its
// apply callback); w need not be started.
func NewSettings(w *Watcher) *Settings { return &Settings{w: w} }

// Settings implements hub.SettingsService: the Watcher's last good config,
// the agents' environment values left out (only their names), and
// ConfigError when the file on disk is refused. It never fails.
func (s *Settings) Settings(context.Context) (hub.Settings, error) {
	return s.settings(), nil
}

// UpdateSettings implements hub.SettingsService; see Settings for its
// guarantees. Its errors are *hub.Error: INVALID_ARGUMENT for a patch that
// fails hub.SettingsPatch.Validate or leaves an invalid file, CONFLICT when
// the file on disk is refused already (fix it first); or an I/O error.
// On any error the file and the config in force are as they were.
func (s *Settings) UpdateSettings(_ context.Context, p hub.SettingsPatch) (hub.Settings, error) {
	if err := p.Validate(isBuiltinAgent); err != nil {
		return hub.Settings{}, err
	}
	if err := s.editYAML(func(root *yaml.Node) error { return applyPatch(root, p) }); err != nil {
		return hub.Settings{}, err
	}
	return s.settings(), nil
}

// editYAML rewrites the config file through edit (editConfigYAML) and
// applies it: refused with CONFLICT when the file on disk is refused
// already, INVALID_ARGUMENT when the result is not a valid config; on any
// error the file and the config in force are as they were.
func (s *Settings) editYAML(edit func(root *yaml.Node) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	path := s.w.path
	return s.w.edit(func() ([]byte, Config, error) {
		target := resolveConfigLink(path)
		old, mode, err := readConfigFile(target)
		if err != nil {
			return nil, Config{}, err
		}
		if len(old) > 0 {
			if _, err := parse(path, old); err != nil {
				return nil, Config{}, &hub.Error{Code: hub.CodeConflict, Err: err,
					Message: "the config file has an error; fix it first: " + err.Error(),
					Details: map[string]any{"file": path}}
			}
		}
		data, err := editConfigYAML(old, edit)
		if err != nil {
			return nil, Config{}, err
		}
		to, err := parse(path, data)
		if err != nil {
			details := map[string]any{"file": path}
			var re *policy.RuleError
			if errors.As(err, &re) {
				// A rule the patch set: which one, and which of its fields.
				details["field"] = fmt.Sprintf("permissions.rules[%d].%s", re.Index, re.Field)
				details["rule"] = re.Index
			}
			return nil, Config{}, &hub.Error{Code: hub.CodeInvalidArgument, Message: err.Error(), Err: err, Details: details}
		}
		if err := writeFileAtomic(target, data, mode); err != nil {
			return nil, Config{}, fmt.Errorf("settings: writing %s: %w", target, err)
		}
		return data, to, nil
	})
}

// settings is the state to answer: the config in force, and why the file
// on disk is not, if it is not.
func (s *Settings) settings() hub.Settings {
	st := settingsOf(s.w.path, s.w.Config())
	if err := s.w.LastError(); err != nil {
		st.ConfigError = err.Error()
	}
	return st
}

// isBuiltinAgent reports whether id is an agent of the built-in catalogue.
func isBuiltinAgent(id string) bool {
	return slices.ContainsFunc(acp.Builtin(), func(s acp.AgentSpec) bool { return s.ID == id })
}

// settingsOf is the settings part of c, the config file at path. The
// agents' environment values are left out: only their names.
func settingsOf(path string, c Config) hub.Settings {
	s := hub.Settings{
		ConfigFile: path,
		Permissions: hub.PermissionSettings{Timeout: hub.FormatDuration(c.Permissions.Timeout),
			Rules: append([]hub.PermissionRule{}, c.Permissions.Rules...)},
		Notifications: hub.NotificationSettings{Enabled: c.Notifications.Enabled, TurnCompleted: c.Notifications.TurnCompleted,
			Permission: c.Notifications.Permission, Question: c.Notifications.Question, Error: c.Notifications.Error, Budget: c.Notifications.Budget},
		UI:         hub.UISettings{Theme: c.UI.Theme},
		Tray:       hub.TraySettings{Autostart: c.Tray.Autostart},
		Redaction:  hub.RedactionSettings{Enabled: c.Redaction.Enabled},
		Agents:     []hub.AgentSettings{},
		MCPServers: mcpSettings(c),
		Folders:    folderSettings(c),
		Budgets:    c.Budgets,
	}
	if c.Permissions.EscalateAfter > 0 {
		s.Permissions.EscalateAfter = hub.FormatDuration(c.Permissions.EscalateAfter)
	}
	for id, a := range c.Agents {
		as := hub.AgentSettings{
			ID: id, Name: a.Name, Command: a.Command, Args: slices.Clone(a.Args),
			Builtin: isBuiltinAgent(id), MCPServers: serverSettings(a.MCPServers),
		}
		if a.Enabled != nil {
			on := *a.Enabled
			as.Enabled = &on
		}
		if d := a.Defaults; d != nil && !(acp.SessionDefaults{Mode: d.Mode, Options: d.Options}).IsZero() {
			as.Defaults = &hub.SessionDefaults{Mode: d.Mode, Options: maps.Clone(d.Options)}
		}
		as.Instructions = instructionsSetting(a.Instructions) // instructions.go
		for k := range a.Env {
			as.EnvKeys = append(as.EnvKeys, k)
		}
		sort.Strings(as.EnvKeys)
		s.Agents = append(s.Agents, as)
	}
	sort.Slice(s.Agents, func(i, j int) bool { return s.Agents[i].ID < s.Agents[j].ID })
	return s
}
