package redact

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// HoldBack bounds what a Stream keeps unreleased: at most the last
// HoldBack bytes of the text it was given.
const HoldBack = 256

// keyEndMax bounds an END line ("-----END … PRIVATE KEY-----"): inside a
// private-key block a Stream keeps only this much of the text, to find an
// END line split across chunks.
const keyEndMax = 96

// Stream redacts text that arrives in chunks: one message of an agent, one
// terminal's output. Write returns the part of the text so far that can no
// longer be the start of a secret, redacted; the rest (at most HoldBack
// bytes, usually only the last word) waits for the next chunk. Close
// releases it. The concatenation of everything Write and Close return is
// the redacted whole text, as String would give it, except that a secret
// longer than HoldBack may be released in parts.
//
// Inside a private-key block (BEGIN seen, END not yet), the text is
// dropped as it comes: the block's marker was released with the BEGIN
// line, and its END line, when it comes, ends it.
//
// A Stream is not safe for concurrent use.
type Stream struct {
	pending string // received, not yet released
	inKey   bool   // inside a private-key block
	closed  bool   // Close was called: each Write releases everything
}

// Write adds chunk to the text and returns what it releases (possibly "").
func (s *Stream) Write(chunk string) string {
	return s.release(s.pending+chunk, s.closed)
}

// Close releases what is held back; Writes after it release at once.
func (s *Stream) Close() string {
	s.closed = true
	return s.release(s.pending, true)
}

// Pending reports how many bytes are held back.
func (s *Stream) Pending() int { return len(s.pending) }

// Holding reports whether Close would change anything: text is held back,
// or a private-key block is open.
func (s *Stream) Holding() bool { return s.pending != "" || s.inKey }

func (s *Stream) release(buf string, final bool) string {
	var out strings.Builder
	for {
		if s.inKey {
			loc := keyEnd.FindStringIndex(buf)
			if loc == nil {
				if final {
					buf = ""
				} else if len(buf) > keyEndMax {
					buf = buf[len(buf)-keyEndMax:]
				}
				s.pending = buf
				return out.String()
			}
			buf = buf[loc[1]:]
			s.inKey = false
			continue
		}
		if strings.Contains(buf, keyMarker) {
			if loc := keyBegin.FindStringIndex(buf); loc != nil {
				r, _ := String(buf[:loc[0]])
				out.WriteString(r)
				out.WriteString(privateKeyMarker)
				buf = buf[loc[1]:]
				s.inKey = true
				continue
			}
		}
		cut := len(buf)
		if !final {
			cut = holdFrom(buf)
		}
		r, _ := String(buf[:cut])
		out.WriteString(r)
		s.pending = buf[cut:]
		return out.String()
	}
}

// holdFrom returns where the part of buf that may still become a secret
// starts: the trailing run of characters a token is made of, an unfinished
// "-----BEGIN" line, a line naming an AWS secret key whose value may still
// come. It is at least len(buf)-HoldBack, moved forward past a secret that
// starts before that point.
func holdFrom(buf string) int {
	floor := max(0, len(buf)-HoldBack)
	for floor < len(buf) && !utf8.RuneStart(buf[floor]) {
		floor++ // never split a character
	}
	cut := len(buf)
	for cut > floor && isTokenChar(buf[cut-1]) {
		cut--
	}
	if cut == floor && floor > 0 && isTokenChar(buf[floor-1]) {
		cut = -1 // the run goes on below the floor
	}
	tail := buf[floor:]
	if i := strings.LastIndex(tail, keyMarker); i >= 0 && cut >= 0 {
		cut = min(cut, floor+i)
	}
	if i := lastIndexAWS(tail); i >= 0 && cut >= 0 && awsLineStart.MatchString(tail[i:]) {
		cut = min(cut, floor+i)
	}
	if cut >= floor {
		return cut
	}
	// The held part would exceed HoldBack: release up to the floor, or
	// past the end of a secret that straddles it.
	cut = floor
	if maybeSecret(buf) {
		for i := range rules {
			for _, m := range rules[i].re.FindAllStringIndex(buf, -1) {
				if m[0] < cut && m[1] > cut {
					cut = m[1]
				}
			}
		}
	}
	return cut
}

// awsLineStart matches the start of an AWS secret-key line up to the end of
// the text: a line that may still become one when the next chunk comes.
var awsLineStart = regexp.MustCompile(`(?i)^aws[a-z_]*["']?\s*(?:[:=]\s*["']?[A-Za-z0-9/+]*)?$`)

// isTokenChar reports whether c can be part of a token the rules match.
func isTokenChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '-' || c == '/' || c == '+'
}

// lastIndexAWS is the last index of "aws" in s, in any case, on its last
// line, or -1.
func lastIndexAWS(s string) int {
	line := s[strings.LastIndexByte(s, '\n')+1:]
	base := len(s) - len(line)
	for i := len(line) - 3; i >= 0; i-- {
		if (line[i]|0x20) == 'a' && (line[i+1]|0x20) == 'w' && (line[i+2]|0x20) == 's' {
			return base + i
		}
	}
	return -1
}
