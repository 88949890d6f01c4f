package tray

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

const testToken = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// fakeHub is an HTTP server speaking enough of the API for the client:
// permissions, threads, history, agents, decisions, cancel and an event
// stream fed from a channel. It checks the tray's headers on every /v1 call.
type fakeHub struct {
	t   *testing.T
	srv *httptest.Server
	dir string // data dir with hub.json and token

	mu        sync.Mutex
	perms     []Permission
	threads   []Thread
	history   map[string][]Turn
	decisions []string // "<id> <body> via=<X-Switchboard-Via>"
	cancels   []string
	lastIDs   []string // Last-Event-ID of each stream
	streams   int
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

func (h *fakeHub) openStreams() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.streams
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
	h := &fakeHub{t: t, dir: t.TempDir(), history: map[string][]Turn{}, events: make(chan string, 64)}
	h.srv = httptest.NewServer(http.HandlerFunc(h.serve))
	t.Cleanup(h.srv.Close)
	h.writeDiscovery(h.srv.URL)
	if err := os.WriteFile(filepath.Join(h.dir, "token"), []byte(testToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return h
}

func (h *fakeHub) writeDiscovery(url string) {
	b, _ := json.Marshal(Discovery{URL: url, PID: 42, Version: "test"})
	if err := os.WriteFile(filepath.Join(h.dir, "hub.json"), b, 0o600); err != nil {
		h.t.Fatal(err)
	}
}

func (h *fakeHub) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/healthz" {
		fmt.Fprint(w, `{"ok":true}`)
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
		js(map[string]any{"permissions": append([]Permission{}, h.perms...)})
	case r.Method == "GET" && p == "/v1/threads":
		js(map[string]any{"threads": append([]Thread{}, h.threads...)})
	case r.Method == "GET" && strings.HasSuffix(p, "/history"):
		js(map[string]any{"turns": h.history[strings.Split(p, "/")[3]]})
	case r.Method == "GET" && strings.HasPrefix(p, "/v1/threads/"):
		for _, t := range h.threads {
			if t.ID == strings.TrimPrefix(p, "/v1/threads/") {
				js(map[string]any{"thread": t})
				return
			}
		}
		fail(404, "NOT_FOUND")
	case r.Method == "GET" && p == "/v1/agents":
		js(map[string]any{"agents": []Agent{{ID: "claude", Name: "Claude Code"}}})
	case r.Method == "POST" && strings.HasPrefix(p, "/v1/permissions/"):
		if r.Header.Get("Content-Type") != "application/json" {
			fail(415, "UNSUPPORTED_MEDIA_TYPE")
			return
		}
		id := strings.TrimPrefix(p, "/v1/permissions/")
		b, _ := io.ReadAll(r.Body)
		h.decisions = append(h.decisions, fmt.Sprintf("%s %s via=%s", id, b, r.Header.Get("X-Switchboard-Via")))
		for i, pe := range h.perms {
			if pe.ID == id {
				h.perms = append(h.perms[:i], h.perms[i+1:]...)
				pe.Status, pe.DecidedBy = "approved", r.Header.Get("X-Switchboard-Via")
				js(map[string]any{"permission": pe})
				return
			}
		}
		fail(409, "CONFLICT")
	case r.Method == "POST" && strings.HasPrefix(p, "/v1/turns/"):
		h.cancels = append(h.cancels, strings.Split(p, "/")[3])
		js(map[string]any{"turn": Turn{ID: strings.Split(p, "/")[3], Status: "cancelled"}})
	case r.Method == "GET" && p == "/v1/events":
		h.streams++
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

func (h *fakeHub) client(t *testing.T) *Client {
	t.Helper()
	hub, err := Discover(h.dir)
	if err != nil {
		t.Fatal(err)
	}
	return &Client{Hub: hub}
}

func TestDiscover(t *testing.T) {
	dir := t.TempDir()
	if _, err := Discover(dir); !errors.Is(err, ErrNoHub) {
		t.Fatalf("no hub.json: %v, want ErrNoHub", err)
	}
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("hub.json", `{"url":"ftp://x"}`)
	if _, err := Discover(dir); err == nil || !strings.Contains(err.Error(), "not an http URL") {
		t.Fatalf("bad url: %v", err)
	}
	write("hub.json", `{"url":`)
	if _, err := Discover(dir); err == nil || !strings.Contains(err.Error(), "hub.json") {
		t.Fatalf("bad json: %v", err)
	}
	write("hub.json", `{"url":"http://127.0.0.1:8686/","pid":7,"version":"1.4.0"}`)
	if _, err := Discover(dir); err == nil || !strings.Contains(err.Error(), "token") {
		t.Fatalf("no token: %v", err)
	}
	write("token", "  \n")
	if _, err := Discover(dir); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Fatalf("empty token: %v", err)
	}
	write("token", testToken+"\n")
	h, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	if h.URL != "http://127.0.0.1:8686" || h.PID != 7 || h.Version != "1.4.0" || h.token != testToken {
		t.Fatalf("hub %+v", h)
	}
	if h.AuthURL() != "http://127.0.0.1:8686/auth?token="+testToken {
		t.Errorf("auth url %q", h.AuthURL())
	}
	// The token never shows in logs or %v.
	for _, s := range []string{h.String(), fmt.Sprint(h), h.LogValue().String()} {
		if strings.Contains(s, testToken) {
			t.Errorf("token in %q", s)
		}
	}
}

func TestClientCalls(t *testing.T) {
	h := newFakeHub(t)
	h.perms = []Permission{perm("pe1", "th1", "tu1", "rm", "allow_once")}
	h.threads = []Thread{{ID: "th1", Agent: "claude", Title: "T", Status: "running"}}
	h.history["th1"] = []Turn{{ID: "tu0", Status: "completed"}, {ID: "tu1", ThreadID: "th1", Status: "running"}}
	c := h.client(t)
	ctx := context.Background()

	s, err := c.snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Permissions) != 1 || s.Permissions[0].ID != "pe1" || len(s.Threads) != 1 ||
		len(s.Running) != 1 || s.Running[0].ID != "tu1" || len(s.Agents) != 1 {
		t.Fatalf("snapshot %+v", s)
	}
	p, err := c.Decide(ctx, "pe1", Decision{OptionID: "allow_once-id"})
	if err != nil || p.DecidedBy != "tray" {
		t.Fatalf("decide: %+v %v", p, err)
	}
	if _, err := c.Decide(ctx, "pe1", Decision{Outcome: "declined"}); !IsCode(err, "CONFLICT") {
		t.Fatalf("second decision: %v, want CONFLICT", err)
	}
	if _, err := c.Decide(ctx, "pe1", Decision{}); err == nil {
		t.Fatal("empty decision accepted")
	}
	if err := c.CancelTurn(ctx, "tu1"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Thread(ctx, "nope"); !IsCode(err, "NOT_FOUND") {
		t.Fatalf("thread: %v", err)
	}
	if err := c.Healthz(ctx); err != nil {
		t.Fatal(err)
	}
	want := []string{`pe1 {"optionId":"allow_once-id"} via=tray`, `pe1 {"outcome":"declined"} via=tray`}
	if !reflect.DeepEqual(h.decisions, want) || !reflect.DeepEqual(h.cancels, []string{"tu1"}) {
		t.Fatalf("decisions %q cancels %q", h.decisions, h.cancels)
	}

	bad := &Client{Hub: Hub{Discovery: Discovery{URL: h.srv.URL}, token: "wrong"}}
	_, err = bad.PendingPermissions(ctx)
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != 401 || ae.Code != "UNAUTHORIZED" || troubleReason(err) != "the hub refused the token" {
		t.Fatalf("wrong token: %v", err)
	}
	if strings.Contains(err.Error(), "wrong") {
		t.Errorf("token in error %q", err)
	}
}

func TestEventsStream(t *testing.T) {
	h := newFakeHub(t)
	c := h.client(t)
	h.push(": ping\n\n")
	h.push(sse(7, evTurnStarted, `"input":"hi"`))
	h.push("id: 8\r\nevent: permission_required\r\ndata: {\"seq\":8,\"type\":\"permission_required\",\r\ndata: \"permission\":{\"id\":\"pe1\",\"status\":\"pending\"}}\r\n\r\n")
	h.push(sse(9, "future_type", `"x":[1,2]`))
	h.push("id: 9\nevent: resync\ndata: {\"seq\":9,\"type\":\"resync\"}\n\n")
	var got []string
	opened := false
	err := c.Events(context.Background(), 6, func() error { opened = true; return nil }, func(ev Event) {
		s := fmt.Sprintf("%d %s", ev.Seq, ev.Type)
		if ev.Permission != nil {
			s += " " + ev.Permission.ID
		}
		got = append(got, s)
	})
	if !errors.Is(err, ErrResync) || !opened {
		t.Fatalf("err %v opened %v, want ErrResync", err, opened)
	}
	want := []string{"7 turn_started", "8 permission_required pe1", "9 future_type"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("events %q, want %q", got, want)
	}
	// Live only: ?after=-1 and no Last-Event-ID; a closed stream is
	// ErrUnexpectedEOF; onOpen's error closes the stream.
	h.push("CLOSE")
	if err := c.Events(context.Background(), -1, nil, func(Event) {}); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("closed stream: %v", err)
	}
	boom := errors.New("boom")
	if err := c.Events(context.Background(), 3, func() error { return boom }, func(Event) {}); !errors.Is(err, boom) {
		t.Fatalf("onOpen error: %v", err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if want := []string{"6|after=", "|after=-1", "3|after="}; !reflect.DeepEqual(h.lastIDs, want) {
		t.Fatalf("resume points %q, want %q", h.lastIDs, want)
	}
}

func TestEventsErrors(t *testing.T) {
	h := newFakeHub(t)
	c := h.client(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	if err := c.Events(ctx, -1, nil, func(Event) {}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	// Odd events are passed on with what can be read, never fatal.
	h.push("id: 3\nevent: x\ndata: {not json\n\n")
	h.push("data: {not json either\n\n")
	h.push(sse(4, evPermissionRequired, `"permission":"a string from the future"`))
	h.push(sse(5, evTurnStarted, ""))
	h.push("CLOSE")
	var got []string
	err := c.Events(context.Background(), -1, nil, func(ev Event) {
		got = append(got, fmt.Sprintf("%d %s %s %v", ev.Seq, ev.Type, ev.TurnID, ev.Permission))
	})
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("odd events: %v", err)
	}
	if want := []string{"3 x  <nil>", "4 permission_required tu1 <nil>", "5 turn_started tu1 <nil>"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("odd events %q, want %q", got, want)
	}
	c.Hub.token = "x"
	if err := c.Events(context.Background(), -1, nil, func(Event) {}); !IsCode(err, "UNAUTHORIZED") {
		t.Fatalf("401: %v", err)
	}
}

func TestEventsIdleTimeout(t *testing.T) {
	h := newFakeHub(t)
	c := h.client(t)
	old := streamIdleTimeout
	streamIdleTimeout = 100 * time.Millisecond
	t.Cleanup(func() { streamIdleTimeout = old })
	go func() {
		for range 3 {
			time.Sleep(50 * time.Millisecond)
			for h.openStreams() == 0 {
				time.Sleep(time.Millisecond)
			}
			h.pushCur(": ping\n\n") // pings keep it open
		}
	}()
	start := time.Now()
	if err := c.Events(context.Background(), -1, nil, func(Event) {}); !errors.Is(err, errStreamIdle) {
		t.Fatalf("silent stream: %v", err)
	}
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Fatalf("dropped after %v despite pings", d)
	}
}

// A hub that takes the connection but never answers is given up on too.
func TestEventsHungHub(t *testing.T) {
	old := streamIdleTimeout
	streamIdleTimeout = 100 * time.Millisecond
	t.Cleanup(func() { streamIdleTimeout = old })
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	t.Cleanup(srv.Close)
	c := &Client{Hub: Hub{Discovery: Discovery{URL: srv.URL}, token: "t"}}
	if err := c.Events(context.Background(), -1, nil, func(Event) {}); !errors.Is(err, errStreamIdle) {
		t.Fatalf("hung hub: %v", err)
	}
}

func TestReadSSELineCap(t *testing.T) {
	long := strings.Repeat("x", maxEventLine+1)
	err := readSSE(strings.NewReader("data: "+long+"\n\n"), func(frame) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "too long") {
		t.Fatalf("long line: %v", err)
	}
}

func TestBackoff(t *testing.T) {
	b := DefaultBackoff()
	var got []time.Duration
	for range 8 {
		got = append(got, b.Next())
	}
	ms := time.Millisecond
	want := []time.Duration{250 * ms, 500 * ms, 1000 * ms, 2000 * ms, 4000 * ms, 5000 * ms, 5000 * ms, 5000 * ms}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("delays %v, want %v", got, want)
	}
	b.Reset()
	if d := b.Next(); d != 250*ms {
		t.Fatalf("after reset %v", d)
	}
}
