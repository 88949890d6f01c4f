package gitwork

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Landing a worktree's work (issue 31): Commit, Push and the forge's
// compare page. Both run the user's git as they configured it (their
// identity, hooks, signing, credentials) because the user asked for them
// and was told so; every other git here runs as the hub's own.

// ErrNothingToCommit is a worktree with no uncommitted change.
var ErrNothingToCommit = errors.New("nothing to commit: the worktree has no uncommitted change")

// HookError is a commit refused by the user's git hooks (or stopped by
// anything else git ran before writing the commit): nothing changed; Output
// is what git and the hook printed.
type HookError struct{ Output string }

func (e *HookError) Error() string { return "a git hook refused the commit: " + e.Output }

// SignError is a commit that git could not sign (commit.gpgSign with no
// usable key): nothing changed.
type SignError struct{ Output string }

func (e *SignError) Error() string {
	return "git could not sign the commit (commit.gpgSign is on): " + e.Output
}

// HooksChangedError is a commit whose hooks folder (core.hooksPath) lies
// inside the worktree where the thread changed Files: the agent may have
// written the hooks the commit would run, so they run only once the user
// confirmed (CommitOptions.Confirm).
type HooksChangedError struct{ Files []string }

func (e *HooksChangedError) Error() string {
	return "the commit would run git hooks the thread changed (core.hooksPath is inside the worktree): " + strings.Join(e.Files, ", ")
}

// PushError is a push the remote (or git) refused; Output says why.
type PushError struct {
	Rejected bool // the remote rejected the update (not a fast-forward, a protected branch…)
	Output   string
}

func (e *PushError) Error() string { return "the push failed: " + e.Output }

// ErrNoRemote is a repository without a remote to push to.
var ErrNoRemote = errors.New("the repository has no remote to push to: add one (git remote add origin <url>)")

// CommitResult is what Commit made: the new commit and the files in it.
type CommitResult struct {
	Commit string   `json:"commit"`
	Files  []string `json:"files"`
}

// Commit commits the worktree's uncommitted changes — tracked changes and
// untracked files that are not ignored — onto its branch with message,
// through the user's git as they configured it: their identity, hooks and
// signing. It stages on a copy of the worktree's index, which replaces the
// index only once the commit is made, so a refused commit (*HookError,
// *SignError, or git's own failure) changes nothing. Without changes it is
// ErrNothingToCommit. When core.hooksPath lies inside the worktree and the
// thread changed a file there (since BaseCommit), it is *HooksChangedError
// unless confirm. A worktree that is not the one the hub made is a
// *GitDirError and nothing runs.
func Commit(ctx context.Context, w Worktree, message string, confirm bool) (CommitResult, error) {
	r, err := openChecked(ctx, w, w.Top)
	if err != nil {
		return CommitResult{}, err
	}
	files, err := status(ctx, r, "--untracked-files=all")
	if err != nil {
		return CommitResult{}, err
	}
	if len(files) == 0 {
		return CommitResult{}, ErrNothingToCommit
	}
	if !confirm {
		if changed, err := changedHooks(ctx, w, files); err != nil {
			return CommitResult{}, err
		} else if len(changed) > 0 {
			return CommitResult{}, &HooksChangedError{Files: changed}
		}
	}
	index := filepath.Join(r.gitDir, "index")
	tmp := filepath.Join(r.gitDir, "index.switchboard-commit")
	defer os.Remove(tmp)
	if err := copyRegular(index, tmp, -1); err != nil && !errors.Is(err, os.ErrNotExist) {
		return CommitResult{}, err
	}
	env := []string{"GIT_INDEX_FILE=" + tmp}
	if _, err := run(ctx, cmd{dir: w.Top, user: true, env: env, args: []string{"add", "-A", "--", "."}}); err != nil {
		return CommitResult{}, err
	}
	out, err := run(ctx, cmd{dir: w.Top, user: true, env: env, stdin: []byte(message), args: []string{"commit", "-q", "-F", "-"}})
	if err != nil {
		var ge *Error
		if !errors.As(err, &ge) {
			return CommitResult{}, err
		}
		text := strings.TrimSpace(string(out) + "\n" + ge.Stderr)
		switch {
		case strings.Contains(text, "failed to sign") || strings.Contains(text, "gpg failed"):
			return CommitResult{}, &SignError{Output: text}
		case strings.Contains(text, "Please tell me who you are") || strings.Contains(text, "empty ident"):
			return CommitResult{}, err
		}
		return CommitResult{}, &HookError{Output: text}
	}
	if err := os.Rename(tmp, index); err != nil {
		return CommitResult{}, err
	}
	head, err := git(ctx, w.Top, "rev-parse", "HEAD")
	return CommitResult{Commit: head, Files: files}, err
}

