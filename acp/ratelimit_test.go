package acp

import (
	"encoding/json"
	"errors"
	"testing"
)

// A refusal that does not say when it ends is told apart from one that
// does, and from a warning or any other error (issue 33: the hub asks the
// user instead of waiting).
func TestRateLimitedWithoutReset(t *testing.T) {
	for _, c := range []struct {
		data string
		want bool
	}{
		{`{"_claude/rateLimit":{"status":"rejected","rateLimitType":"seven_day"}}`, true},
		{`{"_meta":{"_claude/rateLimit":{"status":"rejected"}}}`, true},
		{`{"status":"rejected"}`, true},
		{`{"_claude/rateLimit":{"status":"rejected","resetsAt":1900000000}}`, false}, // a reset: RateLimitFromError
		{`{"_claude/rateLimit":{"status":"allowed_warning"}}`, false},
		{`{"other":1}`, false},
		{``, false},
	} {
		err := &Error{Code: -32603, Message: "limited", Data: json.RawMessage(c.data)}
		if got := RateLimitedWithoutReset(err); got != c.want {
			t.Errorf("%s: %v, want %v", c.data, got, c.want)
		}
	}
	if RateLimitedWithoutReset(errors.New("plain")) {
		t.Error("a plain error is not a limit")
	}
}
