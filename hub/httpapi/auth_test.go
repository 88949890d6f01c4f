package httpapi

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is a settable clock for session and code expiry.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// loginLink asks for a login link with the token and returns its code.
func (h *harness) loginLink(next string) string {
	h.t.Helper()
	var link LoginLink
	h.mustJSON(h.call("POST", "/v1/auth/codes", `{"next":`+strconv.Quote(next)+`}`), http.StatusCreated, &link)
	u, err := url.Parse(link.URL)
	if err != nil || u.Host != "127.0.0.1:"+strconv.Itoa(h.port) || u.Path != "/auth" || strings.Contains(link.URL, testToken) {
		h.t.Fatalf("login link %q", link.URL)
	}
	return u.Query().Get("code")
}

var secretInPage = regexp.MustCompile(`sessionStorage\.setItem\("switchboard\.session", "([A-Za-z0-9_-]+)"\)`)

// signIn trades code at GET /auth and returns the session secret the page
// stores.
func (h *harness) signIn(code string) string {
	h.t.Helper()
	r := h.call("GET", "/auth?code="+url.QueryEscape(code), "", noToken, withHeader("X-Client-ID", ""))
	if r.status != http.StatusOK {
		h.t.Fatalf("/auth?code=: %d %s", r.status, r.body)
	}
	m := secretInPage.FindSubmatch(r.body)
	if m == nil {
		h.t.Fatalf("no session secret in the page:\n%s", r.body)
	}
	return string(m[1])
}

func bearer(secret string) reqOpt { return withHeader("Authorization", "Bearer "+secret) }

func TestLoginCode(t *testing.T) {
	clock := newFakeClock()
	h := newHarness(t, func(o *Options) { o.Now = clock.Now })

	code := h.loginLink("/#/t/th_1")
	r := h.call("GET", "/auth?code="+code, "", noToken)
	if r.status != 200 || len(r.header.Values("Set-Cookie")) != 0 {
		t.Fatalf("/auth?code=: %d cookies %v", r.status, r.header.Values("Set-Cookie"))
	}
	for k, want := range map[string]string{
		"Cache-Control": "no-store", "Referrer-Policy": "no-referrer", "Content-Type": "text/html; charset=utf-8",
	} {
		if got := r.header.Get(k); got != want {
			t.Errorf("%s: %q, want %q", k, got, want)
		}
	}
	csp := r.header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "script-src 'nonce-") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("CSP %q", csp)
	}
	if !strings.Contains(string(r.body), `location.replace("/#/t/th_1")`) || strings.Contains(string(r.body), testToken) {
		t.Fatalf("page:\n%s", r.body)
	}
	secret := string(secretInPage.FindSubmatch(r.body)[1])

	// The secret is a bearer like the token, with the same other checks.
	if r := h.call("GET", "/v1/agents", "", bearer(secret)); r.status != 200 {
		t.Fatalf("with the session: %d %s", r.status, r.body)
	}
	p := strconv.Itoa(h.port)
	for name, opt := range map[string]reqOpt{
		"evil origin": withHeader("Origin", "http://evil.example"),
		"evil host":   withHost("evil.example:" + p),
		"cross-site":  withHeader("Sec-Fetch-Site", "cross-site"),
	} {
		if r := h.call("GET", "/v1/agents", "", bearer(secret), opt); r.status != 403 {
			t.Errorf("session with %s: %d", name, r.status)
		}
	}
	// A session cannot mint codes (and so outlive its own expiry) or
	// rotate the token.
	if r := h.call("POST", "/v1/auth/codes", `{"next":"/"}`, bearer(secret)); r.status != 403 {
		t.Errorf("a session making a code: %d", r.status)
	}
	if r := h.call("POST", "/v1/auth/token/rotate", "", bearer(secret)); r.status != 403 {
		t.Errorf("a session rotating the token: %d", r.status)
	}

	// A HEAD (an opener probing the link) does not use a code up.
	probed := h.loginLink("/")
	if r := h.call("HEAD", "/auth?code="+probed, "", noToken); r.status != 200 {
		t.Fatalf("HEAD: %d", r.status)
	}
	h.signIn(probed)

	// A code works once.
	if r := h.call("GET", "/auth?code="+code, "", noToken); r.status != 401 || secretInPage.Match(r.body) ||
		!strings.Contains(string(r.body), "Open this link again from Switchboard") {
		t.Fatalf("the code a second time: %d\n%s", r.status, r.body)
	}
	// …and for 30 s.
	late := h.loginLink("/")
	clock.advance(DefaultCodeTTL)
	if r := h.call("GET", "/auth?code="+late, "", noToken); r.status != 401 || secretInPage.Match(r.body) {
		t.Fatalf("a code after 30 s: %d", r.status)
	}
	inTime := h.loginLink("/")
	clock.advance(DefaultCodeTTL - time.Second)
	h.signIn(inTime)

	// Made-up codes, the token itself, and the removed ?token= sign in
	// nobody.
	for _, q := range []string{"", "?code=", "?code=forged", "?code=" + testToken, "?token=" + testToken, "?token=" + testToken + "&code="} {
		r := h.call("GET", "/auth"+q, "", noToken)
		if r.status != 401 || secretInPage.Match(r.body) || len(r.header.Values("Set-Cookie")) != 0 {
			t.Errorf("/auth%s: %d %s", q, r.status, r.body)
		}
	}
}

