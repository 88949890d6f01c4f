package client

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// fakeHub is a scripted hub on a loopback port: each request to a path
// is answered by the next handler queued for it (the last one answers
// every request after); it records the requests.
type fakeHub struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	handlers map[string][]http.HandlerFunc // "METHOD /path"
	reqs     []*http.Request
	token    string // GET /healthz?nonce= proves this one (unless scripted)
}

// newFakeHub is a fake hub whose token is "tok".
func newFakeHub(t *testing.T) *fakeHub {
	f := &fakeHub{t: t, handlers: map[string][]http.HandlerFunc{}, token: "tok"}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeHub) on(route string, h ...http.HandlerFunc) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.handlers[route] = append(f.handlers[route], h...)
}

// set replaces the handlers queued for route.
func (f *fakeHub) set(route string, h ...http.HandlerFunc) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.handlers[route] = h
}

func (f *fakeHub) requests() []*http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*http.Request(nil), f.reqs...)
}

// setToken changes the token the fake proves it knows.
func (f *fakeHub) setToken(tok string) {
	f.mu.Lock()
	f.token = tok
	f.mu.Unlock()
}

func (f *fakeHub) serve(w http.ResponseWriter, r *http.Request) {
	route := r.Method + " " + r.URL.Path
	f.mu.Lock()
	if _, scripted := f.handlers[route]; route == "GET /healthz" && !scripted {
		tok := f.token
		f.mu.Unlock()
		proveHealth(w, r, tok)
		return
	}
	f.reqs = append(f.reqs, r)
	hs := f.handlers[route]
	var h http.HandlerFunc
	if len(hs) > 0 {
		h = hs[0]
		if len(hs) > 1 {
			f.handlers[route] = hs[1:]
		}
	}
	f.mu.Unlock()
	if h == nil {
		http.Error(w, `{"error":{"code":"NOT_FOUND","message":"no script for `+route+`"}}`, 404)
		return
	}
	h(w, r)
}

// writeDataDir writes hub.json naming url and the token, as a hub does.
func writeDataDir(t *testing.T, dir, url, token string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, hub.DiscoveryFile), fmt.Appendf(nil, `{"url":%q,"pid":%d,"version":"test"}`, url, os.Getpid()), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, hub.TokenFile), []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// sse writes an event stream's head and the frames, flushed.
func sse(frames ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		for _, fr := range frames {
			fmt.Fprint(w, fr)
		}
		w.(http.Flusher).Flush()
	}
}

// event is one frame of a hub event.
func event(seq int64, typ, turnID string) string {
	return fmt.Sprintf("id: %d\nevent: %s\ndata: {\"seq\":%d,\"type\":%q,\"threadId\":\"th\",\"turnId\":%q,\"at\":\"2026-01-01T00:00:00Z\"}\n\n", seq, typ, seq, typ, turnID)
}

func jsonAnswer(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}
}

// proveHealth answers GET /healthz as a hub holding token does.
func proveHealth(w http.ResponseWriter, r *http.Request, token string) {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte(r.URL.Query().Get("nonce")))
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"ok":true,"version":"test","proof":%q}`, hex.EncodeToString(m.Sum(nil)))
}
