package policy

import (
	"errors"
	"path"
	"path/filepath"
	"strings"
)

// Folder globs (permissions.rules[].folders and the config's folders
// section): an absolute folder pattern (~ expanded by the caller), path elements matched one by one as filepath.Match does ("*",
// "?", "[…]" within one element), and "**" for any number of elements,
// none included. "/home/me/work/**" matches /home/me/work and every
// folder under it; "/home/me/work/*" its direct subfolders.

// CheckFolderGlob reports whether glob is a valid folder pattern: absolute,
// and each element a valid filepath.Match pattern.
func CheckFolderGlob(glob string) error {
	if !filepath.IsAbs(glob) {
		return ErrNotAbsolute
	}
	for _, el := range SplitPath(glob) {
		if el == "**" {
			continue
		}
		if _, err := filepath.Match(el, ""); err != nil {
			return err
		}
	}
	return nil
}

// ErrNotAbsolute is CheckFolderGlob's error for a relative pattern.
var ErrNotAbsolute = errors.New("must be an absolute path (or start with ~/)")

// MatchFolder reports whether the folder dir matches glob. Both are
// absolute; dir is cleaned first.
func MatchFolder(glob, dir string) bool {
	return matchElems(SplitPath(glob), SplitPath(filepath.Clean(dir)))
}

// matchElems matches path elements against pattern elements, in
// O(len(pat)·len(elems)) steps whatever the pattern ("**" after "**"
// cannot blow up: a thread's folder may be long and is not the user's).
// ok[j] says whether the pattern so far matches elems[:j].
func matchElems(pat, elems []string) bool {
	var buf [2][32]bool
	ok, next := buf[0][:0], buf[1][:0]
	ok = append(ok, make([]bool, len(elems)+1)...)
	next = append(next, make([]bool, len(elems)+1)...)
	ok[0] = true
	for _, p := range pat {
		if p == "**" {
			any := false
			for j := range ok {
				any = any || ok[j]
				next[j] = any
			}
		} else {
			literal := !strings.ContainsAny(p, `*?[\`)
			next[0] = false
			alive := false
			for j := 1; j < len(ok); j++ {
				next[j] = false
				if ok[j-1] {
					if literal {
						next[j] = p == elems[j-1]
					} else {
						m, err := filepath.Match(p, elems[j-1])
						next[j] = err == nil && m
					}
					alive = alive || next[j]
				}
			}
			if !alive {
				return false
			}
		}
		ok, next = next, ok
	}
	return ok[len(elems)]
}

// SplitPath splits p at separators, dropping empty and "." elements.
func SplitPath(p string) []string {
	var out []string
	for _, el := range strings.Split(filepath.ToSlash(p), "/") {
		if el != "" && el != "." {
			out = append(out, el)
		}
	}
	return out
}

// Within reports whether p is root or inside it; both are clean and
// absolute.
func Within(p, root string) bool {
	if p == root {
		return true
	}
	if !strings.HasSuffix(root, string(filepath.Separator)) {
		root += string(filepath.Separator)
	}
	return strings.HasPrefix(p, root)
}

// checkAgentGlob reports whether g is a valid agent id pattern
// (path.Match syntax: agent ids hold no "/").
func checkAgentGlob(g string) error {
	if g == "" {
		return errors.New("empty pattern")
	}
	_, err := path.Match(g, "")
	return err
}