func TestLoginCodeNext(t *testing.T) {
	h := newHarness(t)
	for _, next := range []string{"", "/", "/#/t/th_1", "/?x=1#/t/a-b", "/index.html"} {
		if r := h.call("POST", "/v1/auth/codes", `{"next":`+strconv.Quote(next)+`}`); r.status != 201 {
			t.Errorf("next %q: %d %s", next, r.status, r.body)
		}
	}
	for _, next := range []string{
		"http://evil.example/", "https://evil.example", "//evil.example/", "/\\evil.example", "\\\\evil.example",
		"javascript:alert(1)", "evil.example", "#/t/x", "/ /x", "/\t/evil.example", "/x\n", "http:/evil.example",
		"/" + strings.Repeat("a", 3000),
	} {
		r := h.call("POST", "/v1/auth/codes", `{"next":`+strconv.Quote(next)+`}`)
		if r.status != 400 || r.code() != "INVALID_ARGUMENT" {
			t.Errorf("next %q: %d %s", next, r.status, r.body)
		}
	}
	if r := h.call("POST", "/v1/auth/codes", `{"next":"/"}`, noToken); r.status != 401 {
		t.Errorf("without the token: %d", r.status)
	}
	if r := h.call("POST", "/v1/auth/codes", `{"next":"/"}`, bearer("wrong")); r.status != 401 {
		t.Errorf("with a wrong token: %d", r.status)
	}
}

func TestLoginLifetime(t *testing.T) {
	clock := newFakeClock()
	h := newHarness(t, func(o *Options) { o.Now = clock.Now })
	ok := func(secret string) bool { return h.call("GET", "/v1/agents", "", bearer(secret)).status == 200 }

	// Idle 12 h ends it; each request starts the 12 h over.
	idle := h.signIn(h.loginLink("/"))
	clock.advance(DefaultLoginIdle - time.Minute)
	if !ok(idle) {
		t.Fatal("a session used within 12 h ended")
	}
	clock.advance(DefaultLoginIdle - time.Minute)
	if !ok(idle) {
		t.Fatal("a session used within 12 h of its last request ended")
	}
	clock.advance(DefaultLoginMax) // also past 24 h since sign-in
	if ok(idle) {
		t.Fatal("an idle session lives on")
	}
	// 24 h ends it however busy.
	busy := h.signIn(h.loginLink("/"))
	for range 25 {
		clock.advance(time.Hour)
		ok(busy)
	}
	if ok(busy) {
		t.Fatal("a session lives past 24 h")
	}
}

func TestLogout(t *testing.T) {
	h := newHarness(t)
	a := h.signIn(h.loginLink("/"))
	b := h.signIn(h.loginLink("/"))
	if a == b {
		t.Fatal("two sign-ins share a secret")
	}
	s := h.openStream(h.request("GET", "/v1/events", "", bearer(a)))
	waitFor(t, "the subscription", func() bool { return h.fake.openStreams() == 1 })

	if r := h.call("POST", "/v1/auth/logout", "", bearer(a)); r.status != 204 {
		t.Fatalf("logout: %d %s", r.status, r.body)
	}
	s.waitEnd(t)
	waitFor(t, "the stream to end", func() bool { return h.fake.openStreams() == 0 })
	if r := h.call("GET", "/v1/agents", "", bearer(a)); r.status != 401 {
		t.Fatalf("after logout: %d", r.status)
	}
	if r := h.call("POST", "/v1/auth/logout", "", bearer(a)); r.status != 401 {
		t.Fatalf("logout twice: %d", r.status)
	}
	// Another session, and the token, go on.
	if r := h.call("GET", "/v1/agents", "", bearer(b)); r.status != 200 {
		t.Fatalf("the other session: %d", r.status)
	}
	if r := h.call("POST", "/v1/auth/logout", ""); r.status != 400 {
		t.Fatalf("logout with the token: %d", r.status)
	}
}

