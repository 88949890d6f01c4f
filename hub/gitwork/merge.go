package gitwork

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
)

// ConflictError is a merge that cannot be made: the files in conflict
// (Dirty false), or the files with uncommitted changes in the checkout of
// the base branch that a merge there would touch (Dirty true).
type ConflictError struct {
	Files []string
	Dirty bool
}

func (e *ConflictError) Error() string {
	if e.Dirty {
		return "the base branch's checkout has uncommitted changes: " + strings.Join(e.Files, ", ")
	}
	return "the merge conflicts in " + strings.Join(e.Files, ", ")
}

// ErrOldGit is a git older than 2.38 (no merge-tree --write-tree).
var ErrOldGit = errors.New("merging needs git 2.38 or later (git merge-tree --write-tree)")

// ErrNoBase is a worktree made from a detached HEAD: there is no branch
// to merge into.
var ErrNoBase = errors.New("the thread started from a detached HEAD: there is no base branch to merge into; keep the branch and merge it yourself")

// MergeResult says what Merge did.
type MergeResult struct {
	// How: "up-to-date" (nothing to merge), "fast-forward", "merge" (git
	// merge in the base branch's checkout) or "commit-tree" (the base
	// branch, not checked out, moved to a merge commit).
	How    string `json:"how"`
	Commit string `json:"commit"` // the base branch's new tip
}

// Merge merges the worktree's branch into its base branch. It first asks
// git merge-tree --write-tree whether the merge is clean: a conflict is a
// *ConflictError and changes nothing. Then, when the base branch is
// checked out in a worktree, git merge runs there (fast-forward when
// possible) if that checkout has no uncommitted change (else a
// *ConflictError with Dirty); when it is not checked out, the branch
// moves to the worktree's branch (fast-forward) or to a merge commit made
// with git commit-tree.
//
// The test runs in a bare space (no merge driver, attribute or hook of
// the repository's); what follows is the user's merge, run as their git
// would: git merge in the base branch's checkout runs their hooks, merge
// drivers and filters, and the merge commit is signed as their config
// says (docs/SECURITY.md "What git the hub runs"). A worktree that is not
// the one the hub made is a *GitDirError and nothing runs.
func Merge(ctx context.Context, w Worktree) (MergeResult, error) {
	if w.Base == "" {
		return MergeResult{}, ErrNoBase
	}
	if _, err := os.Stat(w.Top); err == nil {
		if _, _, err := CheckWorktree(ctx, w); err != nil {
			return MergeResult{}, err
		}
	}
	if ma, mi, err := Version(ctx); err != nil {
		return MergeResult{}, err
	} else if ma < 2 || (ma == 2 && mi < 38) {
		return MergeResult{}, ErrOldGit
	}
	base, branch := "refs/heads/"+w.Base, "refs/heads/"+w.Branch
	baseTip, err := git(ctx, w.Repo, "rev-parse", "--verify", base+"^{commit}")
	if err != nil {
		return MergeResult{}, fmt.Errorf("base branch %s: %w", w.Base, err)
	}
	tip, err := git(ctx, w.Repo, "rev-parse", "--verify", branch+"^{commit}")
	if err != nil {
		return MergeResult{}, fmt.Errorf("branch %s: %w", w.Branch, err)
	}
	if _, err := git(ctx, w.Repo, "merge-base", "--is-ancestor", tip, baseTip); err == nil {
		return MergeResult{How: "up-to-date", Commit: baseTip}, nil
	}
	sp, err := bareSpace(ctx, w.Repo)
	if err != nil {
		return MergeResult{}, err
	}
	defer sp.close()
	out, err := run(ctx, cmd{dir: w.Repo, sp: sp, args: []string{"merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", baseTip, tip}})
	if code := exitCode(err); code == 1 {
		parts := splitZ(out)
		var files []string
		if len(parts) > 1 {
			for _, f := range parts[1:] {
				if f != "" {
					files = append(files, f)
				}
			}
		}
		return MergeResult{}, &ConflictError{Files: files}
	} else if err != nil {
		return MergeResult{}, err
	}
	tree := strings.TrimSpace(strings.SplitN(string(out), "\x00", 2)[0])
	ff := false
	if _, err := git(ctx, w.Repo, "merge-base", "--is-ancestor", baseTip, tip); err == nil {
		ff = true
	}
	if dir, ok, err := checkedOut(ctx, w.Repo, base); err != nil {
		return MergeResult{}, err
	} else if ok {
		dirty, err := dirtyFiles(ctx, dir)
		if err != nil {
			return MergeResult{}, err
		}
		if len(dirty) > 0 {
			return MergeResult{}, &ConflictError{Files: dirty, Dirty: true}
		}
		if _, err := run(ctx, cmd{dir: dir, user: true, args: []string{"merge", "--no-edit", "-m", "Merge branch '" + w.Branch + "'", tip}}); err != nil {
			return MergeResult{}, err
		}
		now, err := git(ctx, dir, "rev-parse", "HEAD")
		how := "merge"
		if ff {
			how = "fast-forward"
		}
		return MergeResult{How: how, Commit: now}, err
	}
	next, how := tip, "fast-forward"
	if !ff {
		msg := "Merge branch '" + w.Branch + "' into " + w.Base + "\n"
		out, err := run(ctx, cmd{dir: w.Repo, user: true, args: []string{"commit-tree", tree, "-p", baseTip, "-p", tip, "-m", msg}})
		if err != nil {
			return MergeResult{}, err
		}
		next = strings.TrimSpace(string(out))
		how = "commit-tree"
	}
	if _, err := run(ctx, cmd{dir: w.Repo, user: true, args: []string{"update-ref", "-m", "switchboard: merge " + w.Branch, base, next, baseTip}}); err != nil {
		return MergeResult{}, err
	}
	return MergeResult{How: how, Commit: next}, nil
}