// changedHooks lists the files under the worktree's hooks folder
// (core.hooksPath, when it lies inside the worktree) that the thread
// changed: uncommitted ones (of dirty) or committed on its branch since
// BaseCommit.
func changedHooks(ctx context.Context, w Worktree, dirty []string) ([]string, error) {
	// Read as the user's git reads it (the hub's own git overrides it).
	b, err := run(ctx, cmd{dir: w.Top, user: true, args: []string{"config", "--get", "core.hooksPath"}})
	hp := strings.TrimSpace(string(b))
	if err != nil || hp == "" {
		return nil, nil // unset: the hooks are in the repository's git dir, outside the worktree
	}
	if strings.HasPrefix(hp, "~/") {
		home, _ := os.UserHomeDir()
		hp = filepath.Join(home, hp[2:])
	}
	hp = relTo(w.Top, hp)
	top, _ := filepath.EvalSymlinks(w.Top)
	if real, err := filepath.EvalSymlinks(hp); err == nil {
		hp = real
	}
	rel, err := filepath.Rel(top, hp)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, nil
	}
	prefix := filepath.ToSlash(rel) + "/"
	if rel == "." {
		prefix = ""
	}
	committed, err := git(ctx, w.Repo, "diff", "--name-only", "--no-renames", w.BaseCommit, "refs/heads/"+w.Branch)
	if err != nil {
		return nil, err
	}
	var out []string
	seen := map[string]bool{}
	for _, f := range append(strings.Split(committed, "\n"), dirty...) {
		if f != "" && strings.HasPrefix(f, prefix) && !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out, nil
}

// PushResult is what Push did: the remote pushed to and, when the remote
// is on a forge the hub knows, its compare page for the branch.
type PushResult struct {
	Remote         string `json:"remote"`
	PullRequestURL string `json:"pullRequestUrl,omitempty"`
}

// Push pushes the worktree's branch to its remote (the branch's upstream
// remote, else "origin", else the only remote) through the user's git,
// without --force and without a prompt (GIT_TERMINAL_PROMPT=0): a remote
// that refuses is a *PushError, none is ErrNoRemote. The branch's upstream
// is set to what was pushed.
func Push(ctx context.Context, w Worktree) (PushResult, error) {
	remote, err := pushRemote(ctx, w)
	if err != nil {
		return PushResult{}, err
	}
	ref := "refs/heads/" + w.Branch
	out, err := run(ctx, cmd{dir: w.Repo, user: true, args: []string{"push", "--porcelain", "--set-upstream", remote, ref + ":" + ref}})
	if err != nil {
		var ge *Error
		if !errors.As(err, &ge) {
			return PushResult{}, err
		}
		text := strings.TrimSpace(ge.Stderr + "\n" + string(out))
		return PushResult{}, &PushError{Rejected: strings.Contains(text, "[rejected]") || strings.Contains(text, "[remote rejected]") || strings.Contains(text, "\t!"), Output: text}
	}
	res := PushResult{Remote: remote}
	if u, err := git(ctx, w.Repo, "remote", "get-url", remote); err == nil {
		res.PullRequestURL = CompareURL(u, w.Base, w.Branch)
	}
	return res, nil
}

// pushRemote is the remote Push pushes to.
func pushRemote(ctx context.Context, w Worktree) (string, error) {
	if r, err := git(ctx, w.Repo, "config", "--get", "branch."+w.Branch+".remote"); err == nil && r != "" && r != "." {
		return r, nil
	}
	out, err := git(ctx, w.Repo, "remote")
	if err != nil {
		return "", err
	}
	remotes := strings.Fields(out)
	for _, r := range remotes {
		if r == "origin" {
			return r, nil
		}
	}
	if len(remotes) == 1 {
		return remotes[0], nil
	}
	return "", ErrNoRemote
}

// Standing is how a worktree stands: its branch's commits ahead of and
// behind its base, its uncommitted files, and whether the branch is
// merged (it has commits since BaseCommit, all of them in its base).
type Standing struct {
	Ahead, Behind, Dirty int
	Merged               bool
}

// StandingOf reads w's Standing: git rev-list and rev-parse in the
// repository, and git status in a space of the worktree (none when the
// worktree's folder is gone). A worktree that is not the one the hub made
// is a *GitDirError.
func StandingOf(ctx context.Context, w Worktree) (Standing, error) {
	var s Standing
	var err error
	if s.Ahead, s.Behind, err = Status(ctx, w); err != nil {
		return s, err
	}
	dirty, err := Uncommitted(ctx, w)
	if err != nil {
		return s, err
	}
	s.Dirty = len(dirty)
	if s.Ahead == 0 && w.Base != "" {
		tip, err := git(ctx, w.Repo, "rev-parse", "--verify", "-q", "refs/heads/"+w.Branch+"^{commit}")
		s.Merged = err == nil && tip != w.BaseCommit
	}
	return s, nil
}

// UnmergedCommit is a commit of a worktree's branch not in its base.
type UnmergedCommit struct {
	Commit  string `json:"commit"`
	Subject string `json:"subject"`
}

// UnmergedCommits lists the commits of w's branch not in its base, newest
// first, at most limit.
func UnmergedCommits(ctx context.Context, w Worktree, limit int) ([]UnmergedCommit, error) {
	out, err := git(ctx, w.Repo, "log", "--format=%H%x00%s", "-n", strconv.Itoa(limit), w.baseRef()+"..refs/heads/"+w.Branch, "--")
	if err != nil || out == "" {
		return nil, err
	}
	var cs []UnmergedCommit
	for _, l := range strings.Split(out, "\n") {
		h, s, _ := strings.Cut(l, "\x00")
		cs = append(cs, UnmergedCommit{Commit: h, Subject: s})
	}
	return cs, nil
}
