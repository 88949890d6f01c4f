package client

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// squatter is a plain HTTP server, not the hub, that records the
// Authorization headers it is sent and answers /healthz with health.
type squatter struct {
	srv *httptest.Server

	mu    sync.Mutex
	auths []string
	paths []string
}

func newSquatter(t *testing.T, l net.Listener, health http.HandlerFunc) *squatter {
	t.Helper()
	s := &squatter{}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.paths = append(s.paths, r.URL.Path)
		if a := r.Header.Get("Authorization"); a != "" {
			s.auths = append(s.auths, a)
		}
		s.mu.Unlock()
		if r.URL.Path == "/healthz" && health != nil {
			health(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"agents":[],"threads":[],"permissions":[]}`))
	}))
	if l != nil {
		s.srv.Listener.Close()
		s.srv.Listener = l
	}
	s.srv.Start()
	t.Cleanup(s.srv.Close)
	return s
}

func (s *squatter) sawToken() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.auths...)
}

// A stale hub.json names a port some other program took: whatever it
// answers on /healthz, the client sends it no token and says why.
func TestSquatterGetsNoToken(t *testing.T) {
	for name, health := range map[string]http.HandlerFunc{
		"no healthz":  nil,
		"no proof":    jsonAnswer(200, `{"ok":true,"version":"1.0"}`),
		"wrong proof": jsonAnswer(200, `{"ok":true,"version":"1.0","proof":"00112233"}`),
		"other token": func(w http.ResponseWriter, r *http.Request) { proveHealth(w, r, "not-the-token") },
		"replays nonce": func(w http.ResponseWriter, r *http.Request) {
			jsonAnswer(200, `{"ok":true,"proof":"`+r.URL.Query().Get("nonce")+`"}`)(w, r)
		},
		"not http": nil, // replaced below by a raw listener
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			var s *squatter
			url := ""
			if name == "not http" {
				l, _ := net.Listen("tcp4", "127.0.0.1:0")
				t.Cleanup(func() { l.Close() })
				go func() {
					for {
						c, err := l.Accept()
						if err != nil {
							return
						}
						c.Write([]byte("SSH-2.0-OpenSSH_9.6\r\n"))
						c.Close()
					}
				}()
				url = "http://" + l.Addr().String()
			} else {
				s = newSquatter(t, nil, health)
				url = s.srv.URL
			}
			writeDataDir(t, dir, url, "the-real-token")
			ctx := context.Background()
			c := newClient(dir, Options{ClientID: "bridge"})
			_, err := c.Agents(ctx)
			var nh *NotHubError
			if !errors.As(err, &nh) {
				t.Fatalf("Agents: %v, want a *NotHubError", err)
			}
			if _, err := c.Connect(ctx); !errors.As(err, &nh) {
				t.Fatalf("Connect: %v, want a *NotHubError", err)
			}
			if _, err := c.Events(ctx, -1, StreamOptions{}); !errors.As(err, &nh) {
				t.Fatalf("Events: %v, want a *NotHubError", err)
			}
			// A caller's own http.Client: proven per hub instead.
			own := New(dir, Options{ClientID: "bridge", HTTP: &http.Client{}})
			var ue *UnreachableError
			if _, err := own.Permissions(ctx, ""); !errors.As(err, &nh) && (name != "not http" || !errors.As(err, &ue)) {
				t.Fatalf("with Options.HTTP: %v, want a *NotHubError", err)
			}
			if s != nil && len(s.sawToken()) != 0 {
				t.Fatalf("the squatter got %q", s.sawToken())
			}
		})
	}
}

// The hub dies between two calls and another program takes its port: the
// next call does not hand it the token, though nothing failed in between.
func TestSquatterAfterTheHubDies(t *testing.T) {
	dir := t.TempDir()
	f := newFakeHub(t)
	f.setToken("tok1")
	f.on("GET /v1/agents", jsonAnswer(200, `{"agents":[]}`))
	writeDataDir(t, dir, f.srv.URL, "tok1")
	c := newClient(dir, Options{ClientID: "bridge"})
	if _, err := c.Agents(context.Background()); err != nil {
		t.Fatal(err)
	}
	addr := f.srv.Listener.Addr().String()
	f.srv.Close()
	l, err := net.Listen("tcp4", addr)
	if err != nil {
		t.Skipf("cannot take the port again: %v", err)
	}
	s := newSquatter(t, l, jsonAnswer(200, `{"ok":true,"version":"x"}`))
	var nh *NotHubError
	if _, err := c.Agents(context.Background()); !errors.As(err, &nh) {
		t.Fatalf("got %v, want a *NotHubError", err)
	}
	if got := s.sawToken(); len(got) != 0 {
		t.Fatalf("the squatter got %q", got)
	}
}

// A token rotated under a client found through Discover (the tray's
// ForHub): the hub refuses the old one, the client reads the token file
// again and goes on.
func TestTokenRotationReread(t *testing.T) {
	dir := t.TempDir()
	f := newFakeHub(t)
	f.setToken("tok1")
	f.on("GET /v1/agents", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		want := "Bearer " + f.token
		f.mu.Unlock()
		if r.Header.Get("Authorization") != want {
			jsonAnswer(401, `{"error":{"code":"UNAUTHORIZED","message":"no"}}`)(w, r)
			return
		}
		jsonAnswer(200, `{"agents":[]}`)(w, r)
	})
	writeDataDir(t, dir, f.srv.URL, "tok1")
	h, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := forHub(h, Options{ClientID: "tray"})
	ctx := context.Background()
	if _, err := c.Agents(ctx); err != nil {
		t.Fatal(err)
	}
	f.setToken("tok2")
	if err := os.WriteFile(filepath.Join(dir, hub.TokenFile), []byte("tok2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Agents(ctx); err != nil {
		t.Fatalf("after the rotation: %v", err)
	}
	f.srv.CloseClientConnections() // a new connection is proven with the new token
	if err := c.Healthz(ctx); err != nil {
		t.Fatalf("healthz after the rotation: %v", err)
	}
	if _, err := c.Agents(ctx); err != nil {
		t.Fatalf("on a new connection: %v", err)
	}
	// A hub made by NewHub has no token file to read: the 401 is the answer.
	f.setToken("tok3")
	if _, err := forHub(NewHub(f.srv.URL, "tok2"), Options{ClientID: "x"}).Agents(ctx); StatusOf(err) != 401 {
		if _, ok := asNotHub(err); !ok {
			t.Fatalf("got %v", err)
		}
	}
}
