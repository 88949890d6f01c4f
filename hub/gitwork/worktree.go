package gitwork

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Worktree is a worktree the hub made for a thread.
type Worktree struct {
	Path   string // where the thread's agent runs (the folder the user picked, in the new worktree)
	Top    string // the new worktree's top folder
	Branch string // its branch, switchboard/<slug>-<id>
	// Base is the branch it was made from; "" when HEAD was detached.
	Base string
	// BaseCommit is the commit it was made from.
	BaseCommit string
	// Repo is the top folder of the checkout it was made from (git
	// commands about the branch run there once the worktree is gone).
	Repo string
}

var slugBad = regexp.MustCompile(`[^a-z0-9]+`)

// BranchName is switchboard/<short title>-<id>: the title lowercased, runs
// of anything but a-z and 0-9 made one "-", at most 30 characters.
func BranchName(title, id string) string {
	s := strings.Trim(slugBad.ReplaceAllString(strings.ToLower(title), "-"), "-")
	if len(s) > 30 {
		s = strings.Trim(s[:30], "-")
	}
	if s == "" {
		s = "thread"
	}
	return "switchboard/" + s + "-" + id
}

// AddWorktree makes a worktree of r's repository on a new branch from r's
// HEAD (a detached HEAD: from that commit) in location/<branch> (location
// "": <top>-worktrees). The main checkout is untouched: its uncommitted
// changes stay there.
func AddWorktree(ctx context.Context, r Repo, branch, location string) (Worktree, error) {
	if r.Head == "" {
		return Worktree{}, errors.New("the repository has no commit yet")
	}
	if location == "" {
		location = r.Top + "-worktrees"
	}
	top := filepath.Join(location, filepath.FromSlash(branch))
	if _, err := os.Lstat(top); err == nil {
		return Worktree{}, fmt.Errorf("%s already exists", top)
	}
	if err := os.MkdirAll(filepath.Dir(top), 0o755); err != nil {
		return Worktree{}, err
	}
	if _, err := git(ctx, r.Top, "worktree", "add", "-b", branch, top, r.Head); err != nil {
		return Worktree{}, err
	}
	path := top
	if r.Prefix != "" {
		path = filepath.Join(top, filepath.FromSlash(r.Prefix))
		if err := os.MkdirAll(path, 0o755); err != nil {
			return Worktree{}, err
		}
	}
	return Worktree{Path: path, Top: top, Branch: branch, Base: r.Branch, BaseCommit: r.Head, Repo: r.Top}, nil
}

// baseRef is what a worktree's branch is compared with: its base branch,
// or the base commit when it was made from a detached HEAD.
func (w Worktree) baseRef() string {
	if w.Base != "" {
		return "refs/heads/" + w.Base
	}
	return w.BaseCommit
}

// Status is how a worktree's branch stands against its base.
func Status(ctx context.Context, w Worktree) (ahead, behind int, err error) {
	return AheadBehind(ctx, w.Repo, w.baseRef(), "refs/heads/"+w.Branch)
}

// Unmerged counts the commits of the worktree's branch not in its base.
func Unmerged(ctx context.Context, w Worktree) (int, error) {
	a, _, err := Status(ctx, w)
	return a, err
}

// Discard removes the worktree (whatever it holds) and deletes its branch.
// A worktree already gone is no error.
func Discard(ctx context.Context, w Worktree) error {
	if _, err := os.Stat(w.Top); err == nil {
		if _, err := git(ctx, w.Top, "worktree", "remove", "--force", "--force", w.Top); err != nil {
			return err
		}
	}
	_, _ = git(ctx, w.Repo, "worktree", "prune")
	if _, err := git(ctx, w.Repo, "show-ref", "--verify", "-q", "refs/heads/"+w.Branch); err == nil {
		if _, err := git(ctx, w.Repo, "branch", "-D", w.Branch); err != nil {
			return err
		}
	}
	return nil
}

// Forget removes the worktree's folder but keeps its branch (Keep the
// branch): the commits stay on it.
func Forget(ctx context.Context, w Worktree) error {
	if _, err := os.Stat(w.Top); err != nil {
		return nil
	}
	_, err := git(ctx, w.Top, "worktree", "remove", "--force", "--force", w.Top)
	return err
}
