package config

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// Settings over a Watcher that was never started (live reload off): an
// update is verified, written, and committed through the Watcher's one
// apply callback before it returns; a refused one commits nothing.
func TestSettingsCommitThroughApply(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	writeFile(t, path, timeoutConf("5m"))
	cur, err := Load(path, true)
	if err != nil {
		t.Fatal(err)
	}
	var applied [][2]Config
	w := NewWatcher(path, cur, slog.New(slog.DiscardHandler),
		func(from, to Config) { applied = append(applied, [2]Config{from, to}) }, nil)
	s := NewSettings(w)

	timeout := "2m"
	got, err := s.UpdateSettings(context.Background(), hub.SettingsPatch{Permissions: &hub.PermissionSettingsPatch{Timeout: &timeout}})
	if err != nil || got.Permissions.Timeout != "2m" {
		t.Fatalf("UpdateSettings: %+v %v", got.Permissions, err)
	}
	if len(applied) != 1 || applied[0][0].Permissions.Timeout != 5*time.Minute || applied[0][1].Permissions.Timeout != 2*time.Minute {
		t.Fatalf("applied %+v, want one commit from 5m to 2m", applied)
	}
	if w.Config().Permissions.Timeout != 2*time.Minute {
		t.Fatalf("last good config %v", w.Config().Permissions.Timeout)
	}
	before, _ := os.ReadFile(path)

	theme := "blue"
	if _, err := s.UpdateSettings(context.Background(), hub.SettingsPatch{UI: &hub.UISettingsPatch{Theme: &theme}}); hub.ErrorCode(err) != hub.CodeInvalidArgument {
		t.Fatalf("invalid theme: %v, want INVALID_ARGUMENT", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) || len(applied) != 1 {
		t.Fatalf("a refused update changed the file or applied:\n%s", after)
	}
	if st, err := s.Settings(context.Background()); err != nil || st.Permissions.Timeout != "2m" || st.ConfigFile != path || st.ConfigError != "" {
		t.Fatalf("Settings: %+v %v", st, err)
	}
}

// Settings shows redaction.enabled and a settings update switches it,
// applied like any other change (the engine reads Config.Redaction).
func TestSettingsRedactionSwitch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	writeFile(t, path, timeoutConf("5m"))
	cur, err := Load(path, true)
	if err != nil {
		t.Fatal(err)
	}
	var applied []Config
	w := NewWatcher(path, cur, slog.New(slog.DiscardHandler), func(_, to Config) { applied = append(applied, to) }, nil)
	s := NewSettings(w)
	if st, err := s.Settings(context.Background()); err != nil || !st.Redaction.Enabled {
		t.Fatalf("default redaction %+v %v, want on", st.Redaction, err)
	}
	off := false
	got, err := s.UpdateSettings(context.Background(), hub.SettingsPatch{Redaction: &hub.RedactionSettingsPatch{Enabled: &off}})
	if err != nil || got.Redaction.Enabled || len(applied) != 1 || applied[0].Redaction.Enabled || applied[0].EngineConfig().Redaction {
		t.Fatalf("after switching off: %+v %v, applied %d", got.Redaction, err, len(applied))
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "redaction:\n  enabled: false") {
		t.Errorf("config file:\n%s", b)
	}
}