// checkedOut finds the worktree that has ref checked out.
func checkedOut(ctx context.Context, repo, ref string) (string, bool, error) {
	out, err := run(ctx, cmd{dir: repo, args: []string{"worktree", "list", "--porcelain", "-z"}})
	if err != nil {
		return "", false, err
	}
	var path string
	for _, l := range splitZ(out) {
		switch {
		case strings.HasPrefix(l, "worktree "):
			path = strings.TrimPrefix(l, "worktree ")
		case l == "branch "+ref:
			return path, true, nil
		}
	}
	return "", false, nil
}

// Uncommitted lists the files of the worktree with uncommitted changes,
// untracked files that are not ignored included (what Discard would lose
// besides its branch's commits; a submodule's own uncommitted changes are
// not looked into). A worktree already gone has none; one that is not the
// worktree the hub made is a *GitDirError.
func Uncommitted(ctx context.Context, w Worktree) ([]string, error) {
	if _, err := os.Stat(w.Top); err != nil {
		return nil, nil
	}
	r, err := openChecked(ctx, w, w.Top)
	if err != nil {
		return nil, err
	}
	return status(ctx, r, "--untracked-files=all")
}

// dirtyFiles lists the tracked files with uncommitted changes in the
// checkout dir (staged or not).
func dirtyFiles(ctx context.Context, dir string) ([]string, error) {
	r, err := Open(ctx, dir)
	if err != nil {
		return nil, err
	}
	return status(ctx, r, "--untracked-files=no")
}

// status runs git status in a space of r (on a copy of its index: no
// filter or monitor of the repository's runs, submodules are not entered)
// and returns the files it lists.
func status(ctx context.Context, r Repo, untracked string) ([]string, error) {
	sp, err := r.space(ctx, true)
	if err != nil {
		return nil, err
	}
	defer sp.close()
	out, err := run(ctx, cmd{dir: r.Top, sp: sp, args: []string{"status", "--porcelain=v1", "-z", untracked, "--ignore-submodules=dirty"}})
	if err != nil {
		return nil, err
	}
	return porcelainFiles(out), nil
}

// porcelainFiles reads the paths of git status --porcelain=v1 -z.
func porcelainFiles(out []byte) []string {
	var files []string
	parts := splitZ(out)
	for i := 0; i < len(parts); i++ {
		l := parts[i]
		if len(l) < 4 {
			continue
		}
		files = append(files, l[3:])
		if l[0] == 'R' || l[0] == 'C' {
			i++ // the rename's source follows
		}
	}
	return files
}
