package app

import (
	"bytes"
	"io"
	"sync/atomic"
)

// A session/cancel must not be lost when it overtakes its prompt. The
// editor sends session/prompt, then session/cancel; the ACP connection
// reads them in that order, but runs each request's handler on a goroutine
// of its own while it handles notifications in line, so the cancel may be
// handled before the prompt's handler has registered its turn.
//
// The bridge therefore counts the session/prompt requests as they are read
// off stdin (promptSniffer: before the connection can dispatch anything
// that follows them) and as their handlers start. A cancel for a session
// with no prompt running, handled while some prompt read before it has not
// started, is remembered with that count; the session's next prompt to
// start, if it can be one of those (fewer prompts had started than had
// been read when the cancel came), answers "cancelled" at once without
// starting a hub turn. A cancel with every prompt read already started is
// stale (its prompt has ended) and ignored, as ACP says.

// promptPattern is how a session/prompt request shows in a JSON line: the
// method's string. (Inside any other string its quotes would be escaped.)
var promptPattern = []byte(`"session/prompt"`)

// promptSniffer reads r and calls seen once for every line that holds a
// session/prompt request, before handing that line's last byte on.
type promptSniffer struct {
	r    io.Reader
	seen func()
	// carry is the end of the current line, shorter than promptPattern, in
	// case the pattern straddles two reads; matched says the current line
	// has been counted.
	carry   []byte
	matched bool
}

func (s *promptSniffer) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.scan(p[:n])
	return n, err
}

func (s *promptSniffer) scan(b []byte) {
	for len(b) > 0 {
		line, rest, eol := bytes.Cut(b, []byte{'\n'})
		if !s.matched {
			head := line[:min(len(line), len(promptPattern)-1)]
			joined := append(s.carry[:len(s.carry):len(s.carry)], head...)
			if bytes.Contains(joined, promptPattern) || bytes.Contains(line, promptPattern) {
				s.matched = true
				s.seen()
			}
			if k := len(promptPattern) - 1; len(line) >= k {
				s.carry = append(s.carry[:0], line[len(line)-k:]...)
			} else if s.carry = append(s.carry, line...); len(s.carry) > k {
				s.carry = append(s.carry[:0], s.carry[len(s.carry)-k:]...)
			}
		}
		if !eol {
			return
		}
		s.matched, s.carry = false, s.carry[:0]
		b = rest
	}
}

// promptCounts are the session/prompt requests read and started.
type promptCounts struct {
	read, started atomic.Int64
}
