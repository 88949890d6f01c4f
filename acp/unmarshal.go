package acp

import (
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// unmarshal decodes what an agent sent on the hot path — each line's
// JSON-RPC envelope, a session/update's params, the update and its content
// — with encoding/json/v2 (its mirror, github.com/go-json-experiment/json,
// until the module's Go has it without GOEXPERIMENT; DECISIONS.md 0024).
// It validates and decodes in one pass, where encoding/json scans each
// nested value twice (a chunk line's text was scanned about nine times).
//
// It keeps encoding/json's leniency, so that an agent's line is read as
// before: invalid UTF-8 in a string becomes U+FFFD, a repeated member
// name is allowed (the last wins), and member names match fields without
// regard to case. Types with an UnmarshalJSON method (json.RawMessage,
// SessionUpdate) are decoded through it, as encoding/json does.
// TestDecodeMatchesEncodingJSON holds it to encoding/json's results.
func unmarshal(b []byte, v any) error {
	return jsonv2.Unmarshal(b, v, lenient)
}

var lenient = jsonv2.JoinOptions(
	jsontext.AllowInvalidUTF8(true),
	jsontext.AllowDuplicateNames(true),
	jsonv2.MatchCaseInsensitiveNames(true),
)
