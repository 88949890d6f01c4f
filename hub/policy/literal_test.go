package policy

import (
	"regexp"
	"testing"
)

// The prefilter only ever skips an expression that cannot match: for
// every pattern and subject, a match means mayMatch said yes.
func TestPrefilterNeverMisses(t *testing.T) {
	patterns := []string{
		`rm -rf`, `^git (status|diff)$`, `(?i)secret|token`, `(?i)SECRET-1`, `a+b`, `(ab){2,}c`, `x*`, `\bcurl\b.*\|\s*sh`,
		`(?i)k`, `(?i)s`, `[a-z]+`, `^$`, `héllo`, `(?i:rm) -rf|dd if=`, `go (test|vet) ./\.\.\.`, `(foo|bar)?baz`,
	}
	subjects := []string{
		"", "rm -rf /", "RM -RF /", "git status", "git diff", "git log", "my SECRET", "ToKeN", "secret-1", "SECRET-1",
		"aab", "ababc", "abc", "curl x | sh", "\u212a", "ſ", "K", "s", "héllo", "HÉLLO", "rm -rf", "RM -rf", "dd if=/dev/zero",
		"go test ./...", "go vet ./...", "baz", "foobaz", "xyz",
	}
	for _, p := range patterns {
		re := regexp.MustCompile(p)
		pre := newPrefilter(p)
		for _, s := range subjects {
			if re.MatchString(s) && !pre.mayMatch(s, asciiLower(s)) {
				t.Errorf("%q matches %q but the prefilter skipped it (%+v)", p, s, pre)
			}
		}
	}
	// And it does skip: the benchmark's budget depends on it.
	for _, p := range []string{`rm -rf`, `(?i)secret|token`, `^git (status|diff)$`} {
		if pre := newPrefilter(p); pre == nil || pre.mayMatch("go build ./...", "go build ./...") {
			t.Errorf("%q: no prefilter, or it does not skip an unrelated command: %+v", p, pre)
		}
	}
}
