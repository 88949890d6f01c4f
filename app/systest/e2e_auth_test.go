//go:build linux

package systest

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/switchboard-hub/switchboard/hub/client"
)

// Issue 12 §3: the credentials, against the real binary. The code's 30 s
// lifetime and the session's 12 h are tested with a fake clock in
// hub/httpapi (auth_test.go); the browser's side in frontend/e2e/auth.mjs.

var sessionSecretRE = regexp.MustCompile(`sessionStorage\.setItem\("switchboard\.session", "([A-Za-z0-9_-]+)"\)`)

// loginLink asks the hub for a login link with the token.
func (h *hubProc) loginLink(t *testing.T, next string) string {
	t.Helper()
	var out struct{ URL string }
	h.call("POST", "/v1/auth/codes", map[string]string{"next": next}, 201, &out)
	return out.URL
}

// e2eSignIn: a browser signs in with a one-time code, never the token,
// and holds a per-origin bearer secret instead of a cookie.
func e2eSignIn(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	link := h.loginLink(t, "/#/t/th_1")
	u, err := url.Parse(link)
	if err != nil || u.Scheme+"://"+u.Host != h.url || u.Path != "/auth" || u.Query().Get("code") == "" ||
		strings.Contains(link, h.token) || u.Query().Has("token") {
		t.Fatalf("login link %q", link)
	}
	page := func(link string) (int, string, http.Header) {
		t.Helper()
		req, _ := http.NewRequest("GET", link, nil)
		resp, err := h.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}
	status, body, hdr := page(link)
	m := sessionSecretRE.FindStringSubmatch(body)
	if status != 200 || m == nil || len(hdr.Values("Set-Cookie")) != 0 || strings.Contains(body, h.token) {
		t.Fatalf("GET %s: %d, Set-Cookie %q\n%s", u.Path, status, hdr.Values("Set-Cookie"), body)
	}
	secret := m[1]
	// Once only.
	if status, body, _ := page(link); status != 401 || sessionSecretRE.MatchString(body) || !strings.Contains(body, "Open this link again from Switchboard") {
		t.Fatalf("the link a second time: %d\n%s", status, body)
	}
	// The removed token link signs nobody in.
	if status, body, hdr := page(h.url + "/auth?token=" + h.token); status != 401 || sessionSecretRE.MatchString(body) || len(hdr.Values("Set-Cookie")) != 0 {
		t.Fatalf("/auth?token=: %d", status)
	}
	// next must stay on the hub.
	for _, next := range []string{"http://evil.example/", "//evil.example", "/\\evil.example", "javascript:alert(1)"} {
		if r := h.do("POST", "/v1/auth/codes", map[string]string{"next": next}); r.status != 400 {
			t.Errorf("next %q: %s", next, r)
		}
	}

	// The secret is a bearer: it works, and nothing about it is a cookie.
	asBrowser := []string{"Authorization", "Bearer " + secret, "X-Client-ID", "browser-1"}
	if r := h.do("GET", "/v1/threads", nil, asBrowser...); r.status != 200 {
		t.Fatalf("the session's bearer: %s", r)
	}
	if r := h.do("POST", "/v1/auth/codes", map[string]string{"next": "/"}, asBrowser...); r.status != 403 {
		t.Errorf("a session making codes: %s", r)
	}
	s := h.mustSSE("GET", "/v1/events", nil, asBrowser...)
	// Logout ends the session and its stream.
	if r := h.do("POST", "/v1/auth/logout", nil, asBrowser...); r.status != 204 {
		t.Fatalf("logout: %s", r)
	}
	s.wantEnd(10 * time.Second) // the session's event stream ends with it
	if r := h.do("GET", "/v1/threads", nil, asBrowser...); r.status != 401 {
		t.Errorf("after logout: %s", r)
	}
	// The token still works.
	h.call("GET", "/v1/threads", nil, 200, nil)
}

// squatter is a plain HTTP server that records every Authorization it is
// sent: a program on a stale hub.json's port.
type squatter struct {
	srv   *httptest.Server
	mu    sync.Mutex
	auths []string
	hits  int
}

func newSquatter(t *testing.T, addr string) *squatter {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("taking the dead hub's port: %v", err)
	}
	s := &squatter{}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits++
		if a := r.Header.Get("Authorization"); a != "" {
			s.auths = append(s.auths, a)
		}
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":true,"version":"9.9.9"}`) // looks like /healthz, proves nothing
	}))
	s.srv.Listener.Close()
	s.srv.Listener = l
	s.srv.Start()
	t.Cleanup(s.srv.Close)
	return s
}

func (s *squatter) seen() (hits int, auths []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits, append([]string(nil), s.auths...)
}

