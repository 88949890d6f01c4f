package config

import (
	"os"
	"strings"
	"testing"
)

// folders.<glob>.worktree and worktrees.location (issue 19): read, handed
// to the engine (~ expanded), refused when wrong.
func TestLoadConfigWorktrees(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	body := "worktrees:\n  location: ~/wt\nfolders:\n  /srv/**:\n    worktree: true\n  /srv/big:\n    worktree: false\n"
	c, err := Load(writeConfig(t, body), true)
	if err != nil {
		t.Fatal(err)
	}
	ec := c.EngineConfig()
	if ec.WorktreeLocation != home+"/wt" {
		t.Errorf("location %q", ec.WorktreeLocation)
	}
	got := map[string]bool{}
	for _, r := range ec.Folders {
		if r.Worktree == nil {
			t.Fatalf("rule %s lost its worktree setting", r.Glob)
		}
		got[r.Glob] = *r.Worktree
	}
	if !got["/srv/**"] || got["/srv/big"] || len(got) != 2 {
		t.Errorf("worktree defaults %v", got)
	}
	for _, tt := range []struct{ name, body, want string }{
		{"relative location", "worktrees:\n  location: rel/wt\n", "worktrees.location"},
		{"not a bool", "folders:\n  /a:\n    worktree: maybe\n", "folders"},
		{"unknown worktrees key", "worktrees:\n  place: /x\n", "worktrees.place"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Load(writeConfig(t, tt.body), true); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error naming %q", err, tt.want)
			}
		})
	}
}

// folders.<glob>.worktreeSetup (issue 31): read and handed to the engine;
// an empty list is set (to none), not absent.
func TestLoadConfigWorktreeSetup(t *testing.T) {
	body := "folders:\n  /srv/**:\n    worktreeSetup: [npm ci, 'cp \"$SWITCHBOARD_MAIN_CHECKOUT/.env\" .']\n  /srv/big:\n    worktreeSetup: []\n  /other:\n    worktree: true\n"
	c, err := Load(writeConfig(t, body), true)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, r := range c.EngineConfig().Folders {
		got[r.Glob] = r.WorktreeSetup
	}
	if s := got["/srv/**"]; len(s) != 2 || s[0] != "npm ci" || s[1] != `cp "$SWITCHBOARD_MAIN_CHECKOUT/.env" .` {
		t.Errorf("/srv/** setup %q", s)
	}
	if s := got["/srv/big"]; s == nil || len(s) != 0 {
		t.Errorf("/srv/big setup %#v, want set to none", s)
	}
	if got["/other"] != nil {
		t.Errorf("/other setup %#v, want unset", got["/other"])
	}
	if _, err := Load(writeConfig(t, "folders:\n  /a:\n    worktreeSetup: npm ci\n"), true); err == nil {
		t.Error("a worktreeSetup that is not a list was accepted")
	}
}
