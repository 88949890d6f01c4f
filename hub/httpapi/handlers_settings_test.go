package httpapi

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// fakeSettings is a hub.SettingsService in memory: it validates a patch as
// the app does (SettingsPatch.Validate) and applies it to its settings.
type fakeSettings struct {
	mu      sync.Mutex
	st      hub.Settings
	patches []hub.SettingsPatch
	fail    error // returned by the next call, then cleared
}

func newFakeSettings() *fakeSettings {
	return &fakeSettings{st: hub.Settings{
		ConfigFile:    "/home/u/.config/switchboard/config.yaml",
		Permissions:   hub.PermissionSettings{Timeout: "10m"},
		Notifications: hub.NotificationSettings{Enabled: true, TurnCompleted: true},
		UI:            hub.UISettings{Theme: hub.ThemeSystem},
	}}
}

func (f *fakeSettings) Settings(context.Context) (hub.Settings, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.fail; err != nil {
		f.fail = nil
		return hub.Settings{}, err
	}
	return f.st, nil
}

func (f *fakeSettings) UpdateSettings(_ context.Context, p hub.SettingsPatch) (hub.Settings, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.patches = append(f.patches, p)
	if err := f.fail; err != nil {
		f.fail = nil
		return hub.Settings{}, err
	}
	if err := p.Validate(func(id string) bool { return id == "claude" }); err != nil {
		return hub.Settings{}, err
	}
	if p.Permissions != nil && p.Permissions.Timeout != nil {
		f.st.Permissions.Timeout = *p.Permissions.Timeout
	}
	if n := p.Notifications; n != nil {
		if n.Enabled != nil {
			f.st.Notifications.Enabled = *n.Enabled
		}
		if n.TurnCompleted != nil {
			f.st.Notifications.TurnCompleted = *n.TurnCompleted
		}
	}
	if p.UI != nil && p.UI.Theme != nil {
		f.st.UI.Theme = *p.UI.Theme
	}
	for id, a := range p.Agents {
		f.st.Agents = slices.DeleteFunc(f.st.Agents, func(x hub.AgentSettings) bool { return x.ID == id })
		if a == nil {
			continue
		}
		as := hub.AgentSettings{ID: id, Name: a.Name, Command: a.Command, Args: a.Args}
		for k := range a.Env {
			as.EnvKeys = append(as.EnvKeys, k)
		}
		sort.Strings(as.EnvKeys)
		f.st.Agents = append(f.st.Agents, as)
	}
	sort.Slice(f.st.Agents, func(i, j int) bool { return f.st.Agents[i].ID < f.st.Agents[j].ID })
	return f.st, nil
}

func (f *fakeSettings) lastPatch(t *testing.T) hub.SettingsPatch {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.patches) == 0 {
		t.Fatal("no patch reached the settings service")
	}
	return f.patches[len(f.patches)-1]
}

func withSettings(s hub.SettingsService) func(*hub.Services) {
	return func(svcs *hub.Services) { svcs.Settings = s }
}

// settingsReply is the wire form of a settings answer or an error.
type settingsReply struct {
	Settings hub.Settings `json:"settings"`
	Error    ErrorObject  `json:"error"`
}

