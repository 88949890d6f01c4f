package gitwork

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestOpenNotRepoAndBare(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	if _, err := Open(ctx, t.TempDir()); !errors.Is(err, ErrNotRepo) {
		t.Errorf("plain folder: %v, want ErrNotRepo", err)
	}
	bare := filepath.Join(t.TempDir(), "b.git")
	sh(t, "", "init", "-q", "--bare", bare)
	if _, err := Open(ctx, bare); !errors.Is(err, ErrNotWorkTree) {
		t.Errorf("bare: %v, want ErrNotWorkTree", err)
	}
}

func TestCheckpointRestoreByteForByte(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.txt": "alpha\r\n\x00bin", "gone.txt": "keep me", ".gitignore": "*.log\n"})
	ctx := context.Background()
	write(t, dir, "staged.txt", "staged")
	sh(t, dir, "add", "staged.txt")
	write(t, dir, "untracked.txt", "u1")
	indexBefore := sh(t, dir, "ls-files", "-s")
	stashBefore := sh(t, dir, "stash", "list")
	r := open(t, dir)
	ref := CheckpointRef("th_1", "tu_1")
	if _, err := Checkpoint(ctx, r, ref, "before turn"); err != nil {
		t.Fatal(err)
	}
	if got := sh(t, dir, "ls-files", "-s"); got != indexBefore {
		t.Fatalf("index changed:\n%s\nwas\n%s", got, indexBefore)
	}
	if sh(t, dir, "stash", "list") != stashBefore || sh(t, dir, "rev-parse", "--abbrev-ref", "HEAD") != "main" {
		t.Fatal("stash or branch changed")
	}
	// The turn: modify, delete, create, touch an ignored file.
	write(t, dir, "a.txt", "changed")
	write(t, dir, "untracked.txt", "u2")
	write(t, dir, "new/dir/n.txt", "new")
	write(t, dir, "debug.log", "ignored-after")
	if err := removeFile(dir, "gone.txt"); err != nil {
		t.Fatal(err)
	}
	files, err := Restore(ctx, r, ref)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	if want := []string{"a.txt", "gone.txt", "new/dir/n.txt", "untracked.txt"}; !slices.Equal(files, want) {
		t.Errorf("restored %v, want %v", files, want)
	}
	for name, want := range map[string]string{"a.txt": "alpha\r\n\x00bin", "gone.txt": "keep me", "untracked.txt": "u1", "staged.txt": "staged", "debug.log": "ignored-after"} {
		if got, ok := read(t, dir, name); !ok || got != want {
			t.Errorf("%s = %q (exists %v), want %q", name, got, ok, want)
		}
	}
	if _, ok := read(t, dir, "new/dir/n.txt"); ok {
		t.Error("new file survived the restore")
	}
	if got := sh(t, dir, "ls-files", "-s"); got != indexBefore {
		t.Errorf("index changed by restore")
	}
	if err := PruneCheckpoints(ctx, dir, "th_1"); err != nil {
		t.Fatal(err)
	}
	if RefCommit(ctx, dir, ref) != "" {
		t.Error("checkpoint survived the prune")
	}
}

