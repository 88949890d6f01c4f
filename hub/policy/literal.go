package policy

import (
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// A prefilter for match: most requests match no rule's regular
// expression, and running a thousand of them costs more than the
// request's budget. required(re) finds literals of which every match of
// re contains at least one; a subject holding none of them cannot match,
// and the expression is not run. The check may only say "cannot match"
// when that is certain: it is skipped (the expression runs) whenever it
// cannot be sure — no such literals, a literal that is not ASCII, a
// case-insensitive literal against a subject that is not ASCII (where
// Unicode folding, K for k, could match what lower-casing misses).

// prefilter is a compiled rule's literal check; nil runs the expression.
type prefilter struct {
	lits []string // lower-cased when fold
	fold bool     // compare ASCII-lower-cased
}

// maxLits bounds the literals one prefilter checks: past it, running the
// expression is as cheap.
const maxLits = 16

// newPrefilter analyses expr (already known to compile).
func newPrefilter(expr string) *prefilter {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	lits, fold, ok := required(re.Simplify())
	if !ok || len(lits) == 0 || len(lits) > maxLits {
		return nil
	}
	for i, l := range lits {
		if l == "" || !isASCII(l) {
			return nil
		}
		if fold {
			lits[i] = strings.ToLower(l)
		}
	}
	return &prefilter{lits: lits, fold: fold}
}

// mayMatch reports whether subject (and its ASCII-lower-cased form lower,
// "" when subject is not ASCII) may match.
func (p *prefilter) mayMatch(subject, lower string) bool {
	if p == nil {
		return true
	}
	s := subject
	if p.fold {
		if lower == "" && subject != "" {
			return true // not ASCII: Unicode folding, run the expression
		}
		s = lower
	}
	for _, l := range p.lits {
		if strings.Contains(s, l) {
			return true
		}
	}
	return false
}

// required returns literals one of which every match of re contains,
// whether any of them is case-insensitive (then all are compared
// lower-cased), and ok false when it knows none.
func required(re *syntax.Regexp) (lits []string, fold, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{string(re.Rune)}, re.Flags&syntax.FoldCase != 0, true
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		// The child whose shortest literal is longest: the most selective.
		best := -1
		for _, sub := range re.Sub {
			l, f, ok := required(sub)
			if !ok {
				continue
			}
			if m := shortest(l); m > best {
				lits, fold, best = l, f, m
			}
		}
		return lits, fold, best > 0
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			l, f, ok := required(sub)
			if !ok {
				return nil, false, false
			}
			lits, fold = append(lits, l...), fold || f
		}
		return lits, fold, true
	}
	return nil, false, false
}

func shortest(lits []string) int {
	m := -1
	for _, l := range lits {
		if m < 0 || len(l) < m {
			m = len(l)
		}
	}
	return m
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// asciiLower is s lower-cased when it is all ASCII, else "".
func asciiLower(s string) string {
	if !isASCII(s) {
		return ""
	}
	return strings.ToLower(s)
}
