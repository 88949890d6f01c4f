package gitwork

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// errWorkTreeElsewhere is a folder whose repository says its work tree is
// not the folder that holds its .git (core.worktree, which the agent can
// write): the hub takes no work tree but that one.
var errWorkTreeElsewhere = fmt.Errorf("%w: the repository's work tree is set elsewhere (core.worktree)", ErrNotWorkTree)

// GitDirError is a worktree thread's folder whose .git is not the git dir
// the hub made for it (its .git file rewritten, or the git dir's links
// back changed): the hub runs no git there.
type GitDirError struct {
	Top    string // the worktree's top folder
	Reason string
}

func (e *GitDirError) Error() string {
	return "the worktree " + e.Top + " is not the one the hub made (" + e.Reason + "): the hub runs no git there"
}

// CheckWorktree checks that w's folder is still the worktree the hub made
// in w.Repo's repository: <Top>/.git is a file naming a git dir in
// <common dir>/worktrees/, whose commondir names that common dir and whose
// gitdir names <Top>/.git back. It returns that git dir and the common
// dir (both with symbolic links resolved), or a *GitDirError. It runs git
// only in w.Repo.
func CheckWorktree(ctx context.Context, w Worktree) (gitDir, commonDir string, err error) {
	out, err := git(ctx, w.Repo, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return "", "", err
	}
	bad := func(format string, args ...any) error {
		return &GitDirError{Top: w.Top, Reason: fmt.Sprintf(format, args...)}
	}
	if commonDir, err = filepath.EvalSymlinks(out); err != nil {
		return "", "", err
	}
	dotgit := filepath.Join(w.Top, ".git")
	if fi, err := os.Lstat(dotgit); err != nil || !fi.Mode().IsRegular() {
		return "", "", bad("%s is not a file", dotgit)
	}
	gd, err := readGitFile(dotgit)
	if err != nil {
		return "", "", bad("%v", err)
	}
	worktrees, _ := filepath.EvalSymlinks(filepath.Join(commonDir, "worktrees"))
	if gitDir, err = filepath.EvalSymlinks(gd); err != nil || worktrees == "" || filepath.Dir(gitDir) != worktrees {
		return "", "", bad("its .git names %s, not a git dir in %s", gd, filepath.Join(commonDir, "worktrees"))
	}
	cd, err := readSmall(filepath.Join(gitDir, "commondir"))
	if err != nil || !samePath(relTo(gitDir, cd), commonDir) {
		return "", "", bad("its git dir's commondir is not %s", commonDir)
	}
	back, err := readSmall(filepath.Join(gitDir, "gitdir"))
	if err != nil || !samePath(relTo(gitDir, back), dotgit) {
		return "", "", bad("its git dir's gitdir does not name %s", dotgit)
	}
	return gitDir, commonDir, nil
}

// OpenWorktree opens w.Path as Open does once CheckWorktree passed, and
// refuses it (*GitDirError) when git found another git dir there than
// the one checked (the .git file changed in between): the Repo's spaces
// use the git dir checked.
func OpenWorktree(ctx context.Context, w Worktree) (Repo, error) {
	return openChecked(ctx, w, w.Path)
}

// openChecked is OpenWorktree of the folder dir in w.
func openChecked(ctx context.Context, w Worktree, dir string) (Repo, error) {
	gitDir, commonDir, err := CheckWorktree(ctx, w)
	if err != nil {
		return Repo{}, err
	}
	r, err := Open(ctx, dir)
	if err != nil {
		return r, err
	}
	if !samePath(r.gitDir, gitDir) || !samePath(r.commonDir, commonDir) {
		return Repo{}, &GitDirError{Top: w.Top, Reason: "its .git changed while the hub opened it"}
	}
	r.gitDir, r.commonDir = gitDir, commonDir
	return r, nil
}

// ownWorkTree checks that top is the folder holding the .git (a folder, or
// a file naming it) of the git dir gitDir.
func ownWorkTree(top, gitDir string) error {
	dotgit := filepath.Join(top, ".git")
	fi, err := os.Stat(dotgit)
	if err != nil {
		return errWorkTreeElsewhere
	}
	target := dotgit
	if fi.Mode().IsRegular() {
		if target, err = readGitFile(dotgit); err != nil {
			return errWorkTreeElsewhere
		}
	}
	if !samePath(target, gitDir) {
		return errWorkTreeElsewhere
	}
	return nil
}

// readGitFile reads a .git file ("gitdir: <path>", relative to its folder).
func readGitFile(path string) (string, error) {
	s, err := readSmall(path)
	if err != nil {
		return "", err
	}
	gd, ok := strings.CutPrefix(s, "gitdir: ")
	if !ok || gd == "" {
		return "", fmt.Errorf("%s is not a gitdir file", path)
	}
	return relTo(filepath.Dir(path), gd), nil
}

// readSmall reads a small regular file, trimmed.
func readSmall(path string) (string, error) {
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	return strings.TrimSpace(string(b)), err
}

// relTo is p, relative to dir unless absolute.
func relTo(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// samePath reports whether a and b name the same existing file once
// symbolic links are resolved.
func samePath(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}
