package httpapi

import (
	"encoding/json"
	"errors"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
)

func TestRequestLogLine(t *testing.T) {
	var buf testkit.Buffer
	h := newHarness(t, func(o *Options) { o.Logger = slog.New(slog.NewJSONHandler(&buf, nil)) })
	h.call("GET", "/v1/agents?scope=all", "")
	var lines []map[string]any
	waitFor(t, "the log line", func() bool {
		lines = nil
		for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
			var m map[string]any
			if json.Unmarshal([]byte(l), &m) == nil && m["msg"] == "http request" {
				lines = append(lines, m)
			}
		}
		return len(lines) == 1
	})
	m := lines[0]
	if m["method"] != "GET" || m["path"] != "/v1/agents" || m["status"] != 200.0 || m["clientId"] != "c1" {
		t.Fatalf("log line %v", m)
	}
	if b, ok := m["bytes"].(float64); !ok || b < 10 {
		t.Fatalf("bytes %v", m["bytes"])
	}
	if _, ok := m["duration"].(float64); !ok {
		t.Fatalf("duration %v", m["duration"])
	}
	if strings.Contains(buf.String(), "scope=all") {
		t.Fatal("the query string was logged")
	}
}

func TestLogsNeverContainSecrets(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.PingInterval = 10 * time.Millisecond })
	code := h.loginLink("/")
	c := h.signIn(code)
	h.call("GET", "/auth?code=wrong-code-guess", "", noToken)
	h.call("GET", "/auth?token="+testToken, "", noToken)
	h.call("GET", "/v1/agents", "", bearer(c))
	h.call("POST", "/v1/auth/logout", "", bearer("wrong-session-guess"))
	h.call("GET", "/v1/agents", "", withHeader("Authorization", "Bearer wrong-bearer-guess"))
	h.call("GET", "/v1/agents?token="+testToken, "", noToken)
	h.call("GET", "/v1/threads/x", "")
	h.fake.failNext(errors.New("internal trouble"))
	h.call("GET", "/v1/agents", "")
	h.call("GET", "/v1/agents", "", withHeader("Origin", "http://evil"), bearer(c))
	id := h.newThread("c1")
	s := h.openStream(turnStreamRequest(h, id, "one two", bearer(c)))
	s.rest()
	waitFor(t, "every request logged", func() bool { return strings.Count(h.logs.String(), "http request") >= 12 })

	logs := h.logs.String()
	for _, secret := range []string{testToken, testToken[:16], c, c[:16], code, "wrong-code-guess", "wrong-session-guess", "wrong-bearer-guess", "token=", "?code", "Bearer", "sessionStorage"} {
		if strings.Contains(logs, secret) {
			t.Fatalf("the log contains %q:\n%s", secret, logs)
		}
	}
	if !strings.Contains(logs, "path=/auth") || !strings.Contains(logs, "status=200") || !strings.Contains(logs, "status=401") {
		t.Fatalf("the /auth request is not logged:\n%s", logs)
	}
}

func TestLogPathTruncated(t *testing.T) {
	h := newHarness(t)
	h.call("GET", "/v1/"+strings.Repeat("a", 1000), "")
	waitFor(t, "the log line", func() bool { return strings.Contains(h.logs.String(), "http request") })
	if strings.Contains(h.logs.String(), strings.Repeat("a", 300)) {
		t.Fatal("a long path is logged whole")
	}
}

// A 204 is logged with its status and no bytes.
func TestLogNoContent(t *testing.T) {
	h := newHarness(t)
	h.call("DELETE", "/v1/threads/"+h.newThread("c1"), "")
	waitFor(t, "the log line", func() bool { return strings.Contains(h.logs.String(), "method=DELETE") })
	if !regexp.MustCompile(`method=DELETE path=/v1/threads/\S+ status=204 duration=\S+ bytes=0`).MatchString(h.logs.String()) {
		t.Fatalf("log:\n%s", h.logs.String())
	}
}
