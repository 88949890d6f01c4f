package httpapi

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// login runs GET /auth?token=… and returns the session cookie.
func (h *harness) login() *http.Cookie {
	h.t.Helper()
	r := h.call("GET", "/auth?token="+testToken, "", noToken, withHeader("X-Client-ID", ""))
	if r.status != http.StatusSeeOther {
		h.t.Fatalf("/auth: %d %s", r.status, r.body)
	}
	cookies := (&http.Response{Header: r.header}).Cookies()
	if len(cookies) != 1 {
		h.t.Fatalf("/auth set %d cookies", len(cookies))
	}
	return cookies[0]
}

func withCookie(c *http.Cookie) reqOpt { return func(r *http.Request) { r.AddCookie(c) } }

func TestCookieLogin(t *testing.T) {
	h := newHarness(t)
	for _, q := range []string{"", "?token=", "?token=wrong", "?token=" + testToken[:10], "?tok=" + testToken} {
		r := h.call("GET", "/auth"+q, "", noToken)
		if r.status != 401 || r.code() != "UNAUTHORIZED" || len(r.header.Values("Set-Cookie")) != 0 {
			t.Fatalf("/auth%s: %d %s %v", q, r.status, r.body, r.header.Values("Set-Cookie"))
		}
	}
	// A bearer header is no substitute for the query token here, nor the
	// reverse elsewhere.
	if r := h.call("GET", "/auth", ""); r.status != 401 {
		t.Fatalf("/auth with only a bearer header: %d", r.status)
	}

	r := h.call("GET", "/auth?token="+testToken, "", noToken)
	if r.status != http.StatusSeeOther {
		t.Fatalf("/auth: %d", r.status)
	}
	if loc := r.header.Get("Location"); loc != "/" {
		t.Fatalf("redirect to %q, want / (without the token)", loc)
	}
	if strings.Contains(string(r.body), testToken) {
		t.Fatal("the answer repeats the token")
	}
	if r.header.Get("Cache-Control") != "no-store" || r.header.Get("Referrer-Policy") != "no-referrer" {
		t.Fatalf("headers %v", r.header)
	}
	raw := r.header.Get("Set-Cookie")
	for _, flag := range []string{"HttpOnly", "SameSite=Strict", "Path=/"} {
		if !strings.Contains(raw, flag) {
			t.Fatalf("cookie %q lacks %s", raw, flag)
		}
	}
	c := (&http.Response{Header: r.header}).Cookies()[0]
	if c.Name != "switchboard_session_"+strconv.Itoa(h.port) {
		t.Fatalf("cookie name %q", c.Name)
	}
	if c.Value == "" || strings.Contains(c.Value, testToken) || strings.Contains(raw, testToken) || len(c.Value) < 40 {
		t.Fatalf("cookie value %q must be a session id, not the token", c.Value)
	}
	if c.MaxAge <= 0 {
		t.Fatalf("cookie Max-Age %d", c.MaxAge)
	}

	// The cookie stands in for the bearer header…
	if r := h.call("GET", "/v1/agents", "", noToken, withCookie(c)); r.status != 200 {
		t.Fatalf("with the cookie: %d %s", r.status, r.body)
	}
	// …with the same Host, Origin and X-Client-ID checks.
	p := strconv.Itoa(h.port)
	if r := h.call("GET", "/v1/agents", "", noToken, withCookie(c), withHeader("Origin", "http://evil.example")); r.status != 403 {
		t.Fatalf("cookie with evil origin: %d", r.status)
	}
	if r := h.call("GET", "/v1/agents", "", noToken, withCookie(c), withHeader("Origin", "http://localhost:"+p)); r.status != 200 {
		t.Fatalf("cookie with own origin: %d", r.status)
	}
	if r := h.call("GET", "/v1/agents", "", noToken, withCookie(c), withHost("evil.example:"+p)); r.status != 403 {
		t.Fatalf("cookie with evil host: %d", r.status)
	}
	if r := h.call("GET", "/v1/agents", "", noToken, withCookie(c), withHeader("X-Client-ID", "")); r.status != 400 {
		t.Fatalf("cookie without client id: %d", r.status)
	}
	// A wrong bearer header is not rescued by a good cookie.
	if r := h.call("GET", "/v1/agents", "", withHeader("Authorization", "Bearer wrong"), withCookie(c)); r.status != 401 {
		t.Fatalf("wrong bearer + cookie: %d", r.status)
	}
	// Forged, foreign-port and token-valued cookies are refused.
	for _, bad := range []*http.Cookie{
		{Name: c.Name, Value: "forged"},
		{Name: c.Name, Value: testToken},
		{Name: "switchboard_session_1", Value: c.Value},
	} {
		if r := h.call("GET", "/v1/agents", "", noToken, withCookie(bad)); r.status != 401 {
			t.Fatalf("cookie %s=%s: %d", bad.Name, bad.Value, r.status)
		}
	}
	// Each login is its own session.
	if c2 := h.login(); c2.Value == c.Value {
		t.Fatal("two logins share a session id")
	}
}

func TestSessionExpires(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return now
	}
	h := newHarness(t, func(o *Options) { o.Now = clock; o.SessionTTL = time.Hour })
	c := h.login()
	if r := h.call("GET", "/v1/agents", "", noToken, withCookie(c)); r.status != 200 {
		t.Fatalf("fresh session: %d", r.status)
	}
	mu.Lock()
	now = now.Add(time.Hour)
	mu.Unlock()
	if r := h.call("GET", "/v1/agents", "", noToken, withCookie(c)); r.status != 401 {
		t.Fatalf("expired session: %d", r.status)
	}
}

func TestSessionTableBounded(t *testing.T) {
	ss := newSessions(time.Hour)
	now := time.Now()
	first, _ := ss.create(now)
	for i := 0; i < maxSessions+10; i++ {
		if _, err := ss.create(now.Add(time.Duration(i+1) * time.Millisecond)); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(ss.m); n > maxSessions {
		t.Fatalf("%d sessions kept", n)
	}
	if ss.valid(first, now) {
		t.Fatal("the oldest session survived a full table")
	}
}
