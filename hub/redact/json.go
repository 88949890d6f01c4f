package redact

import (
	"bytes"
	"encoding/json"
)

// JSON returns raw with the secrets inside its string values (and keys)
// redacted, and whether it changed anything. Everything outside a string
// that holds a secret is kept byte for byte, so valid JSON stays valid and
// a clean document is returned as is (the same slice).
func JSON(raw []byte) ([]byte, bool) {
	if !maybeSecretBytes(raw) {
		return raw, false
	}
	var out []byte
	last := 0 // raw[last:] is not yet copied to out
	for i := 0; i < len(raw); i++ {
		if raw[i] != '"' {
			continue
		}
		end, escaped := stringEnd(raw, i)
		if end < 0 {
			break // not valid JSON: leave the rest as it is
		}
		lit := raw[i : end+1]
		if r, ok := redactLiteral(lit, escaped); ok {
			out = append(out, raw[last:i]...)
			out = append(out, r...)
			last = end + 1
		}
		i = end
	}
	if out == nil {
		return raw, false
	}
	return append(out, raw[last:]...), true
}

// stringEnd returns the index of the quote closing the JSON string that
// opens at raw[start], and whether the string has escapes; -1 if it does
// not close.
func stringEnd(raw []byte, start int) (int, bool) {
	escaped := false
	for j := start + 1; j < len(raw); j++ {
		switch raw[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j, escaped
		}
	}
	return -1, escaped
}

// redactLiteral redacts one JSON string literal (quotes included).
func redactLiteral(lit []byte, escaped bool) ([]byte, bool) {
	if !maybeSecretBytes(lit) {
		return nil, false
	}
	if !escaped {
		r, ok := String(string(lit[1 : len(lit)-1]))
		if !ok {
			return nil, false
		}
		// A marker adds no character that needs escaping.
		return append(append([]byte{'"'}, r...), '"'), true
	}
	var s string
	if json.Unmarshal(lit, &s) != nil {
		return nil, false
	}
	r, ok := String(s)
	if !ok {
		return nil, false
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(r) != nil {
		return nil, false
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), true
}

var keyMarkerBytes = []byte(keyMarker)

// maybeSecretBytes is maybeSecret for a byte slice, without copying it.
func maybeSecretBytes(b []byte) bool {
	if bytes.Contains(b, keyMarkerBytes) {
		return true
	}
	for i := range rules {
		for _, p := range rules[i].prefixBytes {
			if bytes.Contains(b, p) {
				return true
			}
		}
	}
	return false
}