func TestSettingsAPI(t *testing.T) {
	fs := newFakeSettings()
	h := newHarness(t, withSettings(fs))

	var got settingsReply
	h.mustJSON(h.call("GET", "/v1/settings", ""), 200, &got)
	if got.Settings.UI.Theme != "system" || got.Settings.Permissions.Timeout != "10m" || got.Settings.ConfigFile == "" {
		t.Fatalf("GET /v1/settings: %+v", got.Settings)
	}
	if r := h.call("GET", "/v1/settings", ""); !strings.Contains(string(r.body), `"agents":[]`) {
		t.Errorf("no agents must be [] on the wire: %s", r.body)
	}

	tests := []struct {
		name   string
		body   string
		opts   []reqOpt
		status int
		code   string
		field  string // details.field of an error
		check  func(t *testing.T, s hub.Settings)
	}{
		{name: "theme", body: `{"ui":{"theme":"dark"}}`, status: 200,
			check: func(t *testing.T, s hub.Settings) {
				if s.UI.Theme != "dark" || s.Permissions.Timeout != "10m" {
					t.Errorf("after a theme patch: %+v", s)
				}
			}},
		{name: "timeout and notifications", body: `{"permissions":{"timeout":"90s"},"notifications":{"turnCompleted":false}}`, status: 200,
			check: func(t *testing.T, s hub.Settings) {
				if s.Permissions.Timeout != "90s" || s.Notifications.TurnCompleted || !s.Notifications.Enabled {
					t.Errorf("after the patch: %+v", s)
				}
			}},
		{name: "add agent", body: `{"agents":{"mine":{"name":"Mine","command":"/opt/mine","args":["--acp"],"env":{"MY_KEY":"secret"}}}}`, status: 200,
			check: func(t *testing.T, s hub.Settings) {
				if len(s.Agents) != 1 || s.Agents[0].ID != "mine" || !slices.Equal(s.Agents[0].EnvKeys, []string{"MY_KEY"}) {
					t.Errorf("agents after adding one: %+v", s.Agents)
				}
			}},
		{name: "remove agent", body: `{"agents":{"mine":null}}`, status: 200,
			check: func(t *testing.T, s hub.Settings) {
				if len(s.Agents) != 0 {
					t.Errorf("agents after removing: %+v", s.Agents)
				}
			}},
		{name: "bad theme", body: `{"ui":{"theme":"blue"}}`, status: 400, code: hub.CodeInvalidArgument, field: "ui.theme"},
		{name: "bad timeout", body: `{"permissions":{"timeout":"0s"}}`, status: 400, code: hub.CodeInvalidArgument, field: "permissions.timeout"},
		{name: "timeout not a duration", body: `{"permissions":{"timeout":"soon"}}`, status: 400, code: hub.CodeInvalidArgument, field: "permissions.timeout"},
		{name: "bad agent id", body: `{"agents":{"My Agent":{"command":"x"}}}`, status: 400, code: hub.CodeInvalidArgument, field: "agents"},
		{name: "agent without command", body: `{"agents":{"mine":{"name":"Mine"}}}`, status: 400, code: hub.CodeInvalidArgument, field: "agents.mine.command"},
		{name: "bad env name", body: `{"agents":{"mine":{"command":"x","env":{"A=B":"1"}}}}`, status: 400, code: hub.CodeInvalidArgument, field: "agents.mine.env"},
		{name: "unknown field", body: `{"theme":"dark"}`, status: 400, code: hub.CodeInvalidArgument},
		{name: "wrong type", body: `{"notifications":{"enabled":"yes"}}`, status: 400, code: hub.CodeInvalidArgument},
		{name: "not JSON", body: `{"ui":`, status: 400, code: hub.CodeInvalidArgument},
		{name: "no content type", body: `{"ui":{"theme":"dark"}}`, opts: []reqOpt{withHeader("Content-Type", "")}, status: 415, code: CodeUnsupportedMediaType},
		{name: "no token", body: `{"ui":{"theme":"dark"}}`, opts: []reqOpt{noToken}, status: 401, code: hub.CodeUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.call("PATCH", "/v1/settings", tt.body, tt.opts...)
			var got settingsReply
			if err := json.Unmarshal(r.body, &got); err != nil {
				t.Fatalf("%d %s: %v", r.status, r.body, err)
			}
			if r.status != tt.status || got.Error.Code != tt.code {
				t.Fatalf("status %d code %q, want %d %q: %s", r.status, got.Error.Code, tt.status, tt.code, r.body)
			}
			if tt.field != "" && got.Error.Details["field"] != tt.field {
				t.Errorf("details.field %v, want %s: %s", got.Error.Details["field"], tt.field, r.body)
			}
			if tt.check != nil {
				tt.check(t, got.Settings)
			}
		})
	}
}

// {"agents":{"id":null}} reaches the service as a nil entry (remove), not
// as an empty agent, and absent fields stay nil (unchanged).
func TestSettingsPatchDecoding(t *testing.T) {
	fs := newFakeSettings()
	h := newHarness(t, withSettings(fs))
	h.mustJSON(h.call("PATCH", "/v1/settings", `{"agents":{"gone":null},"notifications":{"enabled":false}}`), 200, nil)
	p := fs.lastPatch(t)
	a, ok := p.Agents["gone"]
	if !ok || a != nil {
		t.Errorf("agents.gone: present %v, value %+v; want a nil entry", ok, a)
	}
	if p.UI != nil || p.Permissions != nil || p.Notifications.TurnCompleted != nil || p.Notifications.Enabled == nil || *p.Notifications.Enabled {
		t.Errorf("patch %+v: want only notifications.enabled=false", p)
	}
}

func TestSettingsServiceErrors(t *testing.T) {
	fs := newFakeSettings()
	h := newHarness(t, withSettings(fs))
	fs.fail = &hub.Error{Code: hub.CodeConflict, Message: "the config file has an error; fix it first"}
	if r := h.call("PATCH", "/v1/settings", `{"ui":{"theme":"dark"}}`); r.status != 409 || r.code() != hub.CodeConflict {
		t.Errorf("a conflict from the service: %d %s", r.status, r.body)
	}
	fs.fail = context.DeadlineExceeded // an uncoded error: 500, generic message
	if r := h.call("GET", "/v1/settings", ""); r.status != 500 || strings.Contains(string(r.body), "deadline") {
		t.Errorf("an uncoded error: %d %s", r.status, r.body)
	}
}

func TestSettingsUnavailable(t *testing.T) {
	h := newHarness(t) // no Options.Settings
	for _, r := range []reply{
		h.call("GET", "/v1/settings", ""),
		h.call("PATCH", "/v1/settings", `{"ui":{"theme":"dark"}}`),
	} {
		var b ErrorBody
		_ = json.Unmarshal(r.body, &b)
		if r.status != 404 || b.Error.Code != hub.CodeNotFound || b.Error.Message != "settings are not available" {
			t.Errorf("without settings: %d %s", r.status, r.body)
		}
	}
}
