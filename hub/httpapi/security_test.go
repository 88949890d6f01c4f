package httpapi

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// rawRequest writes head (and body, from a goroutine, errors ignored) on
// a fresh connection and reads the answer: for requests net/http's client
// will not send (no Host) or that the server cuts short (413).
func (h *harness) rawRequest(head string, body io.Reader) *http.Response {
	h.t.Helper()
	c, err := net.Dial("tcp", h.ts.Listener.Addr().String())
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := io.WriteString(c, head); err != nil {
		h.t.Fatal(err)
	}
	if body != nil {
		go func() { _, _ = io.Copy(c, body) }()
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		h.t.Fatal(err)
	}
	return resp
}

func TestHostCheck(t *testing.T) {
	h := newHarness(t)
	p := strconv.Itoa(h.port)
	other := strconv.Itoa(h.port + 1)
	cases := []struct {
		host string
		want int
	}{
		{"127.0.0.1:" + p, 200},
		{"localhost:" + p, 200},
		{"LocalHost:" + p, 200},
		{"[::1]:" + p, 200},
		{"evil.example:" + p, 403},
		{"evil.example", 403},
		{"127.0.0.1:" + other, 403},
		{"127.0.0.1", 403},
		{"localhost", 403},
		{"127.0.0.2:" + p, 403},
		{"hub.lan:" + p, 403},
	}
	for _, path := range []string{"/healthz", "/v1/agents", "/"} {
		for _, c := range cases {
			t.Run(path+" "+c.host, func(t *testing.T) {
				r := h.call("GET", path, "", withHost(c.host))
				if r.status != c.want {
					t.Fatalf("status %d, want %d: %s", r.status, c.want, r.body)
				}
				if c.want == 403 && r.code() != "FORBIDDEN" {
					t.Fatalf("code %q", r.code())
				}
			})
		}
	}
	// The Host check comes before the token check.
	if r := h.call("GET", "/v1/agents", "", withHost("evil.example:"+p), noToken); r.status != 403 {
		t.Fatalf("bad host without token: %d, want 403", r.status)
	}
}

func TestHostCheckAllowedHostsAtRuntime(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.AllowedHosts = []string{"hub.lan"} })
	p := strconv.Itoa(h.port)
	check := func(host string, want int) {
		t.Helper()
		if r := h.call("GET", "/healthz", "", withHost(host)); r.status != want {
			t.Fatalf("Host %s: %d, want %d", host, r.status, want)
		}
	}
	check("hub.lan:"+p, 200)
	check("HUB.lan", 200) // through a proxy on the default port
	check("hub.lan:9999", 403)
	h.srv.SetAllowed([]string{"proxy.lan:443", "fe80::1"}, nil)
	check("hub.lan:"+p, 403)
	check("proxy.lan:443", 200)
	check("proxy.lan:"+p, 403)
	check("[fe80::1]:"+p, 200)
	check("127.0.0.1:"+p, 200) // the built-in names always pass
}

func TestMissingHostForbidden(t *testing.T) {
	h := newHarness(t)
	resp := h.rawRequest("GET /healthz HTTP/1.0\r\n\r\n", nil)
	defer resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Fatalf("no Host: %d, want 403", resp.StatusCode)
	}
	resp = h.rawRequest("GET /healthz HTTP/1.0\r\nHost: 127.0.0.1:"+strconv.Itoa(h.port)+"\r\n\r\n", nil)
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("HTTP/1.0 with Host: %d, want 200", resp.StatusCode)
	}
}

func TestPortUnknownRefusesEverything(t *testing.T) {
	h := newHarness(t)
	h.srv.SetPort(0)
	if r := h.call("GET", "/healthz", ""); r.status != 403 {
		t.Fatalf("port unknown: %d, want 403", r.status)
	}
}

