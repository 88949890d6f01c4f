package config

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// Instructions in the config file (ADR 0050): a patch writes an agent's
// and a folder's, a multi-line text as a literal block; the file reloads
// with them (the engine's folder rule gets the folder's); replacing the
// agent's entry keeps its instructions; an empty text removes them; a bad
// mode in the file is refused with its key.
func TestInstructionsInTheConfigFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	writeFile(t, path, "agents:\n  mine:\n    command: /bin/mine\n")
	cur, err := Load(path, true)
	if err != nil {
		t.Fatal(err)
	}
	s := NewSettings(NewWatcher(path, cur, slog.New(slog.DiscardHandler), func(from, to Config) {}, nil))
	ctx := context.Background()
	_, err = s.UpdateSettings(ctx, hub.SettingsPatch{
		Agents:  map[string]*hub.AgentPatch{"mine": {Instructions: &hub.Instructions{Mode: "override", Text: "Line one.\nLine two."}}},
		Folders: map[string]*hub.FolderPatch{"/src/**": {Instructions: &hub.Instructions{Text: "Use tabs."}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), "text: |-\n        Line one.\n        Line two.") || !strings.Contains(string(b), "mode: override") {
		t.Fatalf("the file:\n%s", b)
	}
	c, err := Load(path, true)
	if err != nil {
		t.Fatal(err)
	}
	if in := c.Agents["mine"].Instructions; in == nil || in.Mode != "override" || in.Text != "Line one.\nLine two." {
		t.Fatalf("agent instructions read back %+v", in)
	}
	rules := c.Folders.rules()
	if len(rules) != 1 || rules[0].Instructions == nil || rules[0].Instructions.Text != "Use tabs." {
		t.Fatalf("folder rules %+v", rules)
	}

	st, err := s.UpdateSettings(ctx, hub.SettingsPatch{Agents: map[string]*hub.AgentPatch{"mine": {Command: "/bin/other"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range st.Agents {
		if a.ID == "mine" && (a.Instructions == nil || a.Instructions.Text != "Line one.\nLine two.") {
			t.Fatalf("replacing the entry lost its instructions: %+v", a.Instructions)
		}
	}
	st, err = s.UpdateSettings(ctx, hub.SettingsPatch{Folders: map[string]*hub.FolderPatch{"/src/**": {Instructions: &hub.Instructions{}}}})
	if err != nil || len(st.Folders) != 0 {
		t.Fatalf("removing the folder's instructions: %+v %v (an empty section goes)", st.Folders, err)
	}

	writeFile(t, path, "agents:\n  mine:\n    command: /bin/mine\n    instructions: {mode: replace, text: x}\n")
	if _, err := Load(path, true); err == nil || !strings.Contains(err.Error(), "agents.mine.instructions.mode") {
		t.Fatalf("a bad mode: %v, want an error naming agents.mine.instructions.mode", err)
	}
}
