package config

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// folders.<glob>.additionalDirectories (issue 32, ADR 0051): read and
// handed to the engine with ~ expanded, an empty list set (to none), a
// relative folder refused naming the key; Settings lists it and a patch
// replaces it (an empty list removes the key, then the empty section),
// other keys of the section staying; a relative folder in a patch is
// refused and the file left as it was.
func TestConfigFolderExtraDirs(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	c, err := Load(writeConfig(t, "folders:\n  /srv/**:\n    additionalDirectories: [~/shared, /opt/lib]\n  /srv/big:\n    additionalDirectories: []\n"), true)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, r := range c.EngineConfig().Folders {
		got[r.Glob] = r.AdditionalDirectories
	}
	if d := got["/srv/**"]; !slices.Equal(d, []string{home + "/shared", "/opt/lib"}) {
		t.Errorf("/srv/** extra folders %q", d)
	}
	if d := got["/srv/big"]; d == nil || len(d) != 0 {
		t.Errorf("/srv/big extra folders %#v, want set to none", d)
	}
	if _, err := Load(writeConfig(t, "folders:\n  /a:\n    additionalDirectories: [rel/dir]\n"), true); err == nil || !strings.Contains(err.Error(), "additionalDirectories") {
		t.Errorf("a relative extra folder: %v, want an error naming additionalDirectories", err)
	}

	path := filepath.Join(t.TempDir(), "config.yaml")
	writeFile(t, path, "folders:\n  ~/Work/**:\n    worktree: true\n")
	cur, err := Load(path, true)
	if err != nil {
		t.Fatal(err)
	}
	s := NewSettings(NewWatcher(path, cur, slog.New(slog.DiscardHandler), func(_, _ Config) {}, nil))
	ctx := context.Background()
	dirs := []string{"~/Shared", "/opt/lib"}
	if _, err := s.UpdateSettings(ctx, hub.SettingsPatch{Folders: map[string]*hub.FolderPatch{"~/Work/**": {AdditionalDirectories: &dirs}}}); err != nil {
		t.Fatal(err)
	}
	st, err := s.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Folders) != 1 || st.Folders[0].Glob != "~/Work/**" || !slices.Equal(st.Folders[0].AdditionalDirectories, dirs) {
		t.Errorf("settings' folders %+v, want ~/Work/** with %v as written", st.Folders, dirs)
	}
	bad := []string{"relative"}
	before, _ := os.ReadFile(path)
	if _, err := s.UpdateSettings(ctx, hub.SettingsPatch{Folders: map[string]*hub.FolderPatch{"~/Work/**": {AdditionalDirectories: &bad}}}); err == nil || !strings.Contains(err.Error(), "additionalDirectories") {
		t.Errorf("a relative folder in a patch: %v, want refused naming additionalDirectories", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Errorf("a refused patch changed the file:\n%s", after)
	}
	none := []string{}
	if _, err := s.UpdateSettings(ctx, hub.SettingsPatch{Folders: map[string]*hub.FolderPatch{"~/Work/**": {AdditionalDirectories: &none}}}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), "additionalDirectories") || !strings.Contains(string(data), "worktree: true") {
		t.Errorf("an empty list should remove the key and keep the rest:\n%s", data)
	}
}