func TestCheckpointGpgSignNoPrompt(t *testing.T) {
	dir := newRepo(t, map[string]string{"a": "1"})
	sh(t, dir, "config", "commit.gpgSign", "true")
	sh(t, dir, "config", "gpg.program", "/nonexistent/gpg")
	sh(t, dir, "config", "core.hooksPath", filepath.Join(dir, "hooks"))
	write(t, dir, "hooks/reference-transaction", "#!/bin/sh\nexit 1\n")
	if err := os.Chmod(filepath.Join(dir, "hooks/reference-transaction"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := exec.Command("git", "-C", dir, "update-ref", "refs/heads/probe", "HEAD").Run(); err == nil {
		t.Fatal("the failing hook did not run: the test proves nothing")
	}
	if _, err := Checkpoint(context.Background(), open(t, dir), CheckpointRef("th", "tu"), "cp"); err != nil {
		t.Fatalf("checkpoint with gpgSign and a failing hook: %v", err)
	}
}

func TestWorktreeMergeFastForwardAndConflict(t *testing.T) {
	dir := newRepo(t, map[string]string{"shared.txt": "one\ntwo\nthree\n"})
	ctx := context.Background()
	write(t, dir, "dirty-in-main.txt", "uncommitted") // stays in the main checkout
	r := open(t, dir)
	w1, err := AddWorktree(ctx, r, BranchName("First thing!", "a1"), "")
	if err != nil {
		t.Fatal(err)
	}
	if w1.Branch != "switchboard/first-thing-a1" || w1.Path != filepath.Join(dir+"-worktrees", "switchboard", "first-thing-a1") || w1.Base != "main" {
		t.Fatalf("worktree %+v", w1)
	}
	if _, ok := read(t, w1.Path, "dirty-in-main.txt"); ok {
		t.Error("uncommitted file of the main checkout in the worktree")
	}
	w2, err := AddWorktree(ctx, r, BranchName("second", "b2"), "")
	if err != nil {
		t.Fatal(err)
	}
	write(t, w1.Path, "shared.txt", "ONE\ntwo\nthree\n")
	sh(t, w1.Path, "commit", "-qam", "w1")
	write(t, w2.Path, "shared.txt", "uno\ntwo\nthree\n")
	sh(t, w2.Path, "commit", "-qam", "w2")
	if n, _ := Unmerged(ctx, w1); n != 1 {
		t.Errorf("unmerged = %d, want 1", n)
	}
	res, err := Merge(ctx, w1)
	if err != nil || res.How != "fast-forward" {
		t.Fatalf("merge w1: %+v %v", res, err)
	}
	if got, _ := read(t, dir, "shared.txt"); got != "ONE\ntwo\nthree\n" {
		t.Errorf("main checkout after merge: %q", got)
	}
	if got, _ := read(t, dir, "dirty-in-main.txt"); got != "uncommitted" {
		t.Error("uncommitted change lost")
	}
	head := sh(t, dir, "rev-parse", "HEAD")
	_, err = Merge(ctx, w2)
	var ce *ConflictError
	if !errors.As(err, &ce) || ce.Dirty || !slices.Equal(ce.Files, []string{"shared.txt"}) {
		t.Fatalf("merge w2: %v", err)
	}
	if sh(t, dir, "rev-parse", "HEAD") != head || sh(t, dir, "status", "--porcelain", "--untracked-files=no") != "" {
		t.Error("a conflicting merge changed something")
	}
	// Dirty checkout of the base branch: refused naming the files.
	w3, _ := AddWorktree(ctx, r, BranchName("third", "c3"), "")
	write(t, w3.Path, "other.txt", "x")
	sh(t, w3.Path, "add", "other.txt")
	sh(t, w3.Path, "commit", "-qm", "w3")
	write(t, dir, "shared.txt", "local edit\n")
	if _, err := Merge(ctx, w3); !errors.As(err, &ce) || !ce.Dirty || !slices.Equal(ce.Files, []string{"shared.txt"}) {
		t.Fatalf("dirty merge: %v", err)
	}
	// Base not checked out: commit-tree and a ref move.
	sh(t, dir, "checkout", "-q", "-f", "--detach")
	res, err = Merge(ctx, w3)
	if err != nil || res.How != "commit-tree" {
		t.Fatalf("merge w3 not checked out: %+v %v", res, err)
	}
	if got := sh(t, dir, "rev-parse", "main"); got != res.Commit {
		t.Errorf("main at %s, want %s", got, res.Commit)
	}
	if err := Discard(ctx, w2); err != nil {
		t.Fatal(err)
	}
	if _, ok := read(t, w2.Top, "shared.txt"); ok {
		t.Error("discarded worktree still there")
	}
	if out := sh(t, dir, "branch", "--list", w2.Branch); out != "" {
		t.Errorf("discarded branch still there: %q", out)
	}
}

func TestWorktreeFromDetachedHead(t *testing.T) {
	dir := newRepo(t, map[string]string{"a": "1"})
	sh(t, dir, "checkout", "-q", "--detach")
	head := sh(t, dir, "rev-parse", "HEAD")
	w, err := AddWorktree(context.Background(), open(t, dir), "switchboard/x-1", "")
	if err != nil {
		t.Fatal(err)
	}
	if w.Base != "" || w.BaseCommit != head {
		t.Errorf("worktree %+v, want base commit %s", w, head)
	}
	if _, err := Merge(context.Background(), w); !errors.Is(err, ErrNoBase) {
		t.Errorf("merge: %v, want ErrNoBase", err)
	}
}

// The commands the hub runs by itself never run a command the repository's
// config names for the file-system monitor or a diff textconv: an agent
// can write that config.
func TestNoRepoConfiguredCommands(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.txt": "1\n"})
	marker := filepath.Join(t.TempDir(), "ran")
	script := filepath.Join(t.TempDir(), "evil.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ntouch "+marker+"\ncat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	sh(t, dir, "config", "core.fsmonitor", script)
	sh(t, dir, "config", "diff.evil.textconv", script)
	write(t, dir, ".gitattributes", "*.txt diff=evil\n")
	ctx := context.Background()
	r := open(t, dir)
	cp, err := Checkpoint(ctx, r, CheckpointRef("th", "tu"), "cp")
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, "a.txt", "2\n")
	files, err := Diff(ctx, r, cp, "")
	if err != nil || len(files) != 1 || !strings.Contains(files[0].Diff, "+2") {
		t.Fatalf("diff: %+v %v", files, err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a command from the repository's config ran")
	}
}
