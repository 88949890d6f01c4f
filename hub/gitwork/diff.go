package gitwork

import (
	"context"
	"strings"
)

// FileChange is one file that differs between two snapshots.
type FileChange struct {
	Path    string `json:"path"`
	Status  string `json:"status"` // added, modified, deleted, renamed
	OldPath string `json:"oldPath,omitempty"`
	Diff    string `json:"diff"` // unified diff (git diff format)
}

// change is a raw --name-status entry.
type change struct {
	Status, Path, OldPath string
}

// nameStatus lists what differs from a to b under r's prefix, without
// rename detection (restoring works file by file).
func nameStatus(ctx context.Context, sp *space, r Repo, a, b string) ([]change, error) {
	out, err := run(ctx, cmd{dir: r.Top, sp: sp, args: []string{"diff", "--no-ext-diff", "--no-textconv", "--no-renames", "--name-status", "-z", a, b, "--", r.Pathspec()}})
	if err != nil {
		return nil, err
	}
	parts := splitZ(out)
	var cs []change
	for i := 0; i+1 < len(parts); i += 2 {
		cs = append(cs, change{Status: parts[i][:1], Path: parts[i+1]})
	}
	return cs, nil
}

// Diff lists the files that differ from the tree-ish a to b (b "": the
// folder as it is now) under r's prefix, each with its unified diff,
// renames detected. Paths are relative to the repository's top. It runs
// in a space: no external diff, textconv or filter.
func Diff(ctx context.Context, r Repo, a, b string) ([]FileChange, error) {
	sp, a, b, err := spaceAt(ctx, r, a, b)
	if err != nil {
		return nil, err
	}
	defer sp.close()
	out, err := run(ctx, cmd{dir: r.Top, sp: sp, args: []string{"diff", "--no-ext-diff", "--no-textconv", "--no-color", "-M", "--name-status", "-z", a, b, "--", r.Pathspec()}})
	if err != nil {
		return nil, err
	}
	parts := splitZ(out)
	files := []FileChange{}
	for i := 0; i < len(parts); {
		st := parts[i]
		f := FileChange{}
		switch st[0] {
		case 'R', 'C':
			if i+2 >= len(parts) {
				i = len(parts)
				continue
			}
			f.Status, f.OldPath, f.Path = "renamed", parts[i+1], parts[i+2]
			i += 3
		default:
			if i+1 >= len(parts) {
				i = len(parts)
				continue
			}
			f.Path = parts[i+1]
			switch st[0] {
			case 'A':
				f.Status = "added"
			case 'D':
				f.Status = "deleted"
			default:
				f.Status = "modified"
			}
			i += 2
		}
		spec := []string{":(top,literal)" + f.Path}
		if f.OldPath != "" {
			spec = append(spec, ":(top,literal)"+f.OldPath)
		}
		d, err := run(ctx, cmd{dir: r.Top, sp: sp, args: append([]string{"diff", "--no-ext-diff", "--no-textconv", "--no-color", "-M", a, b, "--"}, spec...)})
		if err != nil {
			return nil, err
		}
		f.Diff = string(d)
		files = append(files, f)
	}
	return files, nil
}

// Changed lists the paths (relative to the repository's top) that differ
// from the tree-ish a to b (b "": the folder as it is now) under r's
// prefix.
func Changed(ctx context.Context, r Repo, a, b string) ([]string, error) {
	sp, a, b, err := spaceAt(ctx, r, a, b)
	if err != nil {
		return nil, err
	}
	defer sp.close()
	cs, err := nameStatus(ctx, sp, r, a, b)
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		out = append(out, c.Path)
	}
	return out, err
}

// spaceAt makes a space of r and returns it with the object ids of a and
// b, b a snapshot of r's folder now when it is "".
func spaceAt(ctx context.Context, r Repo, a, b string) (*space, string, string, error) {
	ids, err := r.resolve(ctx, a, b)
	if err != nil {
		return nil, "", "", err
	}
	a, b = ids[0], ids[1]
	sp, err := r.space(ctx, b == "")
	if err != nil || b != "" {
		return sp, a, b, err
	}
	if b, err = snapshotIn(ctx, sp, r); err != nil {
		sp.close()
		return nil, "", "", err
	}
	return sp, a, b, nil
}

// RestorePaths brings back the given files (paths relative to the
// repository's top) to their state in the tree-ish from, as Restore does
// for all of them.
func RestorePaths(ctx context.Context, r Repo, from string, paths []string) ([]string, error) {
	only := map[string]bool{}
	for _, p := range paths {
		only[strings.TrimPrefix(p, "/")] = true
	}
	return restore(ctx, r, from, only)
}