func TestOriginCheck(t *testing.T) {
	h := newHarness(t, func(o *Options) {
		o.AllowedOrigins = []string{"vscode-webview://abc123", "http://App.lan:3000/"}
	})
	p := strconv.Itoa(h.port)
	cases := []struct {
		origin string
		want   int
	}{
		{"http://127.0.0.1:" + p, 200},
		{"http://localhost:" + p, 200},
		{"http://[::1]:" + p, 200},
		{"vscode-webview://abc123", 200},
		{"http://app.lan:3000", 200},
		{"http://evil.example", 403},
		{"https://127.0.0.1:" + p, 403},
		{"http://127.0.0.1:" + strconv.Itoa(h.port+1), 403},
		{"http://localhost", 403},
		{"null", 403},
		{"vscode-webview://other", 403},
	}
	for _, c := range cases {
		t.Run(c.origin, func(t *testing.T) {
			for _, path := range []string{"/v1/agents", "/healthz"} {
				r := h.call("GET", path, "", withHeader("Origin", c.origin))
				if r.status != c.want {
					t.Fatalf("%s: %d, want %d: %s", path, r.status, c.want, r.body)
				}
				if acao := r.header.Values("Access-Control-Allow-Origin"); len(acao) != 0 {
					t.Fatalf("%s: Access-Control-Allow-Origin %q sent", path, acao)
				}
			}
			// The same for a body-carrying POST and an SSE GET.
			r := h.call("POST", "/v1/threads", `{"agent":"echo","cwd":"/tmp"}`, withHeader("Origin", c.origin))
			if want := map[int]int{200: 201, 403: 403}[c.want]; r.status != want {
				t.Fatalf("POST: %d, want %d", r.status, want)
			}
			if c.want == 403 {
				r := h.call("GET", "/v1/events", "", withHeader("Origin", c.origin))
				if r.status != 403 || strings.Contains(r.header.Get("Content-Type"), "event-stream") {
					t.Fatalf("SSE with origin %s: %d %s", c.origin, r.status, r.header.Get("Content-Type"))
				}
			}
		})
	}
	// Two Origin headers are refused.
	req := h.request("GET", "/v1/agents", "")
	req.Header["Origin"] = []string{"http://127.0.0.1:" + p, "http://evil.example"}
	if r := h.send(req); r.status != 403 {
		t.Fatalf("two origins: %d", r.status)
	}
	// allowedOrigins changes at runtime.
	h.srv.SetAllowed(nil, []string{"http://evil.example"})
	if r := h.call("GET", "/v1/agents", "", withHeader("Origin", "http://evil.example")); r.status != 200 {
		t.Fatalf("after SetAllowed: %d", r.status)
	}
	if r := h.call("GET", "/v1/agents", "", withHeader("Origin", "vscode-webview://abc123")); r.status != 403 {
		t.Fatalf("removed origin still allowed: %d", r.status)
	}
}

func TestCrossSiteFetchRefused(t *testing.T) {
	h := newHarness(t)
	code := h.loginLink("/")
	for _, path := range []string{"/", "/healthz", "/v1/agents", "/auth?code=" + code} {
		r := h.call("GET", path, "", withHeader("Sec-Fetch-Site", "cross-site"))
		if r.status != 403 || r.code() != "FORBIDDEN" {
			t.Fatalf("%s cross-site: %d %s", path, r.status, r.body)
		}
		if len(r.header.Values("Set-Cookie")) != 0 {
			t.Fatalf("%s cross-site set a cookie", path)
		}
	}
	// The code refused cross-site is still unused.
	h.signIn(code)
	for _, site := range []string{"same-origin", "same-site", "none"} {
		if r := h.call("GET", "/v1/agents", "", withHeader("Sec-Fetch-Site", site)); r.status != 200 {
			t.Fatalf("Sec-Fetch-Site %s: %d", site, r.status)
		}
	}
}

func TestTokenRequired(t *testing.T) {
	h := newHarness(t)
	cases := []struct {
		auth string
		want int
	}{
		{"", 401},
		{"Bearer", 401},
		{"Bearer ", 401},
		{"Bearer wrong", 401},
		{"Bearer " + testToken[:63], 401},
		{"Bearer " + testToken + "0", 401},
		{"Bearer " + strings.ToUpper(testToken), 401},
		{testToken, 401},
		{"Basic " + testToken, 401},
		{"Token " + testToken, 401},
		{"Bearer " + testToken, 200},
		{"bearer " + testToken, 200},
	}
	for _, c := range cases {
		t.Run(c.auth, func(t *testing.T) {
			r := h.call("GET", "/v1/agents", "", withHeader("Authorization", c.auth))
			if r.status != c.want {
				t.Fatalf("status %d, want %d", r.status, c.want)
			}
			if c.want == 401 && (r.code() != "UNAUTHORIZED" || !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer")) {
				t.Fatalf("401 answer: %s %v", r.body, r.header)
			}
		})
	}
	// The token check comes before X-Client-ID.
	if r := h.call("GET", "/v1/agents", "", noToken, withHeader("X-Client-ID", "")); r.status != 401 {
		t.Fatalf("no token, no client id: %d, want 401", r.status)
	}
	// Two Authorization headers are refused even if one is right.
	req := h.request("GET", "/v1/agents", "")
	req.Header["Authorization"] = []string{"Bearer " + testToken, "Bearer wrong"}
	if r := h.send(req); r.status != 401 {
		t.Fatalf("two Authorization headers: %d", r.status)
	}
}

