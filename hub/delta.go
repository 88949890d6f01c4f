package hub

import (
	"bytes"
	"encoding/json"
)

// A message_delta or thought_delta event's payload is {"text": s}, always
// written by TextPayload. Deltas of one turn that are stored in the same
// commit may be joined into one event (Write.Coalesce): a client reads the
// same text in fewer, longer deltas.

// DeltaJoinMax bounds a joined delta's payload: small enough that its wire
// form never passes the smallest limits.liveEventBytes (4096), so joining
// never makes an event that a stream sends cut.
const DeltaJoinMax = 2048

const (
	textPayloadStart = `{"text":"`
	textPayloadEnd   = `"}`
)

// TextPayload is {"text": s}, built without reflection: the hot path of a
// streaming turn.
func TextPayload(s string) json.RawMessage {
	q, _ := json.Marshal(s)
	b := make([]byte, 0, len(q)+10)
	b = append(b, `{"text":`...)
	b = append(b, q...)
	return append(b, '}')
}

// JoinTextPayloads returns the payload of a's text followed by b's, both
// made by TextPayload, reusing a's array when it has room (a must not be
// used afterwards). ok is false, and a is left as it was, when either is
// not in TextPayload's form or the result would pass max bytes.
//
// It joins the strings' JSON forms, not their texts: json.Marshal writes
// a string rune by rune, each as a whole escape or as its UTF-8 bytes, so
// the inside of Marshal(x+y) is the inside of Marshal(x) followed by that
// of Marshal(y).
func JoinTextPayloads(a, b json.RawMessage, max int) (joined json.RawMessage, ok bool) {
	if !isTextPayload(a) || !isTextPayload(b) || len(a)+len(b)-len(textPayloadStart)-len(textPayloadEnd) > max {
		return a, false
	}
	joined = append(a[:len(a)-len(textPayloadEnd)], b[len(textPayloadStart):]...)
	return joined, true
}

// isTextPayload reports whether p has TextPayload's form: the one key,
// then one string (no unescaped quote inside, no escape left open) that
// ends at p's closing quote.
func isTextPayload(p json.RawMessage) bool {
	if len(p) < len(textPayloadStart)+len(textPayloadEnd) ||
		!bytes.HasPrefix(p, []byte(textPayloadStart)) || !bytes.HasSuffix(p, []byte(textPayloadEnd)) {
		return false
	}
	inner := p[len(textPayloadStart) : len(p)-len(textPayloadEnd)]
	for i := 0; i < len(inner); i++ {
		switch inner[i] {
		case '\\':
			i++ // the escaped byte; past the end: an escape left open
			if i == len(inner) {
				return false
			}
		case '"':
			return false
		}
	}
	return true
}
