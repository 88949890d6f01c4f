package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/policy"
)

// File confinement: which paths the hub serves an agent's fs/* and
// terminal/* requests for (docs/SECURITY.md, "Files and terminals an agent
// may touch"). Every path is resolved first (resolvePath), then:
//   - a protected path (the data dir, the token, hub.json, the database,
//     the config file and its folder: Options.Protected) is never served,
//     whatever anyone approves;
//   - a path inside the thread's allowed folders (allowedFolders) is
//     served without asking;
//   - anything else is a permission the user decides.

// maxSymlinks bounds the symbolic links one resolution follows, as
// Linux's MAXSYMLINKS does: more is a loop.
const maxSymlinks = 40

// errSymlinkLoop is resolvePath's error for a path with too many links.
var errSymlinkLoop = errors.New("too many levels of symbolic links")

// resolvePath returns the absolute, clean path p names, with every
// symbolic link on the way followed, the way the kernel would open it:
// element by element, a link's target resolved in turn (relative to the
// link's folder), and ".." taken from the folder reached so far — so
// "ws/lnk/../x" with ws/lnk -> /home/me/.ssh is /home/me/x, never ws/x
// (p is never cleaned lexically first). A missing element is taken as
// written, and ".." after it applies lexically (nothing under a missing
// folder can be a link). A dangling link is resolved to where it points.
//
// It refuses a relative p, a loop of links (more than maxSymlinks) and a
// prefix that cannot be examined (a file used as a folder, a folder it
// may not search).
func resolvePath(p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("path must be absolute: %q", p)
	}
	vol := filepath.VolumeName(p)
	cur := vol + string(filepath.Separator)
	rest := splitPath(p[len(vol):])
	links := 0
	for len(rest) > 0 {
		name := rest[0]
		rest = rest[1:]
		if name == ".." {
			cur = filepath.Dir(cur) // cur holds no link: lexical is right
			continue
		}
		next := filepath.Join(cur, name)
		fi, err := os.Lstat(next)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			cur = next // missing: taken as written
			continue
		case err != nil:
			return "", fmt.Errorf("resolve %s: %w", p, err)
		case fi.Mode()&fs.ModeSymlink == 0:
			cur = next
			continue
		}
		if links++; links > maxSymlinks {
			return "", fmt.Errorf("resolve %s: %w", p, errSymlinkLoop)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", fmt.Errorf("resolve %s: %w", p, err)
		}
		if filepath.IsAbs(target) {
			v := filepath.VolumeName(target)
			cur, target = v+string(filepath.Separator), target[len(v):]
		}
		rest = append(splitPath(target), rest...)
	}
	return cur, nil
}

// splitPath splits p at separators, dropping empty and "." elements.
func splitPath(p string) []string { return policy.SplitPath(p) }

// within reports whether p is root or inside it; both are clean and
// absolute.
func within(p, root string) bool { return policy.Within(p, root) }

// foldCase is whether the usual file systems of this OS ignore case
// (macOS, Windows): the protected paths are then compared without case,
// so that /USERS/me/… cannot reach what /Users/me/… protects.
var foldCase = runtime.GOOS == "darwin" || runtime.GOOS == "windows"

// withinProtected is within for a protected root: case-insensitive where
// the file system usually is.
func withinProtected(p, root string) bool {
	if foldCase {
		return within(strings.ToLower(p), strings.ToLower(root))
	}
	return within(p, root)
}

// resolveAll resolves each path, dropping those that cannot be.
func resolveAll(paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if r, err := resolvePath(p); err == nil {
			out = append(out, r)
		}
	}
	return out
}

// confinementRoots returns the folders that are the thread's own: its
// folder, cwd (for a worktree thread, when there is one, worktree.path:
// where its agent runs). Every confinement decision starts from here.
func confinementRoots(t hub.Thread) []string {
	return []string{agentDir(t)}
}

// allowedFolders returns the resolved folders an agent of the thread may
// use without asking: its confinement roots, the thread's extra folders
// (its sessions' additionalDirectories, extradirs.go), and the folders the
// config allows for the thread's folder (folders.<glob>.allowedFolders).
func (e *Engine) allowedFolders(t hub.Thread) []string {
	dirs := append([]string(nil), confinementRoots(t)...)
	dirs = append(dirs, t.AdditionalDirectories...)
	dirs = append(dirs, e.config().allowedFor(t.Cwd)...)
	return resolveAll(dirs)
}

// protectedPath reports whether the resolved path p is, or is inside, one
// of the paths the hub never serves.
func (e *Engine) protectedPath(p string) bool {
	for _, root := range e.protected {
		if withinProtected(p, root) {
			return true
		}
	}
	return false
}

// protectedRoots resolves the protected paths, keeping each also as
// written (cleaned) when that differs: a link later swapped under it must
// not unprotect it.
func protectedRoots(paths []string) []string {
	var out []string
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			continue
		}
		out = append(out, filepath.Clean(p))
		if r, err := resolvePath(p); err == nil && r != filepath.Clean(p) {
			out = append(out, r)
		}
	}
	return out
}
