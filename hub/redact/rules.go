// Package redact replaces well-known secret formats in text with
// "[REDACTED:<kind>]" before the hub stores it: API keys and tokens of a few
// providers, and PEM private-key blocks. It imports nothing internal.
//
// The list is small on purpose (docs/DECISIONS.md 0006): each format has a
// fixed, distinctive prefix, so false positives are rare and a clean text
// costs a few substring searches, not a regular expression. What it does
// not know (a password in a URL, a custom token) is stored as it came.
//
// Three entry points: String for a whole text, JSON for raw JSON (inside
// string values only; the JSON stays valid and is otherwise unchanged), and
// Stream for text that arrives in chunks (a streamed message, a terminal's
// output), which holds back at most the last HoldBack bytes of what it was
// given so that a secret split across chunks is still found.
package redact

import (
	"regexp"
	"strings"
)

// A rule is one secret format.
type rule struct {
	kind string
	// prefixes are literal strings one of which every match contains; a
	// text containing none of them is not searched with re.
	prefixes    []string
	prefixBytes [][]byte // prefixes, as bytes (set by init)
	re          *regexp.Regexp
	// keep is how much of the match, from its start, is not secret (the
	// "aws_secret_access_key = " of a key line): only the rest is replaced.
	keep func(match string) int
}

// rules are the formats redacted, most specific first (an Anthropic key is
// also shaped like an OpenAI one). Each is anchored on a word boundary so a
// prefix inside a longer word ("task-…") does not match.
var rules = []rule{
	{kind: "anthropic-key", prefixes: []string{"sk-ant-"}, re: regexp.MustCompile(`\bsk-ant-[A-Za-z0-9_-]{32,}`)},
	{kind: "openai-key", prefixes: []string{"sk-"}, re: regexp.MustCompile(`\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}`)},
	{kind: "github-token", prefixes: []string{"ghp_", "gho_", "ghs_", "ghu_", "ghr_"}, re: regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{36,}`)},
	{kind: "github-token", prefixes: []string{"github_pat_"}, re: regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{22,}`)},
	{kind: "aws-access-key-id", prefixes: []string{"AKIA", "ASIA"}, re: regexp.MustCompile(`\b(?:AKIA|ASIA)[A-Z0-9]{16}\b`)},
	{kind: "aws-secret-key", prefixes: []string{"ecret", "ECRET"},
		re:   regexp.MustCompile(`(?i:aws_?secret_?access_?key|aws_?secret_?key)["']?\s*[:=]\s*["']?[A-Za-z0-9/+]{40}\b`),
		keep: func(m string) int { return len(m) - 40 }},
	{kind: "slack-token", prefixes: []string{"xox"}, re: regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9-]{10,}`)},
	{kind: "google-api-key", prefixes: []string{"AIza"}, re: regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`)},
}

func init() {
	for i := range rules {
		for _, p := range rules[i].prefixes {
			rules[i].prefixBytes = append(rules[i].prefixBytes, []byte(p))
		}
	}
}

// Private-key blocks are found apart from the rules: a block spans lines
// and, in a stream, chunks, so Stream follows it with a state of its own.
var (
	keyBegin = regexp.MustCompile(`-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----`)
	keyEnd   = regexp.MustCompile(`-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----`)
)

const keyMarker = "-----BEGIN"

// Marker is what replaces a secret of the given kind.
func Marker(kind string) string { return "[REDACTED:" + kind + "]" }

var privateKeyMarker = Marker("private-key")

// maybeSecret reports whether s contains a prefix of any format: when it
// does not, s holds no secret. It is the cheap test every text goes
// through.
func maybeSecret(s string) bool {
	if strings.Contains(s, keyMarker) {
		return true
	}
	for i := range rules {
		for _, p := range rules[i].prefixes {
			if strings.Contains(s, p) {
				return true
			}
		}
	}
	return false
}

// String returns s with every secret it holds replaced by its Marker, and
// whether it replaced any. A private-key block without its END line is
// redacted to the end of s.
func String(s string) (string, bool) {
	if !maybeSecret(s) {
		return s, false
	}
	out := redactKeys(s)
	out = redactTokens(out)
	return out, out != s
}

// redactKeys replaces private-key blocks (BEGIN through END, or through the
// end of s when END is missing).
func redactKeys(s string) string {
	if !strings.Contains(s, keyMarker) {
		return s
	}
	var b strings.Builder
	for {
		loc := keyBegin.FindStringIndex(s)
		if loc == nil {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:loc[0]])
		b.WriteString(privateKeyMarker)
		end := keyEnd.FindStringIndex(s[loc[1]:])
		if end == nil {
			return b.String()
		}
		s = s[loc[1]+end[1]:]
	}
}

// redactTokens applies the single-line rules to s.
func redactTokens(s string) string {
	for i := range rules {
		r := &rules[i]
		if !containsAny(s, r.prefixes) {
			continue
		}
		s = r.re.ReplaceAllStringFunc(s, func(m string) string {
			k := 0
			if r.keep != nil {
				k = r.keep(m)
			}
			return m[:k] + Marker(r.kind)
		})
	}
	return s
}

func containsAny(s string, subs []string) bool {
	for _, p := range subs {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}
