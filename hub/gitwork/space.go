package gitwork

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// space is a git dir of the hub's own for one operation on a repository
// (ADR 0028): a fresh private temporary folder with a HEAD, an empty refs
// folder, a config the hub writes (bare, the repository's object format),
// a copy of the repository's info/exclude and, when asked, of an index.
// Git run on it (cmd.sp) borrows the repository's object store
// (GIT_OBJECT_DIRECTORY), is given the work tree explicitly
// (GIT_WORK_TREE), and reads no config file but the hub's: neither the
// repository's (its core.worktree, hooks, filter, merge and diff drivers,
// signing cannot reach it, whenever the agent writes them), nor the
// system's nor the global one. The few settings that change what a file's
// content or an ignore rule is (carried) are copied from the repository's
// config as values, through the environment. A space is used by one
// goroutine; close removes it.
type space struct {
	dir      string   // the git dir
	objects  string   // the repository's object store
	workTree string   // "" for none (bare)
	carried  []string // GIT_CONFIG_COUNT and its KEY_i/VALUE_i
}

// carried are the settings copied into a space: data that shape how git
// reads the work tree, never a command.
var carried = []string{"core.excludesfile", "core.autocrlf", "core.eol", "core.filemode", "core.symlinks", "core.ignorecase",
	"core.precomposeunicode", "core.protecthfs", "core.protectntfs", "core.checkroundtripencoding", "core.longpaths"}

// spaceArgs are options of every git run on a space: its index stays one
// plain file, and add never refuses a file for its line endings.
var spaceArgs = []string{"-c", "core.untrackedCache=false", "-c", "core.splitIndex=false", "-c", "core.safecrlf=false"}

// newSpace makes a space for the repository whose git dir (the work
// tree's own, for a linked worktree) and common dir are given; workTree
// "" makes it bare; head (a commit, "" for none) is its detached HEAD.
// Reading the repository's config runs nothing.
func newSpace(ctx context.Context, gitDir, commonDir, workTree, head string) (*space, error) {
	names := make([]string, len(carried))
	for i, k := range carried {
		names[i] = strings.TrimPrefix(k, "core.")
	}
	out, err := run(ctx, cmd{dir: gitDir, env: []string{"GIT_DIR=" + gitDir},
		args: []string{"config", "-z", "--type=path", "--get-regexp", `^(core\.(` + strings.Join(names, "|") + `)|extensions\.objectformat)$`}})
	if err != nil && exitCode(err) != 1 {
		return nil, err
	}
	format := "sha1"
	vals := map[string]string{}
	for _, kv := range splitZ(out) {
		k, v, _ := strings.Cut(kv, "\n")
		if k == "extensions.objectformat" {
			format = strings.ToLower(v)
		} else if slices.Contains(carried, k) {
			vals[k] = v // the last one wins, as in git
		}
	}
	if format != "sha1" && format != "sha256" {
		return nil, fmt.Errorf("gitwork: unknown object format %q", format)
	}
	dir, err := os.MkdirTemp("", "switchboard-git-*")
	if err != nil {
		return nil, err
	}
	s := &space{dir: dir, objects: filepath.Join(commonDir, "objects"), workTree: workTree}
	for _, k := range carried {
		if v, ok := vals[k]; ok {
			n := strconv.Itoa(len(s.carried) / 2)
			s.carried = append(s.carried, "GIT_CONFIG_KEY_"+n+"="+k, "GIT_CONFIG_VALUE_"+n+"="+v)
		}
	}
	s.carried = append(s.carried, "GIT_CONFIG_COUNT="+strconv.Itoa(len(s.carried)/2))
	if head == "" {
		head = "ref: refs/heads/switchboard"
	}
	config := "[core]\n\trepositoryformatversion = 1\n\tbare = true\n"
	if format != "sha1" {
		config += "[extensions]\n\tobjectformat = " + format + "\n"
	}
	err = errors.Join(os.WriteFile(filepath.Join(dir, "HEAD"), []byte(head+"\n"), 0o600),
		os.WriteFile(filepath.Join(dir, "config"), []byte(config), 0o600),
		os.Mkdir(filepath.Join(dir, "refs"), 0o700), os.Mkdir(filepath.Join(dir, "info"), 0o700))
	if err == nil {
		err = copyRegular(filepath.Join(commonDir, "info", "exclude"), filepath.Join(dir, "info", "exclude"), 1<<20)
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.close()
		return nil, err
	}
	return s, nil
}