func TestEmptyTokenRefusesEverything(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Token = "" })
	for _, auth := range []string{"Bearer ", "Bearer", ""} {
		if r := h.call("GET", "/v1/agents", "", withHeader("Authorization", auth)); r.status != 401 {
			t.Fatalf("no configured token, Authorization %q: %d", auth, r.status)
		}
	}
	if r := h.call("POST", "/v1/auth/codes", `{"next":"/"}`, withHeader("Authorization", "Bearer ")); r.status != 401 {
		t.Fatalf("a login code without a token: %d", r.status)
	}
	if r := h.call("GET", "/healthz?nonce=n", ""); strings.Contains(string(r.body), "proof") {
		t.Fatalf("a proof without a token: %s", r.body)
	}
}

func TestTokenInQueryRefused(t *testing.T) {
	h := newHarness(t)
	for _, q := range []string{"token", "access_token", "auth", "bearer"} {
		r := h.call("GET", "/v1/agents?"+q+"="+testToken, "", noToken)
		if r.status != 401 {
			t.Fatalf("?%s=<token>: %d, want 401", q, r.status)
		}
	}
}

func TestUnauthorizedStreamSendsNoSSEBytes(t *testing.T) {
	h := newHarness(t)
	id := h.newThread("c1")
	for _, req := range []*http.Request{
		h.request("GET", "/v1/events", "", noToken),
		h.request("GET", "/v1/threads/"+id+"/events?after=0", "", withHeader("Authorization", "Bearer nope")),
		h.request("POST", "/v1/threads/"+id+"/turns", `{"input":"hi"}`, noToken, withHeader("Accept", "text/event-stream")),
	} {
		r := h.send(req)
		if r.status != 401 || r.header.Get("Content-Type") != "application/json" {
			t.Fatalf("%s %s: %d %s", req.Method, req.URL.Path, r.status, r.header.Get("Content-Type"))
		}
		if s := string(r.body); strings.Contains(s, "event:") || strings.Contains(s, "id:") || strings.Contains(s, ": ping") {
			t.Fatalf("SSE bytes in a 401: %q", s)
		}
	}
	if n := h.fake.openStreams(); n != 0 {
		t.Fatalf("%d subscriptions opened for unauthorized requests", n)
	}
}

func TestSecurityHeadersOnEveryAnswer(t *testing.T) {
	h := newHarness(t)
	p := strconv.Itoa(h.port)
	answers := map[string]reply{
		"healthz":   h.call("GET", "/healthz", ""),
		"ui":        h.call("GET", "/", ""),
		"api":       h.call("GET", "/v1/agents", ""),
		"403 host":  h.call("GET", "/v1/agents", "", withHost("evil:"+p)),
		"403 orig":  h.call("GET", "/v1/agents", "", withHeader("Origin", "http://evil")),
		"401":       h.call("GET", "/v1/agents", "", noToken),
		"404":       h.call("GET", "/v1/nope", ""),
		"400":       h.call("GET", "/v1/agents", "", withHeader("X-Client-ID", "")),
		"auth 200":  h.call("GET", "/auth?code="+h.loginLink("/"), ""),
		"auth 401":  h.call("GET", "/auth?token="+testToken, ""),
		"delete204": h.call("DELETE", "/v1/threads/"+h.newThread("c1"), ""),
	}
	for name, r := range answers {
		for k, v := range map[string]string{
			"X-Content-Type-Options": "nosniff",
			"X-Frame-Options":        "DENY",
			"Referrer-Policy":        "no-referrer",
		} {
			if got := r.header.Get(k); got != v {
				t.Errorf("%s: %s = %q, want %q", name, k, got, v)
			}
		}
		wantCSP := apiCSP
		if name == "ui" {
			wantCSP = uiCSP
		}
		if name == "auth 200" { // its own: only its one inline script (TestLoginCode)
			wantCSP = r.header.Get("Content-Security-Policy")
			if !strings.HasPrefix(wantCSP, "default-src 'none'; script-src 'nonce-") {
				t.Errorf("%s: CSP %q", name, wantCSP)
			}
		}
		if got := r.header.Get("Content-Security-Policy"); got != wantCSP {
			t.Errorf("%s: CSP %q, want %q", name, got, wantCSP)
		}
		if len(r.header.Values("Access-Control-Allow-Origin")) != 0 {
			t.Errorf("%s: CORS header sent", name)
		}
	}
	if got := answers["api"].header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("API answer Cache-Control %q", got)
	}
}

