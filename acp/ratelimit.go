package acp

import (
	"encoding/json"
	"errors"
	"time"
)

// RateLimit is an agent's report that its provider refused it until a
// reset time. ACP has no field for it; agents put it in _meta:
//
//   - claude-agent-acp (0.100) forwards the Claude SDK's rate_limit_event
//     in a usage_update as _meta["_claude/rateLimit"] =
//     {status: "allowed"|"allowed_warning"|"rejected", resetsAt: <unix
//     seconds>, rateLimitType: "five_hour"|"seven_day"|…}.
//
//   - the same object in a JSON-RPC error's data (data._meta or data
//     itself), for an agent that fails the prompt instead.
//
//   - codex-acp fails the prompt with an internal error whose data is
//     {message, codex_error_info}: "usage_limit_exceeded" or
//     "rate_limit_exceeded" (no reset time; the time is only in the
//     message's prose), or {"model_cap": {model, reset_after_seconds}}
//     (a reset that many seconds from now). Codex's own protocol spells
//     them in camelCase (usageLimitExceeded, modelCap, resetAfterSeconds):
//     both are read.
//
// Only "rejected" with a reset time is a limit: "allowed_warning" is a
// warning the agent carries on through.
type RateLimit struct {
	Until time.Time // when the provider accepts requests again
	Type  string    // the agent's name for the window, e.g. "five_hour"; may be ""
}

// rateLimitKey is the _meta key claude-agent-acp uses.
const rateLimitKey = "_claude/rateLimit"

// readRateLimit reads a limit from an update's _meta; nil when there is
// none, it is not a refusal, or it does not parse.
func readRateLimit(meta json.RawMessage) *RateLimit {
	if len(meta) == 0 {
		return nil
	}
	var m map[string]json.RawMessage
	if unmarshal(meta, &m) != nil {
		return nil
	}
	return parseRateLimitInfo(m[rateLimitKey])
}

// RateLimitFromError reads a limit from an error an agent answered with:
// its data's _meta, or its data itself, in the shape above; nil otherwise.
func RateLimitFromError(err error) *RateLimit {
	var e *Error
	if !errors.As(err, &e) || len(e.Data) == 0 {
		return nil
	}
	var data map[string]json.RawMessage
	if unmarshal(e.Data, &data) != nil {
		return nil
	}
	if rl := readRateLimit(data["_meta"]); rl != nil {
		return rl
	}
	if rl := parseRateLimitInfo(data[rateLimitKey]); rl != nil {
		return rl
	}
	if c := codexLimit(data); c.limited && c.resetAfter > 0 {
		return &RateLimit{Until: time.Now().Add(c.resetAfter).UTC().Truncate(time.Second), Type: c.kind}
	}
	return parseRateLimitInfo(e.Data)
}

// codexInfo is what codex-acp's error data says of a limit.
type codexInfo struct {
	limited    bool          // a usage, rate or model limit
	kind       string        // "usage_limit", "rate_limit" or "model_cap"
	resetAfter time.Duration // 0: no reset time given
}

// codexLimitMax bounds a reset codex-acp gives (a week): a larger or
// hostile value is taken as no reset time, and the user is asked.
const codexLimitMax = 7 * 24 * time.Hour

// codexLimit reads codex-acp's {codex_error_info} (see RateLimit).
func codexLimit(data map[string]json.RawMessage) codexInfo {
	raw := data["codex_error_info"]
	if len(raw) == 0 {
		raw = data["codexErrorInfo"]
	}
	var name string
	if unmarshal(raw, &name) == nil {
		switch name {
		case "usage_limit_exceeded", "usageLimitExceeded":
			return codexInfo{limited: true, kind: "usage_limit"}
		case "rate_limit_exceeded", "rateLimitExceeded":
			return codexInfo{limited: true, kind: "rate_limit"}
		}
		return codexInfo{}
	}
	var obj map[string]json.RawMessage
	if unmarshal(raw, &obj) != nil {
		return codexInfo{}
	}
	capRaw, ok := obj["model_cap"]
	if !ok {
		capRaw, ok = obj["modelCap"]
	}
	if !ok {
		return codexInfo{}
	}
	var m struct {
		Snake *float64 `json:"reset_after_seconds"`
		Camel *float64 `json:"resetAfterSeconds"`
	}
	_ = unmarshal(capRaw, &m)
	out := codexInfo{limited: true, kind: "model_cap"}
	for _, v := range []*float64{m.Snake, m.Camel} {
		if v != nil && *v > 0 && time.Duration(*v*float64(time.Second)) <= codexLimitMax {
			out.resetAfter = time.Duration(*v * float64(time.Second))
		}
	}
	return out
}

// parseRateLimitInfo reads {status, resetsAt, rateLimitType}. resetsAt is
// unix seconds (the Claude SDK's unit); a value past year 33658 in
// seconds is taken as milliseconds.
func parseRateLimitInfo(b json.RawMessage) *RateLimit {
	if len(b) == 0 {
		return nil
	}
	var info struct {
		Status        string  `json:"status"`
		ResetsAt      float64 `json:"resetsAt"`
		RateLimitType string  `json:"rateLimitType"`
	}
	if unmarshal(b, &info) != nil || info.Status != "rejected" || info.ResetsAt <= 0 {
		return nil
	}
	sec := info.ResetsAt
	if sec > 1e12 {
		sec /= 1000
	}
	return &RateLimit{Until: time.Unix(int64(sec), 0).UTC(), Type: info.RateLimitType}
}

// RateLimitedWithoutReset reports whether err is an agent's refusal for a
// usage limit that does not say when it ends: the shape above with status
// "rejected" and no resetsAt, or codex-acp's limits without
// reset_after_seconds (RateLimitFromError is nil for them). The hub
// then asks the user instead of waiting (issue 33).
func RateLimitedWithoutReset(err error) bool {
	var e *Error
	if RateLimitFromError(err) != nil || !errors.As(err, &e) || len(e.Data) == 0 {
		return false
	}
	var data map[string]json.RawMessage
	if unmarshal(e.Data, &data) != nil {
		return false
	}
	if c := codexLimit(data); c.limited {
		return true // RateLimitFromError took those with a reset
	}
	var meta map[string]json.RawMessage
	_ = unmarshal(data["_meta"], &meta)
	for _, b := range [][]byte{meta[rateLimitKey], data[rateLimitKey], e.Data} {
		var info struct {
			Status string `json:"status"`
		}
		if len(b) > 0 && unmarshal(b, &info) == nil && info.Status == "rejected" {
			return true
		}
	}
	return false
}