// environ is the environment of git run on s.
func (s *space) environ() []string {
	env := []string{"GIT_DIR=" + s.dir, "GIT_OBJECT_DIRECTORY=" + s.objects, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull}
	if s.workTree != "" {
		env = append(env, "GIT_WORK_TREE="+s.workTree)
	}
	return append(env, s.carried...)
}

// copyIndex makes the index of the git dir gitDir (and the shared indexes
// a split index names) s's index. A missing or empty index is none. The
// copy keeps the index's modification time: git trusts an entry whose
// file's size and mtime match only when the file is older than the index
// (else it is "racily clean" and git reads its content), so an index
// copied with a later mtime would hide an edit made in the second the
// repository's index was written (same size), and the snapshot would
// miss it.
func (s *space) copyIndex(gitDir string) error {
	err := copyRegular(filepath.Join(gitDir, "index"), s.index(), -1)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err == nil {
		if err := keepMtime(filepath.Join(gitDir, "index"), s.index()); err != nil {
			return err
		}
	}
	if fi, err := os.Stat(s.index()); err == nil && fi.Size() == 0 {
		os.Remove(s.index()) // git wants no file rather than an empty one
	}
	shared, _ := filepath.Glob(filepath.Join(gitDir, "sharedindex.*"))
	for _, p := range shared {
		if err := copyRegular(p, filepath.Join(s.dir, filepath.Base(p)), -1); err != nil {
			return err
		}
	}
	return nil
}

// keepMtime sets the modification time of the file to to that of from.
func keepMtime(from, to string) error {
	fi, err := os.Stat(from)
	if err != nil {
		return err
	}
	return os.Chtimes(to, time.Time{}, fi.ModTime())
}

// index is the path of s's index.
func (s *space) index() string { return filepath.Join(s.dir, "index") }

// close removes s.
func (s *space) close() { os.RemoveAll(s.dir) }

// copyRegular copies the regular file from (never a link, a pipe or a
// device: the repository's files are the agent's) to to, at most limit
// bytes when limit > 0.
func copyRegular(from, to string, limit int64) error {
	fi, err := os.Lstat(from)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("gitwork: %s is not a regular file", from)
	}
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	var r io.Reader = src
	if limit > 0 {
		r = io.LimitReader(src, limit)
	}
	_, err = io.Copy(dst, r)
	return errors.Join(err, dst.Close())
}

// space makes a space for r's repository with r's work tree and HEAD,
// holding a copy of r's index when withIndex.
func (r Repo) space(ctx context.Context, withIndex bool) (*space, error) {
	if r.gitDir == "" {
		return nil, errors.New("gitwork: a Repo not made by Open")
	}
	s, err := newSpace(ctx, r.gitDir, r.commonDir, r.Top, r.Head)
	if err != nil {
		return nil, err
	}
	if withIndex {
		if err := s.copyIndex(r.gitDir); err != nil {
			s.close()
			return nil, err
		}
	}
	return s, nil
}

// bareSpace makes a bare space for the repository of the checkout dir.
func bareSpace(ctx context.Context, dir string) (*space, error) {
	out, err := git(ctx, dir, "rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir")
	if err != nil {
		return nil, err
	}
	f := strings.Split(out, "\n")
	if len(f) != 2 {
		return nil, errors.New("gitwork: rev-parse: unexpected output " + strconv.Quote(out))
	}
	return newSpace(ctx, f[0], f[1], "", "")
}

// resolve returns the object ids of revs (refs, commits, trees) as r's
// repository has them: a space has no refs. A full object id is kept as
// it is; "" stays "".
func (r Repo) resolve(ctx context.Context, revs ...string) ([]string, error) {
	out := make([]string, len(revs))
	for i, rev := range revs {
		if rev == "" || isObjectID(rev) {
			out[i] = rev
			continue
		}
		id, err := run(ctx, cmd{dir: r.Top, env: []string{"GIT_DIR=" + r.gitDir}, args: []string{"rev-parse", "--verify", "--end-of-options", rev}})
		if err != nil {
			return nil, err
		}
		out[i] = strings.TrimSpace(string(id))
	}
	return out, nil
}

// isObjectID reports whether s is a full sha1 or sha256 object id.
func isObjectID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