func TestUIServedAtRoot(t *testing.T) {
	h := newHarness(t)
	r := h.call("GET", "/", "", noToken, withHeader("X-Client-ID", ""))
	if r.status != 200 || !strings.Contains(string(r.body), "Switchboard") || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") {
		t.Fatalf("placeholder: %d %s", r.status, r.body)
	}

	var gotPath string
	h2 := newHarness(t, func(o *Options) {
		o.UI = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			gotPath = r.URL.Path
			_, _ = io.WriteString(w, "app")
		})
	})
	r = h2.call("GET", "/assets/app.js", "", noToken)
	if r.status != 200 || string(r.body) != "app" || gotPath != "/assets/app.js" {
		t.Fatalf("custom UI: %d %q %q", r.status, r.body, gotPath)
	}
	if r.header.Get("Content-Security-Policy") != uiCSP {
		t.Fatalf("UI CSP %q", r.header.Get("Content-Security-Policy"))
	}
	r = h2.call("POST", "/", `{}`)
	if r.status != 404 || r.code() != "NOT_FOUND" {
		t.Fatalf("POST /: %d %s", r.status, r.body)
	}
}

func TestContentTypeRequired(t *testing.T) {
	h := newHarness(t)
	id := h.newThread("c1")
	for _, rt := range Routes() {
		if !rt.Body {
			continue
		}
		path := strings.ReplaceAll(rt.Path, "{id}", id)
		for _, ct := range []string{"", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/json; charset=latin1", "application/jsonx"} {
			r := h.call(rt.Method, path, `{}`, withHeader("Content-Type", ct))
			if r.status != 415 || r.code() != CodeUnsupportedMediaType {
				t.Fatalf("%s %s with Content-Type %q: %d %s", rt.Method, rt.Path, ct, r.status, r.body)
			}
		}
	}
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "Application/JSON;charset=UTF-8"} {
		r := h.call("POST", "/v1/threads", `{"agent":"echo","cwd":"/tmp"}`, withHeader("Content-Type", ct))
		if r.status != 201 {
			t.Fatalf("Content-Type %q: %d %s", ct, r.status, r.body)
		}
	}
}

// repeatReader yields n bytes of b.
func repeatReader(b byte, n int64) io.Reader {
	return io.LimitReader(readerFunc(func(p []byte) (int, error) {
		for i := range p {
			p[i] = b
		}
		return len(p), nil
	}), n)
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

func TestBodyTooLarge(t *testing.T) {
	h := newHarness(t)
	head := func(extra string) string {
		return "POST /v1/threads HTTP/1.1\r\nHost: 127.0.0.1:" + strconv.Itoa(h.port) +
			"\r\nAuthorization: Bearer " + testToken + "\r\nX-Client-ID: c1\r\nContent-Type: application/json\r\n" + extra + "\r\n"
	}
	// Declared larger than 10 MiB: refused before reading.
	resp := h.rawRequest(head("Content-Length: "+strconv.Itoa(MaxBodyBytes+1)+"\r\n"), nil)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 413 || !strings.Contains(string(b), CodePayloadTooLarge) {
		t.Fatalf("declared size: %d %s", resp.StatusCode, b)
	}
	// Chunked, no length: cut off at the limit, the rest not drained.
	body := chunked(io.MultiReader(strings.NewReader(`{"agent":"`), repeatReader('a', MaxBodyBytes+1)))
	resp = h.rawRequest(head("Transfer-Encoding: chunked\r\n"), body)
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 413 || !strings.Contains(string(b), CodePayloadTooLarge) {
		t.Fatalf("chunked: %d %s", resp.StatusCode, b)
	}
}

// The limit's edge, on a server with a small limit (decoding 10 MiB under
// -race is slow).
func TestBodyLimitEdge(t *testing.T) {
	const limit = 1000
	h := newHarness(t, func(o *Options) { o.maxBody = limit })
	pad := `{"agent":"echo","cwd":"/tmp"}`
	exact := pad + strings.Repeat(" ", limit-len(pad))
	if r := h.call("POST", "/v1/threads", exact); r.status != 201 {
		t.Fatalf("body of exactly the limit: %d %s", r.status, r.body)
	}
	if r := h.call("POST", "/v1/threads", exact+" "); r.status != 413 || r.code() != CodePayloadTooLarge {
		t.Fatalf("one byte over, declared: %d %s", r.status, r.body)
	}
	req := h.request("POST", "/v1/threads", "")
	req.Header.Set("Content-Type", "application/json")
	req.Body = io.NopCloser(strings.NewReader(exact + " "))
	req.ContentLength = -1 // chunked
	if r := h.send(req); r.status != 413 || r.code() != CodePayloadTooLarge {
		t.Fatalf("one byte over, chunked: %d %s", r.status, r.body)
	}
	// The connection is usable again after a refusal.
	if r := h.call("GET", "/v1/agents", ""); r.status != 200 {
		t.Fatalf("after 413: %d", r.status)
	}
}

// chunked encodes r as HTTP/1.1 chunks of 32 KiB, without the last chunk.
func chunked(r io.Reader) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := r.Read(buf)
			if n > 0 {
				if _, werr := io.WriteString(pw, strconv.FormatInt(int64(n), 16)+"\r\n"); werr != nil {
					return
				}
				if _, werr := pw.Write(append(buf[:n:n], '\r', '\n')); werr != nil {
					return
				}
			}
			if err != nil {
				pw.Close()
				return
			}
		}
	}()
	return pr
}