// e2eStaleDiscovery: the hub dies (kill -9), leaving hub.json; another
// program takes its port. hub/client and the editor bridge never send it
// the token; a hub starting on the data dir removes the stale hub.json.
func e2eStaleDiscovery(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	u, _ := url.Parse(h.url)
	h.kill9()
	if _, err := h.discovery(); err != nil {
		t.Fatalf("kill -9 left no hub.json: %v", err)
	}
	sq := newSquatter(t, u.Host)

	c := client.New(h.dataDir, client.Options{ClientID: "script"})
	_, err := c.Threads(t.Context(), 0, "")
	var nh *client.NotHubError
	if !errors.As(err, &nh) || !strings.Contains(err.Error(), "not the Switchboard hub") {
		t.Errorf("hub/client: %v, want a *NotHubError", err)
	}
	if _, err := c.Connect(t.Context()); !errors.As(err, &nh) {
		t.Errorf("Connect: %v, want a *NotHubError", err)
	}

	b := startBridge(t, bins, h, "fake", "--start-hub=false")
	_, err = b.initialize(t)
	wantErr(t, "initialize against a squatter", err, "not the Switchboard hub")

	if hits, auths := sq.seen(); hits == 0 || len(auths) != 0 {
		t.Fatalf("the squatter had %d requests and got Authorization %q", hits, auths)
	}

	// A hub starting on the data dir removes the stale hub.json, even when
	// it cannot start itself (here: the squatter holds its port).
	cmd := h.serveCmd("--listen", u.Host)
	if err := cmd.Run(); err == nil {
		t.Fatal("a hub started on a taken port")
	}
	if _, err := h.discovery(); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stale hub.json is still there: %v", err)
	}
	if !strings.Contains(h.logText(), "stale hub.json") {
		t.Errorf("the hub did not say it removed a stale hub.json")
	}
	// And another hub still refuses to start beside a running one.
	h.start()
	if err := h.serveCmd("--listen", "127.0.0.1:0").Run(); err == nil {
		t.Error("a second hub started on a data dir in use")
	}
	if d, err := h.discovery(); err != nil || d.PID != h.pid() {
		t.Errorf("the running hub's hub.json: %+v %v", d, err)
	}
}

// rotateToken runs `switchboard token rotate` on h's data dir.
func rotateToken(t *testing.T, bins e2eBins, dataDir string) string {
	t.Helper()
	cmd := exec.Command(bins.switchboard, "token", "rotate", "--data-dir", dataDir)
	cmd.Env = hubEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("switchboard token rotate: %v\n%s", err, out)
	}
	return string(out)
}

// e2eTokenRotate: `switchboard token rotate` beside a running hub: the
// new token is in the file (0600), the hub refuses the old one at once and
// ends its streams and browser logins, a data-dir client goes on. With
// no hub running, the command writes the file itself.
func e2eTokenRotate(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	old := h.token
	secret := sessionSecretRE.FindStringSubmatch(func() string {
		resp, err := h.client.Get(h.loginLink(t, "/"))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}())[1]
	c := client.New(h.dataDir, client.Options{ClientID: "script"})
	if _, err := c.Threads(t.Context(), 0, ""); err != nil {
		t.Fatal(err)
	}
	s := h.mustSSE("GET", "/v1/events", nil)

	out := rotateToken(t, bins, h.dataDir)
	if !strings.Contains(out, "old one is refused") {
		t.Errorf("output %q", out)
	}
	path := filepath.Join(h.dataDir, "token")
	b, _ := os.ReadFile(path)
	tok := strings.TrimSpace(string(b))
	if len(tok) != 64 || tok == old || fileMode(t, path) != 0o600 {
		t.Fatalf("token file after the rotation: %q mode %v", tok, fileMode(t, path))
	}
	if r := h.do("GET", "/v1/threads", nil); r.status != 401 {
		t.Errorf("the old token after the rotation: %s", r)
	}
	s.wantEnd(10 * time.Second) // the old token's event stream ends
	if r := h.do("GET", "/v1/threads", nil, "Authorization", "Bearer "+secret, "X-Client-ID", "browser-1"); r.status != 401 {
		t.Errorf("a browser login of the old token: %s", r)
	}
	h.token = tok
	h.call("GET", "/v1/threads", nil, 200, nil)
	// The data-dir client reads the token file again on its 401.
	if _, err := c.Threads(t.Context(), 0, ""); err != nil {
		t.Errorf("hub/client after the rotation: %v", err)
	}

	// No hub: the command writes the file, and the next hub uses it.
	h.stop()
	rotateToken(t, bins, h.dataDir)
	b, _ = os.ReadFile(path)
	if next := strings.TrimSpace(string(b)); len(next) != 64 || next == tok || fileMode(t, path) != 0o600 {
		t.Fatalf("token file after an offline rotation: %q", next)
	}
	h.start()
	h.call("GET", "/v1/threads", nil, 200, nil)
	if r := h.do("GET", "/v1/threads", nil, "Authorization", "Bearer "+tok); r.status != 401 {
		t.Errorf("the token before the offline rotation: %s", r)
	}
}

// bridgeTokenRotate: an editor bridge keeps working across a rotation:
// it reads the token file again on its 401.
func bridgeTokenRotate(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	b := startBridge(t, bins, h, "fake")
	b.mustInitialize(t)
	sid := b.newSession(t, t.TempDir())
	b.mustPrompt(t, sid, "echo before", sdk.StopReasonEndTurn)
	rotateToken(t, bins, h.dataDir)
	if r := h.do("GET", "/v1/threads", nil); r.status != 401 {
		t.Fatalf("the old token after the rotation: %s", r)
	}
	if got := agentText(b.mustPrompt(t, sid, "echo after the rotation", sdk.StopReasonEndTurn)); got != "after the rotation" {
		t.Errorf("a prompt after the rotation: %q", got)
	}
}
