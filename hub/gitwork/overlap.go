package gitwork

import (
	"context"
	"errors"
	"slices"
	"strings"
)

// CommonDir is the git dir r's repository shares with all its worktrees:
// two Repos with the same CommonDir are checkouts of one repository.
func (r Repo) CommonDir() string { return r.commonDir }

// GitDir is r's own git dir: two Repos with the same GitDir are the same
// checkout.
func (r Repo) GitDir() string { return r.gitDir }

// Comparer compares commits of r's repository (threads' snapshots) in one
// bare space (space.go: no merge driver, attribute, hook or monitor of the
// repository's runs; only objects are written, never a ref, the index or
// a file). One goroutine uses it; Close removes its space.
type Comparer struct {
	r  Repo
	sp *space
}

// NewComparer makes a Comparer for r's repository.
func NewComparer(ctx context.Context, r Repo) (*Comparer, error) {
	sp, err := newSpace(ctx, r.gitDir, r.commonDir, "", "")
	if err != nil {
		return nil, err
	}
	return &Comparer{r: r, sp: sp}, nil
}

// Close removes the comparer's space.
func (c *Comparer) Close() { c.sp.close() }

// Changed lists the files under r's prefix that differ between the commits
// a and b, relative to the repository's top, sorted; a rename is its old
// and its new path.
func (c *Comparer) Changed(ctx context.Context, a, b string) ([]string, error) {
	args := []string{"diff-tree", "-r", "--no-renames", "--name-only", "-z", a, b}
	if c.r.Prefix != "" {
		args = append(args, "--", c.r.Prefix)
	}
	out, err := run(ctx, cmd{dir: c.r.Top, sp: c.sp, args: args})
	if err != nil {
		return nil, err
	}
	files := splitZ(out)
	slices.Sort(files)
	return files, nil
}

// Conflicts reports, for each pair of commits, the files in which merging
// them would conflict (nil: they merge cleanly), as one git merge-tree
// --stdin --write-tree says for all of them.
func (c *Comparer) Conflicts(ctx context.Context, pairs [][2]string) ([][]string, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	var stdin strings.Builder
	for _, p := range pairs {
		stdin.WriteString(p[0] + " " + p[1] + "\n")
	}
	out, err := run(ctx, cmd{dir: c.r.Top, sp: c.sp, stdin: []byte(stdin.String()),
		args: []string{"merge-tree", "--stdin", "--write-tree", "--name-only", "--no-messages", "-z"}})
	if err != nil {
		return nil, err
	}
	// Each merge: <status>NUL<tree>NUL<file>NUL…NUL (an empty field ends
	// it); status 1 is clean, 0 conflicts.
	f := strings.Split(string(out), "\x00")
	res := make([][]string, 0, len(pairs))
	for i := 0; i+1 < len(f) && len(res) < len(pairs); {
		clean := f[i] == "1"
		if !clean && f[i] != "0" {
			return nil, errors.New("gitwork: merge-tree --stdin: unexpected status " + f[i])
		}
		i += 2
		var files []string
		for ; i < len(f) && f[i] != ""; i++ {
			files = append(files, f[i])
		}
		i++ // the empty field
		if clean {
			files = nil
		} else if files == nil {
			files = []string{} // conflicts without a file named: still a conflict
		}
		res = append(res, files)
	}
	if len(res) != len(pairs) {
		return nil, errors.New("gitwork: merge-tree --stdin: fewer results than merges")
	}
	return res, nil
}
