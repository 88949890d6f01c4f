package acp

import (
	"strconv"
	"strings"
)

// NewerVersion reports whether version a is newer than b: dotted numbers
// (major.minor.patch, a leading "v" ignored), anything after '-' a
// pre-release, older than the release itself.
func NewerVersion(a, b string) bool {
	pa, pb := splitVersion(a), splitVersion(b)
	for i := range pa {
		if pa[i] != pb[i] {
			return pa[i] > pb[i]
		}
	}
	return isPre(b) && !isPre(a)
}

func isPre(v string) bool { return strings.Contains(v, "-") }

func splitVersion(v string) [3]int {
	v = strings.TrimPrefix(v, "v")
	v, _, _ = strings.Cut(v, "+")
	v, _, _ = strings.Cut(v, "-")
	var out [3]int
	for i, p := range strings.SplitN(v, ".", 3) {
		out[i], _ = strconv.Atoi(p)
	}
	return out
}
