//go:build unix

package engine_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/engine"
)

// A worktree thread's rules match on its folder (cwd) but `inside: folder`
// means its worktree's path, where its agent runs: a read there is allowed
// without asking, a read of the same file in the folder is asked.
func TestWorktreeThreadInsideFolderIsTheWorktree(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed: ", err)
	}
	wtLocation := t.TempDir()
	rules := withRules(t, hub.PermissionRule{Name: "reads", Kinds: []string{"read"}, Inside: "folder", Decision: "allow"})
	h := newHarness(t, func(c *engine.Config) { rules(c); c.WorktreeLocation = wtLocation })
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-qm", "init"}} {
		if args[0] == "add" {
			os.WriteFile(filepath.Join(h.cwd, "in.txt"), []byte("x"), 0o600)
		}
		c := exec.Command("git", args...)
		c.Dir = h.cwd
		c.Env = append(os.Environ(), "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	ctx := context.Background()
	th, err := h.e.CreateThread(ctx, alice, hub.CreateThreadRequest{Agent: "fake", Cwd: h.cwd, Worktree: &hub.WorktreeRequest{On: true}})
	if err != nil {
		t.Fatal(err)
	}
	if th.Worktree == nil || th.Worktree.Path == "" || th.Worktree.Path == h.cwd {
		t.Fatalf("worktree %+v", th.Worktree)
	}
	sub := h.watch(th)
	read := func(p string) string {
		return askInput(map[string]any{"toolCallId": "r", "kind": "read", "title": "Read", "locations": []map[string]string{{"path": p}}})
	}
	turn := h.run(th, sub, read(filepath.Join(th.Worktree.Path, "in.txt")))
	if !strings.Contains(turn.Output, `"optionId":"allow-once"`) {
		t.Fatalf("read inside the worktree: %q", turn.Output)
	}
	if _, err := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: read(filepath.Join(h.cwd, "in.txt"))}); err != nil {
		t.Fatal(err)
	}
	p := payload[hub.Permission](t, until(t, sub, hub.EventPermissionRequired), "permission")
	if _, err := h.e.DecidePermission(ctx, alice, p.ID, hub.Decision{Outcome: "declined"}); err != nil {
		t.Fatal(err)
	}
	until(t, sub, hub.EventTurnCompleted)
}
