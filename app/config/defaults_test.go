package config

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// agents.<id>.defaults: the mode through viper, option ids as written
// (viper would lowercase them), booleans kept as "true"; laid over the
// catalogue's (Qwen's mode "default") field by field.
func TestLoadSessionDefaults(t *testing.T) {
	c, err := Load(writeConfig(t, `agents:
  qwen:
    defaults:
      options:
        Model: qwen3-coder
        thinking: true
  claude:
    defaults:
      mode: plan
`), true)
	if err != nil {
		t.Fatal(err)
	}
	want := acp.OptionValues{"Model": "qwen3-coder", "thinking": "true"}
	if d := c.Agents["qwen"].Defaults; d == nil || d.Mode != "" || len(d.Options) != 2 || d.Options["Model"] != want["Model"] || d.Options["thinking"] != "true" {
		t.Fatalf("qwen defaults %+v, want options %v", d, want)
	}
	byID := map[string]acp.AgentSpec{}
	for _, s := range c.Catalogue() {
		byID[s.ID] = s
	}
	if d := byID["qwen"].Defaults; d.Mode != "default" || d.Options["Model"] != "qwen3-coder" {
		t.Fatalf("qwen in the catalogue: %+v, want the catalogue's mode default under the user's options", d)
	}
	if d := byID["claude"].Defaults; d.Mode != "plan" || len(d.Options) != 0 {
		t.Fatalf("claude: %+v, want mode plan", d)
	}
	if d := byID["codex"].Defaults; !d.IsZero() {
		t.Fatalf("codex has no defaults; got %+v", d)
	}
	c, err = Load(writeConfig(t, "agents:\n  qwen:\n    defaults:\n      mode: yolo\n"), true)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range c.Catalogue() {
		if s.ID == "qwen" && s.Defaults.Mode != "yolo" {
			t.Fatalf("the user's qwen mode must beat the catalogue's: %+v", s.Defaults)
		}
	}
}

// A malformed default is refused with its key and line.
func TestLoadSessionDefaultsErrors(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"mode a list", "agents:\n  qwen:\n    defaults:\n      mode: [a, b]\n", "agents.qwen.defaults.mode"},
		{"mode blank", "agents:\n  qwen:\n    defaults:\n      mode: \" \"\n", "line 4: agents.qwen.defaults.mode"},
		{"options a list", "agents:\n  qwen:\n    defaults:\n      options: [a]\n", "line 4: agents.qwen.defaults.options"},
		{"option a map", "agents:\n  qwen:\n    defaults:\n      options:\n        model: {a: b}\n", "line 5: agents.qwen.defaults.options.model"},
		{"option empty", "agents:\n  qwen:\n    defaults:\n      options:\n        model: \"\"\n", "line 5: agents.qwen.defaults.options.model"},
		{"unknown key", "agents:\n  qwen:\n    defaults:\n      mood: plan\n", "line 4: unknown key agents.qwen.defaults.mood"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(writeConfig(t, tt.body), true)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error with %q", err, tt.want)
			}
		})
	}
}

// PATCH /v1/settings sets an agent's defaults without touching the rest of
// its entry, shows them, keeps them when the entry is replaced, removes
// them with {}, and refuses a blank value naming the field.
func TestSettingsPatchDefaults(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	writeFile(t, path, "agents:\n  qwen:\n    env:\n      QWEN_KEY: x # mine\n")
	cur, err := Load(path, true)
	if err != nil {
		t.Fatal(err)
	}
	w := NewWatcher(path, cur, slog.New(slog.DiscardHandler), func(_, _ Config) {}, nil)
	s := NewSettings(w)
	ctx := context.Background()
	d := &hub.SessionDefaults{Mode: "plan", Options: map[string]string{"Model": "qwen3-coder"}}
	got, err := s.UpdateSettings(ctx, hub.SettingsPatch{Agents: map[string]*hub.AgentPatch{"qwen": {Defaults: d}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Agents) != 1 || got.Agents[0].Defaults == nil || got.Agents[0].Defaults.Mode != "plan" ||
		got.Agents[0].Defaults.Options["Model"] != "qwen3-coder" || strings.Join(got.Agents[0].EnvKeys, ",") != "QWEN_KEY" {
		t.Fatalf("settings after the patch: %+v", got.Agents)
	}
	if data, _ := os.ReadFile(path); !strings.Contains(string(data), "# mine") || !strings.Contains(string(data), "Model: qwen3-coder") {
		t.Fatalf("the file lost the entry's env or the option id's case:\n%s", data)
	}
	if m := w.Config().Agents["qwen"].Defaults; m == nil || m.Mode != "plan" {
		t.Fatalf("config in force: %+v", m)
	}
	name := "Qwen"
	if got, err = s.UpdateSettings(ctx, hub.SettingsPatch{Agents: map[string]*hub.AgentPatch{"qwen": {Name: name}}}); err != nil || got.Agents[0].Defaults == nil {
		t.Fatalf("replacing the entry dropped its defaults: %+v %v", got.Agents, err)
	}
	if got, err = s.UpdateSettings(ctx, hub.SettingsPatch{Agents: map[string]*hub.AgentPatch{"qwen": {Defaults: &hub.SessionDefaults{}}}}); err != nil || got.Agents[0].Defaults != nil || got.Agents[0].Name != name {
		t.Fatalf("{} must remove the defaults only: %+v %v", got.Agents, err)
	}
	_, err = s.UpdateSettings(ctx, hub.SettingsPatch{Agents: map[string]*hub.AgentPatch{"qwen": {Defaults: &hub.SessionDefaults{Options: map[string]string{"model": " "}}}}})
	var he *hub.Error
	if !errors.As(err, &he) || he.Code != hub.CodeInvalidArgument || he.Details["field"] != "agents.qwen.defaults.options.model" {
		t.Fatalf("a blank option value: %v, want INVALID_ARGUMENT naming the field", err)
	}
}