func TestRotateToken(t *testing.T) {
	const newToken = "aa0c6e1a9b2d4c8e7f3a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e"
	h := newHarness(t, func(o *Options) { o.RotateToken = func() (string, error) { return newToken, nil } })
	secret := h.signIn(h.loginLink("/"))
	unused := h.loginLink("/")
	s := h.openStream(h.request("GET", "/v1/events", ""))
	waitFor(t, "the subscription", func() bool { return h.fake.openStreams() == 1 })

	if r := h.call("POST", "/v1/auth/token/rotate", ""); r.status != 204 {
		t.Fatalf("rotate: %d %s", r.status, r.body)
	}
	s.waitEnd(t) // the old token's stream ends
	waitFor(t, "the old token's stream to end", func() bool { return h.fake.openStreams() == 0 })
	if r := h.call("GET", "/v1/agents", ""); r.status != 401 {
		t.Errorf("the old token: %d", r.status)
	}
	if r := h.call("GET", "/v1/agents", "", bearer(newToken)); r.status != 200 {
		t.Errorf("the new token: %d", r.status)
	}
	if r := h.call("GET", "/v1/agents", "", bearer(secret)); r.status != 401 {
		t.Errorf("a session of the old token: %d", r.status)
	}
	if r := h.call("GET", "/auth?code="+unused, "", noToken); r.status != 401 {
		t.Errorf("a code of the old token: %d", r.status)
	}
	var health healthAnswer
	h.mustJSON(h.call("GET", "/healthz?nonce=n1", ""), 200, &health)
	if health.Proof != hmacHex(newToken, "n1") {
		t.Errorf("the proof does not use the new token")
	}

	// Without a rotation hook: 502, nothing changes.
	h2 := newHarness(t)
	if r := h2.call("POST", "/v1/auth/token/rotate", ""); r.status != 502 {
		t.Errorf("rotate without a hook: %d", r.status)
	}
	if r := h2.call("GET", "/v1/agents", ""); r.status != 200 {
		t.Errorf("the token after a refused rotation: %d", r.status)
	}
}

func hmacHex(key, msg string) string {
	m := hmac.New(sha256.New, []byte(key))
	m.Write([]byte(msg))
	return hex.EncodeToString(m.Sum(nil))
}

func TestHealthzProof(t *testing.T) {
	h := newHarness(t)
	var plain map[string]any
	h.mustJSON(h.call("GET", "/healthz", "", noToken), 200, &plain)
	if _, has := plain["proof"]; has || plain["ok"] != true || plain["version"] != "1.2.3-test" {
		t.Fatalf("without a nonce: %v", plain)
	}
	nonce := "3f9a0c" + strings.Repeat("e", 58)
	r := h.call("GET", "/healthz?nonce="+nonce, "", noToken, withHeader("X-Client-ID", ""))
	var a healthAnswer
	if err := json.Unmarshal(r.body, &a); err != nil || r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if a.Proof != hmacHex(testToken, nonce) || strings.Contains(string(r.body), testToken) {
		t.Fatalf("proof %q", a.Proof)
	}
	for _, bad := range []string{"", strings.Repeat("a", 257), "a%20b", "%00"} {
		if r := h.call("GET", "/healthz?nonce="+bad, "", noToken); r.status != 400 {
			t.Errorf("nonce %q: %d", bad, r.status)
		}
	}
}

func TestLoginTableBounded(t *testing.T) {
	ss := newBrowserLogins(time.Hour, time.Hour)
	now := time.Now()
	first, _ := ss.create(now)
	for i := 0; i < maxLogins+10; i++ {
		if _, err := ss.create(now.Add(time.Duration(i+1) * time.Millisecond)); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(ss.m); n > maxLogins {
		t.Fatalf("%d sessions kept", n)
	}
	if _, _, ok := ss.use(first, now); ok {
		t.Fatal("the oldest session survived a full table")
	}
	cs := newLoginCodes(time.Minute)
	for range maxCodes + 10 {
		if _, _, err := cs.create("/", now); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(cs.m); n > maxCodes {
		t.Fatalf("%d codes kept", n)
	}
}

// An event stream opened with a session does not outlive the session's
// longest lifetime, though a stream is a single request.
func TestLoginStreamEndsAtMax(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.LoginMax = 300 * time.Millisecond })
	s := h.openStream(h.request("GET", "/v1/events", "", bearer(h.signIn(h.loginLink("/")))))
	waitFor(t, "the subscription", func() bool { return h.fake.openStreams() == 1 })
	s.waitEnd(t)
	waitFor(t, "the stream to end", func() bool { return h.fake.openStreams() == 0 })
}

// waitEnd reads s until the hub ends it, failing after 10 s.
func (s *sseStream) waitEnd(t *testing.T) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case _, ok := <-s.frames:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("the stream did not end within 10 s")
		}
	}
}
