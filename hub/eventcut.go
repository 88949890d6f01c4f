package hub

import (
	"bytes"
	"encoding/json"
)

// CutEvent returns e's wire form (MarshalJSON), cut to about limit bytes
// when it is longer: its longest string values are shortened (each to the
// same cap, at a UTF-8 boundary) until the whole fits, and the payload
// gains "truncated": true and "bytes": <the full wire form's length>. An
// event whose size is not in its strings (a huge array of small values)
// keeps only seq, type, threadId, turnId and at, with those two fields.
// cut reports whether it cut. The stored event is not changed: history
// serves it whole. limit ≤ 0 means no limit. A client_request event is
// never cut: its owner acts on it (writes its content to a file), and a
// cut one would be a wrong write.
func CutEvent(e Event, limit int) (data []byte, cut bool, err error) {
	data, err = e.MarshalJSON()
	if err != nil || limit <= 0 || len(data) <= limit || e.Type == EventClientRequest {
		return data, false, err
	}
	full := len(data)
	var payload map[string]any
	dec := json.NewDecoder(bytes.NewReader(e.Payload))
	dec.UseNumber()
	if dec.Decode(&payload) != nil {
		payload = nil
	}
	budget := limit - 128 // room for the two fields added
	longest := 0
	walkStrings(payload, func(s string) { longest = max(longest, len(s)) })
	for capLen := min(longest/2, budget); payload != nil; capLen /= 2 {
		cutPayload := cutStrings(payload, capLen).(map[string]any)
		cutPayload["truncated"], cutPayload["bytes"] = true, full
		p, _ := json.Marshal(cutPayload)
		c := e
		c.Payload = p
		if out, err := c.MarshalJSON(); err == nil && len(out) <= budget {
			return out, true, nil
		}
		if capLen == 0 {
			break
		}
	}
	c := e
	c.Payload, _ = json.Marshal(map[string]any{"truncated": true, "bytes": full})
	out, err := c.MarshalJSON()
	return out, true, err
}

// cutStrings returns a copy of v (decoded JSON) with every string value
// longer than n bytes cut to at most n, at a rune boundary. Object keys
// are kept.
func cutStrings(v any, n int) any {
	switch x := v.(type) {
	case string:
		return CutUTF8(x, n)
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, val := range x {
			m[k] = cutStrings(val, n)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, val := range x {
			a[i] = cutStrings(val, n)
		}
		return a
	}
	return v
}

// walkStrings calls f on every string value in v (decoded JSON).
func walkStrings(v any, f func(string)) {
	switch x := v.(type) {
	case string:
		f(x)
	case map[string]any:
		for _, val := range x {
			walkStrings(val, f)
		}
	case []any:
		for _, val := range x {
			walkStrings(val, f)
		}
	}
}