func TestClientIDRequired(t *testing.T) {
	h := newHarness(t)
	for _, id := range []string{"", "has space", "a/b", "ünïcode", strings.Repeat("a", 65), "semi;colon"} {
		r := h.call("GET", "/v1/agents", "", withHeader("X-Client-ID", id))
		if r.status != 400 || r.code() != "INVALID_ARGUMENT" {
			t.Fatalf("X-Client-ID %q: %d %s", id, r.status, r.body)
		}
	}
	for _, id := range []string{"a", strings.Repeat("Z", 64), "vscode.switchboard_1-2", "..."} {
		if r := h.call("GET", "/v1/agents", "", withHeader("X-Client-ID", id)); r.status != 200 {
			t.Fatalf("X-Client-ID %q: %d %s", id, r.status, r.body)
		}
	}
	req := h.request("GET", "/v1/agents", "")
	req.Header["X-Client-Id"] = []string{"a", "b"}
	if r := h.send(req); r.status != 400 {
		t.Fatalf("two X-Client-ID headers: %d", r.status)
	}
	// Public routes need none.
	if r := h.call("GET", "/healthz", "", withHeader("X-Client-ID", "")); r.status != 200 {
		t.Fatalf("healthz without client id: %d", r.status)
	}
}

func TestScopeAll(t *testing.T) {
	h := newHarness(t)
	id := h.newThread("c1")
	other := withHeader("X-Client-ID", "c2")
	if r := h.call("GET", "/v1/threads/"+id, "", other); r.status != 404 || r.code() != "NOT_FOUND" {
		t.Fatalf("another client's thread: %d %s", r.status, r.body)
	}
	if c := h.fake.caller(); c.ClientID != "c2" || c.All {
		t.Fatalf("caller %+v", c)
	}
	if r := h.call("GET", "/v1/threads/"+id+"?scope=all", "", other); r.status != 200 {
		t.Fatalf("scope=all: %d %s", r.status, r.body)
	}
	if c := h.fake.caller(); c.ClientID != "c2" || !c.All {
		t.Fatalf("caller %+v", c)
	}
	var page struct{ Threads []struct{ ID string } }
	h.mustJSON(h.call("GET", "/v1/threads", "", other), 200, &page)
	if len(page.Threads) != 0 {
		t.Fatalf("c2 sees %d threads", len(page.Threads))
	}
	h.mustJSON(h.call("GET", "/v1/threads?scope=all", "", other), 200, &page)
	if len(page.Threads) != 1 || page.Threads[0].ID != id {
		t.Fatalf("scope=all lists %+v", page.Threads)
	}
	if r := h.call("GET", "/v1/threads?scope=everything", "", other); r.status != 400 {
		t.Fatalf("scope=everything: %d", r.status)
	}
}

