package tray

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

const testToken = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// fakeHub is an HTTP server speaking enough of the API for the tray:
// permissions, threads (paged), history, agents, decisions, cancel and an
// event stream fed from a channel. It checks the tray's headers on every
// /v1 call.
type fakeHub struct {
	t   *testing.T
	srv *httptest.Server
	dir string // data dir with hub.json and token

	mu        sync.Mutex
	perms     []hub.Permission
	threads   []hub.Thread
	history   map[string][]hub.Turn
	decisions []string // "<id> <body> secret=<whether X-Switchboard-Tray is testTraySecret>"
	cancels   []string
	lastIDs   []string // Last-Event-ID of each stream
	codes     []string // the next of each POST /v1/auth/codes
	// events is raw SSE text for the next stream to write (a fresh channel
	// for each stream, so a dying stream never eats the next one's).
	events chan string
	cur    chan string // the newest stream's
}

// push queues raw SSE text for the next stream.
func (h *fakeHub) push(s string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events <- s
}

// pushCur sends raw SSE text to the newest open stream.
func (h *fakeHub) pushCur(s string) {
	h.mu.Lock()
	c := h.cur
	h.mu.Unlock()
	c <- s
}

func newFakeHub(t *testing.T) *fakeHub {
	t.Helper()
	h := &fakeHub{t: t, dir: t.TempDir(), history: map[string][]hub.Turn{}, events: make(chan string, 64)}
	h.srv = httptest.NewServer(http.HandlerFunc(h.serve))
	t.Cleanup(h.srv.Close)
	h.writeDiscovery(h.srv.URL)
	if err := os.WriteFile(filepath.Join(h.dir, "token"), []byte(testToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return h
}

func (h *fakeHub) writeDiscovery(url string) {
	b, _ := json.Marshal(hub.Discovery{URL: url, PID: 42, Version: "test"})
	if err := os.WriteFile(filepath.Join(h.dir, "hub.json"), b, 0o600); err != nil {
		h.t.Fatal(err)
	}
}

func (h *fakeHub) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/healthz" {
		m := hmac.New(sha256.New, []byte(testToken))
		m.Write([]byte(r.URL.Query().Get("nonce")))
		fmt.Fprintf(w, `{"ok":true,"version":"test","proof":%q}`, hex.EncodeToString(m.Sum(nil)))
		return
	}
	fail := func(status int, code string) {
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":{"code":%q,"message":"fake says no","details":{}}}`, code)
	}
	if r.Header.Get("Authorization") != "Bearer "+testToken {
		fail(401, "UNAUTHORIZED")
		return
	}
	if r.Header.Get("X-Client-ID") != ClientID || r.URL.Query().Get("scope") != "all" {
		fail(400, "INVALID_ARGUMENT")
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	js := func(v any) { _ = json.NewEncoder(w).Encode(v) }
	switch p := r.URL.Path; {
	case r.Method == "GET" && p == "/v1/permissions":
		if r.URL.Query().Get("status") != "pending" {
			fail(400, "INVALID_ARGUMENT")
			return
		}
		js(map[string]any{"permissions": append([]hub.Permission{}, h.perms...)})
	case r.Method == "GET" && p == "/v1/threads":
		// Pages of ?limit= (default 50) from the offset ?cursor= names.
		limit, err := strconv.Atoi(r.URL.Query().Get("limit"))
		if err != nil {
			limit = 50
		}
		from, _ := strconv.Atoi(r.URL.Query().Get("cursor"))
		page := hub.ThreadPage{Threads: append([]hub.Thread{}, h.threads[min(from, len(h.threads)):min(from+limit, len(h.threads))]...)}
		if from+limit < len(h.threads) {
			page.NextCursor = strconv.Itoa(from + limit)
		}
		js(page)
	case r.Method == "GET" && strings.HasSuffix(p, "/history"):
		turns, ok := h.history[strings.Split(p, "/")[3]]
		if !ok {
			fail(404, "NOT_FOUND")
			return
		}
		js(map[string]any{"turns": turns})
	case r.Method == "GET" && strings.HasPrefix(p, "/v1/threads/"):
		for _, t := range h.threads {
			if t.ID == strings.TrimPrefix(p, "/v1/threads/") {
				js(map[string]any{"thread": t})
				return
			}
		}
		fail(404, "NOT_FOUND")
	case r.Method == "POST" && p == "/v1/auth/codes":
		var body struct{ Next string }
		_ = json.NewDecoder(r.Body).Decode(&body)
		h.codes = append(h.codes, body.Next)
		w.WriteHeader(201)
		js(map[string]string{"url": "http://" + r.Host + "/auth?code=c0de" + strconv.Itoa(len(h.codes))})
	case r.Method == "GET" && p == "/v1/agents":
		js(map[string]any{"agents": []hub.Agent{{ID: "claude", Name: "Claude Code"}}})
	case r.Method == "POST" && strings.HasPrefix(p, "/v1/permissions/"):
		if r.Header.Get("Content-Type") != "application/json" {
			fail(415, "UNSUPPORTED_MEDIA_TYPE")
			return
		}
		id := strings.TrimPrefix(p, "/v1/permissions/")
		b, _ := io.ReadAll(r.Body)
		secret := r.Header.Get(hub.TraySecretHeader) == testTraySecret
		h.decisions = append(h.decisions, fmt.Sprintf("%s %s secret=%v", id, b, secret))
		for i, pe := range h.perms {
			if pe.ID == id {
				h.perms = append(h.perms[:i], h.perms[i+1:]...)
				pe.Status, pe.DecidedBy = "approved", "client:"+r.Header.Get("X-Client-ID")
				if secret {
					pe.DecidedBy = "tray"
				}
				js(map[string]any{"permission": pe})
				return
			}
		}
		fail(409, "CONFLICT")
	case r.Method == "POST" && strings.HasPrefix(p, "/v1/turns/"):
		h.cancels = append(h.cancels, strings.Split(p, "/")[3])
		js(map[string]any{"turn": hub.Turn{ID: strings.Split(p, "/")[3], Status: "cancelled"}})
	case r.Method == "GET" && p == "/v1/events":
		h.lastIDs = append(h.lastIDs, r.Header.Get("Last-Event-ID")+"|after="+r.URL.Query().Get("after"))
		events := h.events
		h.events = make(chan string, 64)
		h.cur = events
		h.mu.Unlock()
		defer h.mu.Lock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		for {
			select {
			case <-r.Context().Done():
				return
			case s := <-events:
				if s == "CLOSE" {
					return
				}
				io.WriteString(w, s)
				w.(http.Flusher).Flush()
			}
		}
	default:
		fail(404, "NOT_FOUND")
	}
}

// sse is one event as the hub frames it.
func sse(seq int64, typ string, payload string) string {
	body := fmt.Sprintf(`{"seq":%d,"type":%q,"threadId":"th1","turnId":"tu1","at":"2026-11-21T06:00:00Z"`, seq, typ)
	if payload != "" {
		body += "," + payload
	}
	return fmt.Sprintf("id: %d\nevent: %s\ndata: %s}\n\n", seq, typ, body)
}

// testTraySecret is the secret of the app that started the tray in tests.
const testTraySecret = "0123456789abcdef0123456789abcdef"

// client is the tray's client of the fake hub, found through its data dir,
// as the app's tray (with its secret).
func (h *fakeHub) client(t *testing.T) *client.Client {
	t.Helper()
	found, err := client.Discover(h.dir)
	if err != nil {
		t.Fatal(err)
	}
	return (&Watcher{TraySecret: testTraySecret}).clientFor(found)
}

// The tray's calls: a snapshot of every client's resources, decisions as
// the tray, cancel, a thread that is gone, a refused token.
func TestClientCalls(t *testing.T) {
	h := newFakeHub(t)
	h.perms = []hub.Permission{perm("pe1", "th1", "tu1", "rm", "allow_once")}
	h.threads = []hub.Thread{{ID: "th1", Agent: "claude", Title: "T", Status: "running"}}
	h.history["th1"] = []hub.Turn{{ID: "tu0", Status: "completed"}, {ID: "tu1", ThreadID: "th1", Status: "running"}}
	c := h.client(t)
	ctx := context.Background()

	s, err := snapshot(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Permissions) != 1 || s.Permissions[0].ID != "pe1" || len(s.Threads) != 1 ||
		len(s.Running) != 1 || s.Running[0].ID != "tu1" || len(s.Agents) != 1 {
		t.Fatalf("snapshot %+v", s)
	}
	p, err := c.Decide(ctx, "pe1", hub.Decision{OptionID: "allow_once-id"})
	if err != nil || p.DecidedBy != "tray" {
		t.Fatalf("decide: %+v %v", p, err)
	}
	w := &Watcher{DataDir: h.dir, Log: quietLog()}
	w.client = c
	if err := w.Decide(ctx, "pe1", hub.Decision{Outcome: "declined"}); !client.IsCode(err, "CONFLICT") {
		t.Fatalf("second decision: %v, want CONFLICT", err)
	}
	if err := w.Decide(ctx, "pe1", hub.Decision{}); err == nil {
		t.Fatal("empty decision accepted")
	}
	if err := w.CancelTurn(ctx, "tu1"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Thread(ctx, "nope"); !client.IsCode(err, "NOT_FOUND") {
		t.Fatalf("thread: %v", err)
	}
	if err := c.Healthz(ctx); err != nil {
		t.Fatal(err)
	}
	want := []string{`pe1 {"optionId":"allow_once-id"} secret=true`, `pe1 {"outcome":"declined"} secret=true`}
	if !reflect.DeepEqual(h.decisions, want) || !reflect.DeepEqual(h.cancels, []string{"tu1"}) {
		t.Fatalf("decisions %q cancels %q", h.decisions, h.cancels)
	}

	bad := (&Watcher{}).clientFor(client.NewHub(h.srv.URL, "wrong"))
	_, err = bad.Permissions(ctx, hub.PermissionPending)
	// The hub cannot prove a token it does not have: the tray never sends
	// it, as it would not to a squatter on a stale hub.json's port.
	var nh *client.NotHubError
	if !errors.As(err, &nh) || troubleReason(err) != "what answers at hub.json's address does not know the token" {
		t.Fatalf("wrong token: %v (%s)", err, troubleReason(err))
	}
	var ae *client.Error
	if reason := troubleReason(&client.Error{Status: 401, Code: "UNAUTHORIZED"}); !errors.As(&client.Error{}, &ae) || reason != "the hub refused the token" {
		t.Fatalf("a 401: %s", reason)
	}
	if strings.Contains(err.Error(), "wrong") {
		t.Errorf("token in error %q", err)
	}
}

// The snapshot reads every page of threads (up to maxThreadPages) and
// finds the running turn of a running thread however old.
func TestSnapshotPages(t *testing.T) {
	h := newFakeHub(t)
	for i := range 250 {
		h.threads = append(h.threads, hub.Thread{ID: fmt.Sprintf("th%03d", i), Agent: "claude", Status: "idle"})
	}
	h.threads[249].Status = "running"
	h.history["th249"] = []hub.Turn{{ID: "tu1", ThreadID: "th249", Status: "running"}, {ID: "tu2", ThreadID: "th249", Status: "completed"}}
	h.threads[248].Status = "running" // deleted meanwhile: its history is NOT_FOUND
	s, err := snapshot(context.Background(), h.client(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Threads) != 250 || len(s.Running) != 1 || s.Running[0].ID != "tu1" {
		t.Fatalf("%d threads, running %+v", len(s.Threads), s.Running)
	}
}
