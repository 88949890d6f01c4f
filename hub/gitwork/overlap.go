package gitwork

import "context"

// CommonDir is the git dir r's repository shares with all its worktrees:
// two Repos with the same CommonDir are checkouts of one repository.
func (r Repo) CommonDir() string { return r.commonDir }

// GitDir is r's own git dir: two Repos with the same GitDir are the same
// checkout.
func (r Repo) GitDir() string { return r.gitDir }

// MergeConflicts reports the files in which merging the commits a and b
// (two threads' snapshots) would conflict, as git merge-tree --write-tree
// says; none when they merge cleanly. It runs in a bare space of r's
// repository (no merge driver, attribute, hook or monitor of the
// repository's runs: trust.go) and writes only objects, never a ref, the
// index or a file. Git older than 2.38 (no --write-tree) is an error.
func MergeConflicts(ctx context.Context, r Repo, a, b string) ([]string, error) {
	sp, err := newSpace(ctx, r.gitDir, r.commonDir, "", "")
	if err != nil {
		return nil, err
	}
	defer sp.close()
	out, err := run(ctx, cmd{dir: r.Top, sp: sp, args: []string{"merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", a, b}})
	if exitCode(err) != 1 {
		return nil, err
	}
	var files []string
	if parts := splitZ(out); len(parts) > 1 {
		for _, f := range parts[1:] {
			if f != "" {
				files = append(files, f)
			}
		}
	}
	return files, nil
}
