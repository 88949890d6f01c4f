package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

func TestErrorMapping(t *testing.T) {
	h := newHarness(t)
	cases := []struct {
		code   string
		status int
	}{
		{hub.CodeInvalidArgument, 400},
		{hub.CodeUnauthorized, 401},
		{hub.CodeForbidden, 403},
		{hub.CodeNotFound, 404},
		{hub.CodeConflict, 409},
		{hub.CodeGone, 410},
		{hub.CodeTooManyRequests, 429},
		{hub.CodeTimeout, 504},
		{hub.CodeUpstreamUnavailable, 502},
		{hub.CodeInternal, 500},
	}
	for _, c := range cases {
		t.Run(c.code, func(t *testing.T) {
			h.fake.failNext(fmt.Errorf("wrapped: %w", &hub.Error{
				Code: c.code, Message: "the message", Details: map[string]any{"k": "v"},
				Err: errors.New("secret cause"),
			}))
			r := h.call("GET", "/v1/agents", "")
			if r.status != c.status {
				t.Fatalf("status %d, want %d", r.status, c.status)
			}
			var b ErrorBody
			if err := json.Unmarshal(r.body, &b); err != nil {
				t.Fatal(err)
			}
			if b.Error.Code != c.code || b.Error.Message != "the message" || b.Error.Details["k"] != "v" {
				t.Fatalf("body %s", r.body)
			}
			if strings.Contains(string(r.body), "secret cause") {
				t.Fatal("the cause reached the client")
			}
			if r.header.Get("Content-Type") != "application/json" {
				t.Fatalf("Content-Type %q", r.header.Get("Content-Type"))
			}
			if got, want := r.header.Get("Retry-After") != "", c.status == 429; got != want {
				t.Fatalf("Retry-After %q on %d", r.header.Get("Retry-After"), c.status)
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	h := newHarness(t)
	for d, want := range map[time.Duration]string{0: "1", 300 * time.Millisecond: "1", 2500 * time.Millisecond: "3", 30 * time.Second: "30"} {
		h.fake.failNext(&hub.Error{Code: hub.CodeTooManyRequests, Message: "busy", RetryAfter: d})
		r := h.call("GET", "/v1/agents", "")
		if r.status != 429 || r.header.Get("Retry-After") != want {
			t.Fatalf("RetryAfter %v: %d Retry-After %q, want %q", d, r.status, r.header.Get("Retry-After"), want)
		}
	}
}

func TestErrorDetailsAlwaysAnObject(t *testing.T) {
	h := newHarness(t)
	h.fake.failNext(hub.Errorf(hub.CodeConflict, "busy"))
	r := h.call("GET", "/v1/agents", "")
	if !strings.Contains(string(r.body), `"details":{}`) {
		t.Fatalf("body %s", r.body)
	}
}

func TestNonHubErrorIsGeneric500(t *testing.T) {
	h := newHarness(t)
	h.fake.failNext(errors.New("disk on fire at /var/secret"))
	r := h.call("GET", "/v1/agents", "")
	if r.status != 500 || r.code() != "INTERNAL" || strings.Contains(string(r.body), "disk on fire") {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if !strings.Contains(h.logs.String(), "disk on fire") {
		t.Fatal("the cause is not logged")
	}
}

func TestUnknownCodeIs500(t *testing.T) {
	h := newHarness(t)
	h.fake.failNext(&hub.Error{Code: "WEIRD", Message: "leaky"})
	r := h.call("GET", "/v1/agents", "")
	if r.status != 500 || r.code() != "INTERNAL" || strings.Contains(string(r.body), "leaky") {
		t.Fatalf("%d %s", r.status, r.body)
	}
}

func TestMalformedJSON(t *testing.T) {
	h := newHarness(t)
	cases := map[string]string{
		"empty":         ``,
		"whitespace":    `   `,
		"syntax":        `{"agent":`,
		"garbage":       `not json`,
		"array":         `[1,2]`,
		"string":        `"x"`,
		"unknown field": `{"agent":"echo","cwd":"/tmp","color":"red"}`,
		"wrong type":    `{"agent":42,"cwd":"/tmp"}`,
		"trailing":      `{"agent":"echo","cwd":"/tmp"} {}`,
		"trailing junk": `{"agent":"echo","cwd":"/tmp"}x`,
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			req := h.request("POST", "/v1/threads", body)
			req.Header.Set("Content-Type", "application/json")
			r := h.send(req)
			if r.status != 400 || r.code() != "INVALID_ARGUMENT" {
				t.Fatalf("%d %s", r.status, r.body)
			}
			var b ErrorBody
			_ = json.Unmarshal(r.body, &b)
			if b.Error.Message == "" || b.Error.Message == "internal error" {
				t.Fatalf("unhelpful message %q", b.Error.Message)
			}
		})
	}
	r := h.call("POST", "/v1/threads", `{"agent":"echo","cwd":"/tmp","color":"red"}`)
	if !strings.Contains(string(r.body), `color`) {
		t.Fatalf("unknown field not named: %s", r.body)
	}
	r = h.call("POST", "/v1/threads", `{"agent":42,"cwd":"/tmp"}`)
	if !strings.Contains(string(r.body), `agent`) || !strings.Contains(string(r.body), `a string`) {
		t.Fatalf("wrong type not explained: %s", r.body)
	}
}

func TestPanicIs500(t *testing.T) {
	h := newHarness(t)
	h.fake.mu.Lock()
	h.fake.panicNext = true
	h.fake.mu.Unlock()
	r := h.call("GET", "/v1/agents", "")
	if r.status != 500 || r.code() != "INTERNAL" {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if !strings.Contains(h.logs.String(), "handler panic") {
		t.Fatal("panic not logged")
	}
}
