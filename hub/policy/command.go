package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// ParseCommand reads a command line the way /bin/sh -c would run it and
// returns its program and arguments with the quoting removed. plain is
// true only when the line is one simple command made of literal words:
// no operator (; & | && ||), no redirection, no pipe, no substitution or
// expansion ($x, $(…), `…`, globs, ~, braces), no assignment, no comment
// and no line break outside quotes. Then the shell runs exactly argv (the
// program looked up on PATH as exec does). For any other line plain is
// false and argv is nil: what runs is not known before it runs.
//
// The parser is mvdan.cc/sh's (bash dialect, so that bash-only syntax is
// seen as syntax, never as a literal word).
func ParseCommand(line string) (argv []string, plain bool) {
	if strings.TrimSpace(line) == "" || strings.ContainsAny(line, "\n\r\x00") {
		return nil, false
	}
	f, err := syntax.NewParser(syntax.KeepComments(true)).Parse(strings.NewReader(line), "")
	if err != nil || len(f.Stmts) != 1 || len(f.Last) != 0 {
		return nil, false
	}
	st := f.Stmts[0]
	if st.Negated || st.Background || st.Coprocess || len(st.Redirs) != 0 || len(st.Comments) != 0 {
		return nil, false
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) != 0 || len(call.Args) == 0 {
		return nil, false
	}
	for _, w := range call.Args {
		s, ok := literalWord(w)
		if !ok {
			return nil, false
		}
		argv = append(argv, s)
	}
	return argv, true
}

// literalWord returns the word's value when it is made only of literal
// text, single-quoted text and double-quoted literal text.
func literalWord(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			s, ok := unquotedLit(p.Value, i == 0)
			if !ok {
				return "", false
			}
			b.WriteString(s)
		case *syntax.SglQuoted:
			if p.Dollar { // $'…' has escapes of its own
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", false
			}
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(unescapeDouble(l.Value))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// unquotedLit is the value of literal text outside quotes, backslashes
// removed; ok is false when it holds a character the shell would expand
// (a glob, a brace, a tilde at the start of the word, a stray $).
func unquotedLit(v string, first bool) (string, bool) {
	if first && strings.HasPrefix(v, "~") {
		return "", false
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch c {
		case '\\':
			if i+1 < len(v) {
				i++
				b.WriteByte(v[i])
			}
			continue
		case '*', '?', '[', ']', '{', '}', '$', '`', '!':
			return "", false
		}
		b.WriteByte(c)
	}
	return b.String(), true
}

// unescapeDouble removes the backslashes that escape $ ` " \ inside
// double quotes; any other backslash stays.
func unescapeDouble(v string) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) && strings.IndexByte("$`\"\\", v[i+1]) >= 0 {
			i++
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// QuoteArgv is argv as one command line a POSIX shell reads back as argv:
// each argument as it is when it holds only letters, digits and
// -_./=:,+@%, else single-quoted. It is the subject a rule's match reads.
func QuoteArgv(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = ShellQuote(a)
	}
	return strings.Join(q, " ")
}

// ShellQuote quotes s for a POSIX shell when it is empty or holds
// anything but letters, digits and -_./=:,+@%.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
