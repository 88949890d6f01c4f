package acp

import (
	"encoding/json"
	"errors"
	"testing"
	"time"
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
		{`{"message":"You've hit your usage limit. Try again at 3:05 PM.","codex_error_info":"usage_limit_exceeded"}`, true}, // codex-acp
		{`{"message":"rate limited","codex_error_info":"rate_limit_exceeded"}`, true},
		{`{"codexErrorInfo":"usageLimitExceeded"}`, true},
		{`{"codex_error_info":{"model_cap":{"model":"gpt-5","reset_after_seconds":null}}}`, true},
		{`{"codex_error_info":{"model_cap":{"model":"gpt-5","reset_after_seconds":1e12}}}`, true}, // past a week: no reset taken
		{`{"codex_error_info":{"model_cap":{"model":"gpt-5","reset_after_seconds":600}}}`, false}, // a reset: RateLimitFromError
		{`{"codex_error_info":"context_window_exceeded"}`, false},
		{`{"codex_error_info":{"http_connection_failed":{"http_status_code":429}}}`, false},
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

// codex-acp's model cap with a reset: the limit ends that many seconds
// from now (both spellings); without one, or past a week, there is none.
func TestRateLimitFromCodexError(t *testing.T) {
	for _, data := range []string{
		`{"message":"cap","codex_error_info":{"model_cap":{"model":"gpt-5","reset_after_seconds":600}}}`,
		`{"codexErrorInfo":{"modelCap":{"model":"gpt-5","resetAfterSeconds":600}}}`,
	} {
		before := time.Now()
		rl := RateLimitFromError(&Error{Code: -32603, Message: "Internal error", Data: json.RawMessage(data)})
		if rl == nil || rl.Type != "model_cap" || rl.Until.Before(before.Add(599*time.Second)) || rl.Until.After(time.Now().Add(601*time.Second)) {
			t.Errorf("%s: %+v, want model_cap about 600 s from now", data, rl)
		}
	}
	for _, data := range []string{
		`{"codex_error_info":"usage_limit_exceeded"}`,
		`{"codex_error_info":{"model_cap":{"model":"gpt-5"}}}`,
		`{"codex_error_info":{"model_cap":{"model":"gpt-5","reset_after_seconds":-5}}}`,
		`{"codex_error_info":{"model_cap":{"model":"gpt-5","reset_after_seconds":"soon"}}}`,
	} {
		if rl := RateLimitFromError(&Error{Code: -32603, Data: json.RawMessage(data)}); rl != nil {
			t.Errorf("%s: %+v, want no reset time", data, rl)
		}
	}
}
