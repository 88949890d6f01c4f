package gitwork

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// planted returns a script that creates the file <marker>-<its first
// argument> and copies its input to its output (a filter that changes
// nothing), and the marker's prefix.
func planted(t *testing.T) (script, marker string) {
	t.Helper()
	d := t.TempDir()
	script, marker = filepath.Join(d, "evil.sh"), filepath.Join(d, "ran")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ntouch \""+marker+"-$1\"\ncat\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return script, marker
}

// ran fails the test for each of the marker's suffixes that exists.
func ran(t *testing.T, marker string, what ...string) {
	t.Helper()
	for _, w := range what {
		if _, err := os.Stat(marker + "-" + w); err == nil {
			t.Errorf("the planted %s ran", w)
			os.Remove(marker + "-" + w)
		}
	}
}

// hook plants an executable hook of the repository dir.
func hook(t *testing.T, dir, name, script string) {
	t.Helper()
	write(t, dir, ".git/hooks/"+name, "#!/bin/sh\nexec "+script+" "+name+" </dev/null\n")
	if err := os.Chmod(filepath.Join(dir, ".git/hooks", name), 0o755); err != nil {
		t.Fatal(err)
	}
}

// An agent's .git/config filter driver and .gitattributes: no checkpoint,
// snapshot, restore or new worktree runs it.
func TestPlantedFilterNotRun(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.txt": "one\n", "p.bin": "p\n", ".gitattributes": "*.txt filter=evil\n*.bin filter=evil2\n"})
	script, marker := planted(t)
	sh(t, dir, "config", "filter.evil.clean", script+" clean")
	sh(t, dir, "config", "filter.evil.smudge", script+" smudge")
	sh(t, dir, "config", "filter.evil.required", "true")
	sh(t, dir, "config", "filter.evil2.process", script+" process")
	ctx := context.Background()
	write(t, dir, "a.txt", "two\n")
	write(t, dir, "p.bin", "q\n")
	r := open(t, dir)
	if _, err := Snapshot(ctx, r); err != nil {
		t.Fatal(err)
	}
	cp, err := Checkpoint(ctx, r, CheckpointRef("th", "tu"), "cp")
	if err != nil {
		t.Fatal(err)
	}
	ran(t, marker, "clean", "process")
	write(t, dir, "a.txt", "three\n")
	write(t, dir, "p.bin", "r\n")
	if files, err := Restore(ctx, r, cp); err != nil || len(files) != 2 {
		t.Fatalf("restore: %v %v", files, err)
	}
	write(t, dir, "a.txt", "four\n")
	if _, err := RestorePaths(ctx, r, cp, []string{"a.txt"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := read(t, dir, "a.txt"); got != "two\n" {
		t.Errorf("a.txt = %q after the restore", got)
	}
	ran(t, marker, "smudge", "clean", "process")
	w, err := AddWorktree(ctx, r, "switchboard/f-1", "")
	if err != nil {
		t.Fatal(err)
	}
	ran(t, marker, "smudge", "process")
	if got, _ := read(t, w.Top, "a.txt"); got != "one\n" {
		t.Errorf("the worktree's a.txt = %q", got)
	}
	if dirty, err := Uncommitted(ctx, w); err != nil || len(dirty) != 0 {
		t.Errorf("a new worktree has uncommitted files %v (%v)", dirty, err)
	}
	ran(t, marker, "clean", "process")
}

// Hooks the agent planted (post-index-change, reference-transaction) run
// for none of the git the hub runs by itself.
func TestPlantedHooksNotRun(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.txt": "one\n"})
	script, marker := planted(t)
	for _, h := range []string{"post-index-change", "reference-transaction"} {
		hook(t, dir, h, script)
	}
	sh(t, dir, "update-ref", "refs/heads/probe", "HEAD")
	if _, err := os.Stat(marker + "-reference-transaction"); err != nil {
		t.Fatal("the planted hook does not run for git itself: the test proves nothing")
	}
	os.Remove(marker + "-reference-transaction")
	os.Remove(marker + "-post-index-change")
	ctx := context.Background()
	r := open(t, dir)
	cp, err := Checkpoint(ctx, r, CheckpointRef("th", "tu"), "cp")
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, "a.txt", "two\n")
	write(t, dir, "b.txt", "new\n")
	if _, err := Snapshot(ctx, r); err != nil {
		t.Fatal(err)
	}
	if _, err := Diff(ctx, r, cp, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := Changed(ctx, r, cp, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := Restore(ctx, r, cp); err != nil {
		t.Fatal(err)
	}
	if err := PruneCheckpoints(ctx, dir, "th"); err != nil {
		t.Fatal(err)
	}
	ran(t, marker, "post-index-change", "reference-transaction")
}

// A planted gpg.program with commit.gpgSign does not run for a checkpoint.
func TestPlantedGpgProgramNotRun(t *testing.T) {
	dir := newRepo(t, map[string]string{"a": "1"})
	script, marker := planted(t)
	sh(t, dir, "config", "commit.gpgSign", "true")
	sh(t, dir, "config", "gpg.program", script)
	if _, err := Checkpoint(context.Background(), open(t, dir), CheckpointRef("th", "tu"), "cp"); err != nil {
		t.Fatal(err)
	}
	if m, _ := filepath.Glob(marker + "*"); len(m) > 0 {
		t.Errorf("the planted gpg.program ran: %v", m)
	}
}

// A planted merge driver (.gitattributes merge=evil and merge.evil.driver)
// does not run when Merge tests the merge with merge-tree.
func TestPlantedMergeDriverNotRun(t *testing.T) {
	dir := newRepo(t, map[string]string{"f.txt": "1\n2\n3\n4\n5\n"})
	ctx := context.Background()
	w, err := AddWorktree(ctx, open(t, dir), "switchboard/m-1", "")
	if err != nil {
		t.Fatal(err)
	}
	write(t, w.Top, "f.txt", "1\n2\n3\n4\nfive\n")
	sh(t, w.Top, "commit", "-qam", "branch")
	write(t, dir, "f.txt", "one\n2\n3\n4\n5\n")
	sh(t, dir, "commit", "-qam", "base")
	sh(t, dir, "checkout", "-q", "--detach") // the base branch is not checked out: commit-tree
	script, marker := planted(t)
	write(t, dir, ".gitattributes", "*.txt merge=evil\n")
	sh(t, dir, "config", "merge.evil.driver", script+" driver")
	res, err := Merge(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	if res.How != "commit-tree" {
		t.Errorf("merge %+v", res)
	}
	ran(t, marker, "driver")
}

// core.worktree planted in the repository's config does not move where a
// restore writes, and Open refuses the folder afterwards.
func TestPlantedCoreWorktreeNotFollowed(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.txt": "one\n"})
	elsewhere := filepath.Dir(dir)
	ctx := context.Background()
	r := open(t, dir)
	cp, err := Checkpoint(ctx, r, CheckpointRef("th", "tu"), "cp")
	if err != nil {
		t.Fatal(err)
	}
	sh(t, dir, "config", "core.worktree", elsewhere)
	write(t, dir, "a.txt", "two\n")
	files, err := Restore(ctx, r, cp)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(files, []string{"a.txt"}) {
		t.Errorf("restored %v", files)
	}
	if _, ok := read(t, elsewhere, "a.txt"); ok {
		t.Error("the restore wrote into the planted core.worktree")
	}
	if got, _ := read(t, dir, "a.txt"); got != "one\n" {
		t.Errorf("a.txt = %q", got)
	}
	if _, err := Open(ctx, dir); !errors.Is(err, ErrNotWorkTree) {
		t.Errorf("Open with core.worktree elsewhere: %v, want ErrNotWorkTree", err)
	}
}

// A worktree whose .git file (or whose git dir's commondir) was rewritten
// to a git dir the agent wrote is refused, and no git runs in it.
func TestRepointedWorktreeRefused(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.txt": "one\n"})
	ctx := context.Background()
	w, err := AddWorktree(ctx, open(t, dir), "switchboard/r-1", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenWorktree(ctx, w); err != nil {
		t.Fatalf("the hub's own worktree: %v", err)
	}
	fake := filepath.Join(t.TempDir(), "fake")
	sh(t, "", "init", "-q", fake)
	script, marker := planted(t)
	hook(t, fake, "post-index-change", script)
	sh(t, fake, "config", "core.fsmonitor", script+" fsmonitor")
	dotgit := filepath.Join(w.Top, ".git")
	orig, _ := os.ReadFile(dotgit)
	gitDir := filepath.Join(dir, ".git", "worktrees", filepath.Base(w.Top))
	origCommon, _ := os.ReadFile(filepath.Join(gitDir, "commondir"))
	for _, tamper := range []struct {
		name, file, body string
	}{
		{".git file", dotgit, "gitdir: " + filepath.Join(fake, ".git") + "\n"},
		{"commondir", filepath.Join(gitDir, "commondir"), filepath.Join(fake, ".git") + "\n"},
	} {
		t.Run(tamper.name, func(t *testing.T) {
			if err := os.WriteFile(tamper.file, []byte(tamper.body), 0o644); err != nil {
				t.Fatal(err)
			}
			defer os.WriteFile(dotgit, orig, 0o644)
			defer os.WriteFile(filepath.Join(gitDir, "commondir"), origCommon, 0o644)
			var ge *GitDirError
			if _, err := OpenWorktree(ctx, w); !errors.As(err, &ge) {
				t.Errorf("OpenWorktree: %v, want *GitDirError", err)
			}
			if _, err := Uncommitted(ctx, w); !errors.As(err, &ge) {
				t.Errorf("Uncommitted: %v, want *GitDirError", err)
			}
			if _, err := Merge(ctx, w); !errors.As(err, &ge) {
				t.Errorf("Merge: %v, want *GitDirError", err)
			}
			if err := Discard(ctx, w); !errors.As(err, &ge) {
				t.Errorf("Discard: %v, want *GitDirError", err)
			}
			if _, err := os.Stat(w.Top); err != nil {
				t.Error("the refused worktree was removed")
			}
			ran(t, marker, "post-index-change", "fsmonitor")
		})
	}
}

// Checkpoints, diffs and restores work in a sha256 repository and in a
// linked worktree (the space borrows the right object store and index).
func TestSpaceSha256AndLinkedWorktree(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "r256")
	sh(t, "", "init", "-q", "-b", "main", "--object-format=sha256", dir)
	write(t, dir, "a.txt", "one\n")
	sh(t, dir, "add", "-A")
	sh(t, dir, "commit", "-qm", "init")
	w, err := AddWorktree(ctx, open(t, dir), "switchboard/s-1", "")
	if err != nil {
		t.Fatal(err)
	}
	for name, top := range map[string]string{"main": dir, "worktree": w.Top} {
		t.Run(name, func(t *testing.T) {
			r := open(t, top)
			cp, err := Checkpoint(ctx, r, CheckpointRef("th", name), "cp")
			if err != nil || len(cp) != 64 {
				t.Fatalf("checkpoint %q: %v", cp, err)
			}
			write(t, top, "a.txt", "two\n")
			if files, err := Diff(ctx, r, cp, ""); err != nil || len(files) != 1 {
				t.Fatalf("diff %+v: %v", files, err)
			}
			if _, err := Restore(ctx, r, CheckpointRef("th", name)); err != nil {
				t.Fatal(err)
			}
			if got, _ := read(t, top, "a.txt"); got != "one\n" {
				t.Errorf("a.txt = %q", got)
			}
			if got := sh(t, top, "status", "--porcelain"); got != "" {
				t.Errorf("status after the restore: %q", got)
			}
		})
	}
}

// An edit made in the second the repository's index was written, of the
// same size (git's "racily clean" case), is in the snapshot: the hub's
// copy of the index keeps the index's mtime, so git reads the file
// instead of trusting its stat.
func TestSnapshotSeesRacilyCleanEdit(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.txt": "one\n"})
	// The file and the index from ten seconds ago, the index written in
	// the second of the file's last change; git records that mtime.
	past := time.Now().Add(-10 * time.Second).Truncate(time.Second)
	back := func(p string) {
		t.Helper()
		if err := os.Chtimes(filepath.Join(dir, p), time.Time{}, past); err != nil {
			t.Fatal(err)
		}
	}
	back("a.txt")
	sh(t, dir, "update-index", "--refresh")
	write(t, dir, "a.txt", "two\n") // same size, same mtime
	back("a.txt")
	back(".git/index")
	ctx := context.Background()
	cp, err := Checkpoint(ctx, open(t, dir), CheckpointRef("th", "tu"), "cp")
	if err != nil {
		t.Fatal(err)
	}
	if got := sh(t, dir, "show", cp+":a.txt"); got != "two" {
		t.Errorf("the checkpoint holds a.txt = %q, want the edit", got)
	}
}
