package acp

import (
	"sync"
	"unicode/utf8"
)

// Ring is a bounded byte buffer that keeps the most recent bytes written to
// it and counts the ones it had to drop. It holds an agent's stderr and a
// terminal's output.
//
// Ring is an io.Writer whose Write never blocks on anything but its own
// mutex and never fails, so a writer draining a child's pipe into it keeps
// the child from ever blocking on a full pipe. All methods are safe for
// concurrent use. Memory grows with the data written, up to the limit, so a
// large limit costs nothing until it is used.
type Ring struct {
	max int

	mu      sync.Mutex
	buf     []byte // len(buf) < max until full; then exactly max, circular
	start   int    // index of the oldest byte once full; 0 before
	written int64  // total bytes ever written
}

// NewRing returns a Ring that keeps the last max bytes. A max of 0 or less
// keeps nothing (everything written is counted as dropped).
func NewRing(max int) *Ring {
	if max < 0 {
		max = 0
	}
	return &Ring{max: max}
}

// Write appends p, discarding the oldest bytes beyond the limit. It always
// returns len(p), nil.
func (r *Ring) Write(p []byte) (int, error) {
	n := len(p)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.written += int64(n)
	if r.max == 0 {
		return n, nil
	}
	if len(p) > r.max {
		p = p[len(p)-r.max:]
	}
	if room := r.max - len(r.buf); room > 0 {
		k := min(room, len(p))
		r.buf = append(r.buf, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 {
		return n, nil
	}
	// Full: overwrite the oldest bytes in place.
	c := copy(r.buf[r.start:], p)
	copy(r.buf, p[c:])
	r.start = (r.start + len(p)) % r.max
	return n, nil
}

// Bytes returns a copy of the retained bytes, oldest first.
func (r *Ring) Bytes() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bytesLocked()
}

func (r *Ring) bytesLocked() []byte {
	out := make([]byte, 0, len(r.buf))
	out = append(out, r.buf[r.start:]...)
	return append(out, r.buf[:r.start]...)
}

// Tail returns the retained bytes as a string. When bytes were dropped, the
// result starts at a UTF-8 character boundary: continuation bytes of a
// character whose start was dropped are trimmed too. Invalid UTF-8 in the
// data itself is returned as is.
func (r *Ring) Tail() string {
	s, _ := r.Snapshot()
	return s
}

// Snapshot returns Tail and whether anything was dropped, taken atomically.
func (r *Ring) Snapshot() (tail string, truncated bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	b := r.bytesLocked()
	truncated = r.written > int64(len(b))
	if truncated {
		for i := 0; i < utf8.UTFMax-1 && len(b) > 0 && !utf8.RuneStart(b[0]); i++ {
			b = b[1:]
		}
	}
	return string(b), truncated
}

// Dropped reports how many bytes were discarded to stay within the limit.
func (r *Ring) Dropped() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.written - int64(len(r.buf))
}

// Written reports how many bytes were ever written.
func (r *Ring) Written() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.written
}
