package engine

import (
	"unicode"

	"github.com/switchboard-hub/switchboard/hub"
)

// checkPrefixes refuses a query whose FTS5 prefix terms ("abc*", `"a
// phrase"*`) are more than hub.MaxSearchPrefixTerms or shorter than
// hub.MinSearchPrefixRunes: INVALID_ARGUMENT with details.reason
// hub.ReasonSearchTooBroad. Inside double quotes (where "" is a quote) a
// '*' is text; outside, each '*' is a prefix term, whose length is that of
// the word before it (the last word of a quoted phrase).
func checkPrefixes(q string) error {
	rs := []rune(q)
	n := 0
	inQuote := false
	word := 0 // length of the run of word characters just read
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case inQuote && r == '"' && i+1 < len(rs) && rs[i+1] == '"':
			i++ // an escaped quote: the word ends
			word = 0
		case r == '"':
			inQuote = !inQuote
			if inQuote {
				word = 0
			} // closing: word is the phrase's last word
		case inQuote:
			if isWordRune(r) {
				word++
			} else {
				word = 0
			}
		case r == '*':
			n++
			if word < hub.MinSearchPrefixRunes {
				return tooBroad("a prefix (word*) needs at least %d characters before the *", hub.MinSearchPrefixRunes)
			}
			word = 0
		case isWordRune(r):
			word++
		default:
			word = 0
		}
	}
	if n > hub.MaxSearchPrefixTerms {
		return tooBroad("at most %d prefix terms (word*) in a query, not %d", hub.MaxSearchPrefixTerms, n)
	}
	return nil
}

// isWordRune: what FTS5's unicode61 tokenizer keeps in a word (letters,
// digits, and every non-ASCII character of the bareword syntax).
func isWordRune(r rune) bool {
	return r == '_' || r > 127 || unicode.IsLetter(r) || unicode.IsDigit(r)
}

func tooBroad(format string, args ...any) error {
	e := hub.Errorf(hub.CodeInvalidArgument, "search: "+format, args...)
	e.Details = map[string]any{"reason": hub.ReasonSearchTooBroad,
		"maxPrefixTerms": hub.MaxSearchPrefixTerms, "minPrefixLength": hub.MinSearchPrefixRunes}
	return e
}
