package acp

import (
	"errors"
	"os"
	"strings"
	"time"
	"unicode/utf8"
)

// TerminalChunk is one call of TerminalOptions.OnOutput: what a terminal's
// command printed since the previous call.
type TerminalChunk struct {
	SessionID  string
	TerminalID string
	// Text is the output since the previous call, valid UTF-8: a character
	// is never split across chunks, and invalid bytes read as U+FFFD.
	Text string
	// Exit is set on the last call only, which comes after all the output.
	Exit *TerminalExitStatus
	// Dropped says that output beyond this chunk's Text was not streamed
	// because the terminal reached TerminalOptions.StreamLimit. It is set on
	// the call that reached the limit and on the last call; the Ring (and so
	// terminal/output) is not affected by the limit.
	Dropped bool
}

// Streaming cadence: output is passed on at most every streamInterval, or as
// soon as streamBytes are pending.
const (
	streamInterval = 200 * time.Millisecond
	streamBytes    = 32 << 10
	// defaultStreamLimit is TerminalOptions.StreamLimit's default.
	defaultStreamLimit = 1 << 20
)

// termStream passes one terminal's output to OnOutput. It is owned by the
// goroutine copying the output until that copy ends, then by terminal.wait
// for the last call: never used by two goroutines at once.
type termStream struct {
	sessionID, terminalID string
	fn                    func(TerminalChunk)
	left                  int       // bytes that may still be streamed
	pending               []byte    // read, not yet passed on
	dropped               bool      // the limit was reached
	told                  bool      // a call has carried Dropped
	last                  time.Time // of the previous call
}

// drain copies r into ring and streams the same bytes, like drain in
// process.go. It returns a channel closed when the copy has ended.
//
// The coalescing timer is a read deadline on r, so that output waiting to
// be passed on goes out within streamInterval even while the command is
// silent; without deadline support (not a pipe), output goes out on the
// next read or at exit.
func (s *termStream) drain(ring *Ring, r *os.File) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { _ = r.Close() }()
		buf := make([]byte, streamBytes)
		var deadline time.Time
		canDeadline := true
		for {
			// len(s.pending) < streamBytes here: reaching it flushes all but
			// a partial character. So no chunk exceeds streamBytes.
			n, err := r.Read(buf[:streamBytes-len(s.pending)])
			if n > 0 {
				_, _ = ring.Write(buf[:n])
				s.add(buf[:n])
			}
			timedOut := errors.Is(err, os.ErrDeadlineExceeded)
			if err != nil && !timedOut {
				return
			}
			if timedOut || len(s.pending) >= streamBytes || time.Since(s.last) >= streamInterval {
				s.flush(nil)
			}
			if !canDeadline {
				continue
			}
			want := time.Time{}
			if s.ready() > 0 {
				want = s.last.Add(streamInterval)
			}
			if !want.Equal(deadline) || timedOut {
				if r.SetReadDeadline(want) != nil {
					canDeadline = false
				}
				deadline = want
			}
		}
	}()
	return done
}

// add takes p in, up to the stream limit. Reaching the limit passes on what
// is pending at once, with Dropped.
func (s *termStream) add(p []byte) {
	if s.dropped {
		return
	}
	room := s.left - len(s.pending)
	if len(p) <= room {
		s.pending = append(s.pending, p...)
		return
	}
	s.pending = append(s.pending, p[:max(room, 0)]...)
	s.pending = s.pending[:len(s.pending)-partialRune(s.pending)]
	s.dropped = true
	s.flush(nil)
}

// ready is how many pending bytes can be passed on now: all but the start
// of a character whose remaining bytes have not been read yet.
func (s *termStream) ready() int { return len(s.pending) - partialRune(s.pending) }

// flush calls OnOutput with the ready bytes, if any, or with everything and
// exit when exit is set (the last call, made even without text).
func (s *termStream) flush(exit *TerminalExitStatus) {
	n := len(s.pending)
	if exit == nil {
		n = s.ready()
		if n == 0 && (!s.dropped || s.told) {
			return
		}
	}
	text := string(s.pending[:n])
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	s.pending = append(s.pending[:0], s.pending[n:]...)
	s.left -= n
	s.told = s.dropped
	s.last = time.Now()
	s.fn(TerminalChunk{SessionID: s.sessionID, TerminalID: s.terminalID, Text: text, Exit: exit, Dropped: s.dropped})
}

// partialRune is the length of the incomplete UTF-8 sequence that ends b,
// if any: the first bytes of a character whose other bytes may still come.
func partialRune(b []byte) int {
	for i := 1; i < utf8.UTFMax && i <= len(b); i++ {
		if c := b[len(b)-i]; utf8.RuneStart(c) {
			if c >= utf8.RuneSelf && !utf8.FullRune(b[len(b)-i:]) {
				return i
			}
			return 0
		}
	}
	return 0
}
