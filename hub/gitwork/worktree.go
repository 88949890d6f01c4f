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
// changes stay there. Git makes the worktree without checking it out; the
// files are then written in a space (no hook, no filter: a repository's
// Git LFS files stay pointers in the worktree), and its index is the
// space's.
func AddWorktree(ctx context.Context, r Repo, branch, location string) (Worktree, error) {
	if r.Head == "" {
		return Worktree{}, errors.New("the repository has no commit yet")
	}
	top, err := worktreeDir(r, branch, location)
	if err != nil {
		return Worktree{}, err
	}
	if _, err := git(ctx, r.Top, "worktree", "add", "--no-checkout", "-b", branch, top, r.Head); err != nil {
		return Worktree{}, err
	}
	w := Worktree{Path: top, Top: top, Branch: branch, Base: r.Branch, BaseCommit: r.Head, Repo: r.Top}
	if err := checkout(ctx, w); err != nil {
		return Worktree{}, err
	}
	path := top
	if r.Prefix != "" {
		path = filepath.Join(top, filepath.FromSlash(r.Prefix))
		if err := os.MkdirAll(path, 0o755); err != nil {
			return Worktree{}, err
		}
	}
	w.Path = path
	return w, nil
}

// worktreeDir is where branch's worktree goes: under location (default
// "<top>-worktrees", beside the repository) at the branch's path, its
// parent made; an error when something is there already.
func worktreeDir(r Repo, branch, location string) (string, error) {
	if location == "" {
		location = r.Top + "-worktrees"
	}
	top := filepath.Join(location, filepath.FromSlash(branch))
	if _, err := os.Lstat(top); err == nil {
		return "", fmt.Errorf("%s already exists", top)
	}
	return top, os.MkdirAll(filepath.Dir(top), 0o755)
}

// checkout writes the files of w's base commit into w's new worktree and
// makes its index, in a space.
func checkout(ctx context.Context, w Worktree) error {
	wr, err := openChecked(ctx, w, w.Top)
	if err != nil {
		return err
	}
	sp, err := wr.space(ctx, false)
	if err != nil {
		return err
	}
	defer sp.close()
	if _, err := run(ctx, cmd{dir: w.Top, sp: sp, args: []string{"read-tree", w.BaseCommit}}); err != nil {
		return err
	}
	if _, err := run(ctx, cmd{dir: w.Top, sp: sp, args: []string{"checkout-index", "-a", "-f", "-u"}}); err != nil {
		return err
	}
	tmp := filepath.Join(wr.gitDir, "index.switchboard")
	if err := copyRegular(sp.index(), tmp, -1); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(wr.gitDir, "index"))
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
// A worktree already gone is no error; one that is not the worktree the
// hub made is a *GitDirError and nothing is removed.
func Discard(ctx context.Context, w Worktree) error {
	if _, err := os.Stat(w.Top); err == nil {
		if _, _, err := CheckWorktree(ctx, w); err != nil {
			return err
		}
		if _, err := git(ctx, w.Repo, "worktree", "remove", "--force", "--force", w.Top); err != nil {
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
// branch): the commits stay on it. One that is not the worktree the hub
// made is a *GitDirError and nothing is removed.
func Forget(ctx context.Context, w Worktree) error {
	if _, err := os.Stat(w.Top); err != nil {
		return nil
	}
	if _, _, err := CheckWorktree(ctx, w); err != nil {
		return err
	}
	_, err := git(ctx, w.Repo, "worktree", "remove", "--force", "--force", w.Top)
	return err
}
