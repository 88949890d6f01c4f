package gitwork

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrNotRepo: the folder is not in a git repository. ErrNotWorkTree: it is
// in one without a working tree (a bare repository or its git dir).
var (
	ErrNotRepo     = errors.New("not in a git repository")
	ErrNotWorkTree = errors.New("not a working tree")
)

// Repo is what git says of a folder inside a working tree.
type Repo struct {
	Top    string // the working tree's top folder (a submodule's own)
	Prefix string // the folder relative to Top, "" at the top, "/"-separated
	// Branch is the checked-out branch's short name; "" on a detached HEAD.
	Branch string
	// Head is the commit checked out; "" in a repository without commits.
	Head string

	gitDir, commonDir string // absolute: the work tree's git dir, the repository's
}

// Open describes the working tree dir is in: ErrNotRepo outside a
// repository, ErrNotWorkTree in a bare one or one whose work tree is not
// the folder holding its .git (core.worktree: the hub never lets the
// repository's config choose the folder it reads and writes).
func Open(ctx context.Context, dir string) (Repo, error) {
	out, err := git(ctx, dir, "rev-parse", "--is-bare-repository", "--is-inside-work-tree")
	if err != nil {
		if exitCode(err) > 0 {
			return Repo{}, ErrNotRepo
		}
		return Repo{}, err
	}
	f := strings.Fields(out)
	if len(f) != 2 || f[0] == "true" || f[1] != "true" {
		return Repo{}, ErrNotWorkTree
	}
	out, err = git(ctx, dir, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir", "--git-common-dir")
	if err != nil {
		return Repo{}, err
	}
	p := strings.Split(out, "\n")
	if len(p) != 3 {
		return Repo{}, errors.New("gitwork: rev-parse: unexpected output " + strconv.Quote(out))
	}
	top := p[0]
	if err := ownWorkTree(top, p[1]); err != nil {
		return Repo{}, err
	}
	prefix, err := git(ctx, dir, "rev-parse", "--show-prefix")
	if err != nil {
		return Repo{}, err
	}
	r := Repo{Top: filepath.Clean(top), Prefix: strings.TrimSuffix(prefix, "/"), gitDir: p[1], commonDir: p[2]}
	r.Head, _ = git(ctx, dir, "rev-parse", "--verify", "-q", "HEAD^{commit}")
	if b, err := git(ctx, dir, "symbolic-ref", "-q", "--short", "HEAD"); err == nil {
		r.Branch = b
	}
	return r, nil
}

// Pathspec is the pathspec of the repository's folder r describes: the
// whole tree at the top, else the prefix (":/" anchored, so it means the
// same from any folder).
func (r Repo) Pathspec() string {
	if r.Prefix == "" {
		return ":/"
	}
	return ":/" + r.Prefix
}

// AheadBehind counts the commits of branch not in base (ahead) and of base
// not in branch (behind).
func AheadBehind(ctx context.Context, dir, base, branch string) (ahead, behind int, err error) {
	out, err := git(ctx, dir, "rev-list", "--left-right", "--count", branch+"..."+base)
	if err != nil {
		return 0, 0, err
	}
	f := strings.Fields(out)
	if len(f) != 2 {
		return 0, 0, errors.New("gitwork: rev-list --count: unexpected output " + strconv.Quote(out))
	}
	ahead, _ = strconv.Atoi(f[0])
	behind, _ = strconv.Atoi(f[1])
	return ahead, behind, nil
}

// Version returns git's version as major, minor.
func Version(ctx context.Context) (major, minor int, err error) {
	out, err := git(ctx, "", "version")
	if err != nil {
		return 0, 0, err
	}
	f := strings.Fields(out) // git version 2.39.5[ (Apple Git-…)]
	if len(f) < 3 {
		return 0, 0, errors.New("gitwork: git version: " + out)
	}
	p := strings.SplitN(f[2], ".", 3)
	if len(p) < 2 {
		return 0, 0, errors.New("gitwork: git version: " + out)
	}
	major, _ = strconv.Atoi(p[0])
	minor, _ = strconv.Atoi(p[1])
	return major, minor, nil
}