// TestDecidedByFromCredential: decidedBy comes from what authenticated
// the request, never from a header a token holder chooses. A token holder
// who claims to be the window (X-Client-ID, the old X-Switchboard-Via) or
// the tray (a wrong or repeated secret) is recorded as client:<id>.
func TestDecidedByFromCredential(t *testing.T) {
	h := newHarness(t)
	h.srv.SetTraySecret("tray-secret-of-this-launch")
	id := h.newThread("c1")
	secret := h.signIn(h.loginLink("/"))
	for _, tt := range []struct {
		name string
		opts []reqOpt
		want string
	}{
		{"token", nil, "client:c1"},
		{"X-Client-ID window", []reqOpt{withHeader("X-Client-ID", "window")}, "client:window"},
		{"X-Switchboard-Via window", []reqOpt{withHeader("X-Switchboard-Via", "window")}, "client:c1"},
		{"X-Switchboard-Via tray", []reqOpt{withHeader("X-Switchboard-Via", "tray")}, "client:c1"},
		{"X-Client-ID tray", []reqOpt{withHeader("X-Client-ID", "tray")}, "client:tray"},
		{"forged tray secret", []reqOpt{withHeader(hub.TraySecretHeader, "guess")}, "client:c1"},
		{"empty tray secret", []reqOpt{withHeader(hub.TraySecretHeader, " ")}, "client:c1"},
		{"tray secret twice", []reqOpt{func(r *http.Request) {
			r.Header.Add(hub.TraySecretHeader, "tray-secret-of-this-launch")
			r.Header.Add(hub.TraySecretHeader, "tray-secret-of-this-launch")
		}}, "client:c1"},
		{"tray secret without the token", []reqOpt{bearer(secret), withHeader(hub.TraySecretHeader, "tray-secret-of-this-launch")}, "browser"},
		{"tray", []reqOpt{withHeader(hub.TraySecretHeader, "tray-secret-of-this-launch")}, "tray"},
		{"browser login", []reqOpt{bearer(secret)}, "browser"},
		{"browser login claiming the window", []reqOpt{bearer(secret), withHeader("X-Client-ID", "window"), withHeader("X-Switchboard-Via", "window")}, "browser"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := h.fake.addPermission(id)
			var a struct{ Permission struct{ DecidedBy string } }
			h.mustJSON(h.call("POST", "/v1/permissions/"+p.ID+"?scope=all", `{"outcome":"declined"}`, tt.opts...), 200, &a)
			if a.Permission.DecidedBy != tt.want {
				t.Fatalf("decidedBy %q, want %q", a.Permission.DecidedBy, tt.want)
			}
		})
	}
	// Unset (the tray stopped), the old secret proves nothing.
	h.srv.SetTraySecret("")
	p := h.fake.addPermission(id)
	var a struct{ Permission struct{ DecidedBy string } }
	h.mustJSON(h.call("POST", "/v1/permissions/"+p.ID, `{"outcome":"declined"}`, withHeader(hub.TraySecretHeader, "tray-secret-of-this-launch")), 200, &a)
	if a.Permission.DecidedBy != "client:c1" {
		t.Fatalf("the tray's secret after it was unset: decidedBy %q", a.Permission.DecidedBy)
	}
}

// TestUICSPDirectives holds the UI's policy to what keeps agent text from
// reaching another origin: comparing the header with the constant alone
// would pass a weakened constant.
func TestUICSPDirectives(t *testing.T) {
	got := map[string]string{}
	for _, d := range strings.Split(UICSP, ";") {
		name, value, _ := strings.Cut(strings.TrimSpace(d), " ")
		got[name] = value
	}
	for name, want := range map[string]string{
		"default-src":     "'self'",
		"script-src":      "'self'",
		"img-src":         "'self' data:",
		"media-src":       "'none'",
		"connect-src":     "'self'",
		"object-src":      "'none'",
		"frame-src":       "'none'",
		"base-uri":        "'none'",
		"form-action":     "'none'",
		"frame-ancestors": "'none'",
	} {
		if got[name] != want {
			t.Errorf("UICSP %s = %q, want %q (policy %q)", name, got[name], want, UICSP)
		}
	}
	for name, v := range got {
		if strings.Contains(v, "*") || strings.Contains(v, "http") || strings.Contains(v, "unsafe-eval") ||
			(name != "style-src" && strings.Contains(v, "unsafe-inline")) {
			t.Errorf("UICSP %s = %q allows more than the UI's own origin", name, v)
		}
	}
}
