//go:build linux

package systest

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// 10. The security rules of API.md, against the real process.
func e2eSecurity(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	u, _ := url.Parse(h.url)
	port := u.Port()
	big := strings.NewReader(`{"agent":"fake","cwd":"/tmp","title":"` + strings.Repeat("x", 10<<20) + `"}`)
	tests := []struct {
		name         string
		method, path string
		body         any
		hdr          []string
		want         int
		code         string
	}{
		{"health", "GET", "/healthz", nil, nil, 200, ""},
		{"localhost host", "GET", "/v1/threads", nil, []string{"Host", "localhost:" + port}, 200, ""},
		{"ipv6 loopback host", "GET", "/v1/threads", nil, []string{"Host", "[::1]:" + port}, 200, ""},
		{"foreign host", "GET", "/v1/threads", nil, []string{"Host", "evil.example:" + port}, 403, "FORBIDDEN"},
		{"foreign host, no token", "GET", "/healthz", nil, []string{"Host", "evil.example", "Authorization", ""}, 403, "FORBIDDEN"},
		{"loopback other port", "GET", "/v1/threads", nil, []string{"Host", "127.0.0.1:1"}, 403, "FORBIDDEN"},
		{"own origin", "GET", "/v1/threads", nil, []string{"Origin", "http://127.0.0.1:" + port}, 200, ""},
		{"own origin localhost", "POST", "/v1/threads", map[string]string{"agent": "fake", "cwd": "/tmp"}, []string{"Origin", "http://localhost:" + port}, 201, ""},
		{"foreign origin", "GET", "/v1/threads", nil, []string{"Origin", "http://evil.example"}, 403, "FORBIDDEN"},
		{"foreign origin POST", "POST", "/v1/threads", map[string]string{"agent": "fake", "cwd": "/tmp"}, []string{"Origin", "http://evil.example"}, 403, "FORBIDDEN"},
		{"null origin", "GET", "/v1/threads", nil, []string{"Origin", "null"}, 403, "FORBIDDEN"},
		{"origin other port", "GET", "/v1/threads", nil, []string{"Origin", "http://127.0.0.1:1"}, 403, "FORBIDDEN"},
		{"foreign origin SSE", "GET", "/v1/events", nil, []string{"Origin", "http://evil.example", "Accept", "text/event-stream"}, 403, "FORBIDDEN"},
		{"cross-site fetch", "GET", "/v1/threads", nil, []string{"Sec-Fetch-Site", "cross-site"}, 403, "FORBIDDEN"},
		{"same-origin fetch", "GET", "/v1/threads", nil, []string{"Sec-Fetch-Site", "same-origin"}, 200, ""},
		{"no token", "GET", "/v1/threads", nil, []string{"Authorization", ""}, 401, "UNAUTHORIZED"},
		{"wrong token", "GET", "/v1/threads", nil, []string{"Authorization", "Bearer " + strings.Repeat("0", 64)}, 401, "UNAUTHORIZED"},
		{"token prefix", "GET", "/v1/threads", nil, []string{"Authorization", "Bearer " + h.token[:32]}, 401, "UNAUTHORIZED"},
		{"basic scheme", "GET", "/v1/threads", nil, []string{"Authorization", "Basic " + h.token}, 401, "UNAUTHORIZED"},
		{"token in query", "GET", "/v1/threads?token=" + h.token, nil, []string{"Authorization", ""}, 401, "UNAUTHORIZED"},
		{"access_token in query", "GET", "/v1/threads?access_token=" + h.token, nil, []string{"Authorization", ""}, 401, "UNAUTHORIZED"},
		{"unknown /v1 path without token", "GET", "/v1/nothing", nil, []string{"Authorization", ""}, 401, "UNAUTHORIZED"},
		{"no client id", "GET", "/v1/threads", nil, []string{"X-Client-ID", ""}, 400, "INVALID_ARGUMENT"},
		{"bad client id", "GET", "/v1/threads", nil, []string{"X-Client-ID", "a b"}, 400, "INVALID_ARGUMENT"},
		{"long client id", "GET", "/v1/threads", nil, []string{"X-Client-ID", strings.Repeat("a", 65)}, 400, "INVALID_ARGUMENT"},
		{"bad scope", "GET", "/v1/threads?scope=some", nil, nil, 400, "INVALID_ARGUMENT"},
		{"text body", "POST", "/v1/threads", `{"agent":"fake","cwd":"/tmp"}`, []string{"Content-Type", "text/plain"}, 415, ""},
		{"no content type", "POST", "/v1/threads", `{"agent":"fake","cwd":"/tmp"}`, []string{"Content-Type", ""}, 415, ""},
		{"form body", "POST", "/v1/permissions/x", "outcome=approved", []string{"Content-Type", "application/x-www-form-urlencoded"}, 415, ""},
		{"body over 10 MiB", "POST", "/v1/threads", big, nil, 413, ""},
		{"relative cwd", "POST", "/v1/threads", map[string]string{"agent": "fake", "cwd": "rel"}, nil, 400, "INVALID_ARGUMENT"},
		{"unknown agent", "POST", "/v1/threads", map[string]string{"agent": "nope", "cwd": "/tmp"}, nil, 400, "INVALID_ARGUMENT"},
	}
	for _, tt := range tests {
		r := h.do(tt.method, tt.path, tt.body, tt.hdr...)
		if r.status != tt.want || (tt.code != "" && r.errorCode() != tt.code) {
			t.Errorf("%s: %s %s: got %s, want %d %s", tt.name, tt.method, tt.path, r, tt.want, tt.code)
		}
		if v := r.header.Values("Access-Control-Allow-Origin"); len(v) != 0 {
			t.Errorf("%s: Access-Control-Allow-Origin %q", tt.name, v)
		}
		if tt.want == 401 && r.header.Get("WWW-Authenticate") == "" {
			t.Errorf("%s: 401 without WWW-Authenticate", tt.name)
		}
	}

	// A wrong token on an SSE request: 401 and not one SSE byte.
	for _, path := range []string{"/v1/events", "/v1/events?after=0"} {
		s, r := h.sse("GET", path, nil, "Authorization", "Bearer wrong")
		if s != nil || r.status != 401 || strings.Contains(r.header.Get("Content-Type"), "event-stream") ||
			strings.Contains(string(r.body), "data:") || strings.Contains(string(r.body), "event:") {
			t.Errorf("SSE %s with a wrong token: %s (Content-Type %q), want a JSON 401", path, r, r.header.Get("Content-Type"))
		}
	}
	if s, r := h.sse("POST", "/v1/threads/x/turns", map[string]string{"input": "echo"}, "Authorization", ""); s != nil || r.status != 401 {
		t.Errorf("streamed turn without a token: %s", r)
	}

	// No Host at all (HTTP/1.0): 403.
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "GET /healthz HTTP/1.0\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	conn.Close()
	if resp.StatusCode != 403 {
		t.Errorf("request without Host: %d, want 403", resp.StatusCode)
	}

	// The browser's sign-in (one-time codes, a bearer secret, no cookie)
	// is e2eSignIn's.
	resp, err = h.client.Get(h.url + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("GET /: %d", resp.StatusCode)
	}
}
