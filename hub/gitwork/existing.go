package gitwork

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A thread on an existing branch or worktree (issue 31): continue
// someone's work, or a second agent on the first one's branch.

// BranchInUseError is a branch checked out in another worktree (or the
// main checkout) at Path: git checks a branch out in one place only.
type BranchInUseError struct{ Branch, Path string }

func (e *BranchInUseError) Error() string {
	return "the branch " + e.Branch + " is checked out in " + e.Path + ": start the thread in that worktree ({\"path\": …}) instead"
}

// ErrNoBranch is a branch name that names no branch of the repository.
var ErrNoBranch = errors.New("no such branch")

// AddWorktreeOn makes a worktree of r's repository on the existing branch
// in location/<branch> (location "": <top>-worktrees), as AddWorktree
// does for a new one. Its base is r's branch (what Merge merges into) and
// its BaseCommit where the branch forks from it (the thread's Changes
// start there). A branch checked out elsewhere is a *BranchInUseError.
func AddWorktreeOn(ctx context.Context, r Repo, branch, location string) (Worktree, error) {
	ref := "refs/heads/" + branch
	tip, err := git(ctx, r.Top, "rev-parse", "--verify", "-q", ref+"^{commit}")
	if err != nil || strings.HasPrefix(branch, "-") {
		return Worktree{}, fmt.Errorf("%w: %s", ErrNoBranch, branch)
	}
	if dir, ok, err := checkedOut(ctx, r.Top, ref); err != nil {
		return Worktree{}, err
	} else if ok {
		return Worktree{}, &BranchInUseError{Branch: branch, Path: dir}
	}
	top, err := worktreeDir(r, branch, location)
	if err != nil {
		return Worktree{}, err
	}
	if _, err := git(ctx, r.Top, "worktree", "add", "--no-checkout", top, branch); err != nil {
		return Worktree{}, err
	}
	base := tip
	if r.Branch != "" {
		if mb, err := git(ctx, r.Top, "merge-base", "refs/heads/"+r.Branch, tip); err == nil {
			base = mb
		}
	}
	w := Worktree{Path: top, Top: top, Branch: branch, Base: r.Branch, BaseCommit: base, Repo: r.Top}
	if r.Branch == branch {
		w.Base = ""
	}
	// The files written are the branch's tip's; Changes diff from the fork point.
	if err := checkout(ctx, Worktree{Path: top, Top: top, Branch: branch, BaseCommit: tip, Repo: r.Top}); err != nil {
		return Worktree{}, err
	}
	if r.Prefix != "" {
		w.Path = filepath.Join(top, filepath.FromSlash(r.Prefix))
		if err := os.MkdirAll(w.Path, 0o755); err != nil {
			return Worktree{}, err
		}
	}
	return w, nil
}

// AdoptWorktree describes the existing linked worktree at path (its top
// folder) of r's repository for a thread that shares it: its branch, its
// base r's branch and BaseCommit their merge base. A path that is not a
// linked worktree of the repository on a branch is an error saying so.
func AdoptWorktree(ctx context.Context, r Repo, path string) (Worktree, error) {
	out, err := run(ctx, cmd{dir: r.Top, args: []string{"worktree", "list", "--porcelain", "-z"}})
	if err != nil {
		return Worktree{}, err
	}
	var cur, branch string
	for i, rec := range worktreeRecords(splitZ(out)) {
		if samePath(rec["worktree"], path) {
			if i == 0 {
				return Worktree{}, fmt.Errorf("%s is the repository's main checkout: start the thread there without a worktree", path)
			}
			cur, branch = rec["worktree"], strings.TrimPrefix(rec["branch"], "refs/heads/")
			break
		}
	}
	if cur == "" {
		return Worktree{}, fmt.Errorf("%s is not a worktree of the repository %s (git worktree list)", path, r.Top)
	}
	if branch == "" {
		return Worktree{}, fmt.Errorf("the worktree %s has a detached HEAD: a thread needs it on a branch", path)
	}
	top, _ := filepath.EvalSymlinks(cur)
	w := Worktree{Path: top, Top: top, Branch: branch, Base: r.Branch, Repo: r.Top}
	if r.Branch == branch {
		w.Base = ""
	}
	w.BaseCommit, err = git(ctx, r.Top, "rev-parse", "refs/heads/"+branch)
	if err != nil {
		return Worktree{}, err
	}
	if r.Branch != "" {
		if mb, err := git(ctx, r.Top, "merge-base", "refs/heads/"+r.Branch, w.BaseCommit); err == nil {
			w.BaseCommit = mb
		}
	}
	if _, _, err := CheckWorktree(ctx, w); err != nil {
		return Worktree{}, err
	}
	return w, nil
}

// worktreeRecords reads git worktree list --porcelain -z's fields (split
// at NUL): one map of attribute to value per worktree, the main one first.
func worktreeRecords(fields []string) []map[string]string {
	var recs []map[string]string
	var cur map[string]string
	for _, f := range fields {
		if f == "" {
			cur = nil
			continue
		}
		if cur == nil {
			cur = map[string]string{}
			recs = append(recs, cur)
		}
		k, v, _ := strings.Cut(f, " ")
		cur[k] = v
	}
	return recs
}
