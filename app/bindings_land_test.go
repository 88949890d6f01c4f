//go:build unix

package app

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// TestBindingsOpenPullRequest (issue 31): the window's Open pull request
// hands the opener the forge's compare page the hub stored when it pushed
// the thread's branch (a GitHub remote whose pushes go to a local bare
// repository), and refuses before such a push.
func TestBindingsOpenPullRequest(t *testing.T) {
	_, _, h, dir := bindingsHub(t)
	op := &opener{recorder: newRecorder()}
	b := NewBindings(context.Background(), h.engine.Services(), op, nil)
	t.Cleanup(b.stop)
	repo, bare := filepath.Join(dir, "repo"), filepath.Join(dir, "remote.git")
	for _, args := range [][]string{
		{"init", "-q", "--bare", bare},
		{"init", "-q", "-b", "main", repo},
		{"-C", repo, "commit", "-q", "--allow-empty", "-m", "init"},
		{"-C", repo, "remote", "add", "origin", "git@github.com:acme/app.git"},
		{"-C", repo, "remote", "set-url", "--push", "origin", bare},
	} {
		c := exec.Command("git", args...)
		c.Env = append(os.Environ(), "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	th, err := b.CreateThread(hub.CreateThreadRequest{Agent: "fake", Cwd: repo, Title: "PR", Worktree: &hub.WorktreeRequest{On: true}})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.OpenPullRequest(th.ID); hub.ErrorCode(err) != hub.CodeInvalidArgument {
		t.Errorf("before a push: %v, want INVALID_ARGUMENT", err)
	}
	p, err := b.PushThread(th.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := "https://github.com/acme/app/compare/main..." + th.Worktree.Branch + "?expand=1"
	if p.PullRequestURL != want {
		t.Fatalf("push: %+v, want %s", p, want)
	}
	if err := b.OpenPullRequest(th.ID); err != nil {
		t.Fatal(err)
	}
	op.mu.Lock()
	defer op.mu.Unlock()
	if len(op.urls) != 1 || op.urls[0] != want {
		t.Errorf("opened %q, want %q", op.urls, want)
	}
}
