package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// emit appends n message_delta events to a thread's log.
func (f *fake) emit(threadID string, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := 0; i < n; i++ {
		f.emitLocked(hub.EventMessageDelta, f.threads[threadID], "", map[string]string{"text": "x"})
	}
}

func (f *fake) eventCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.events)
}

// playedThread makes a thread whose finished turn left 4 events:
// turn_started, message_delta "one ", message_delta "two ", turn_completed.
func (h *harness) playedThread() (threadID, turnID string) {
	h.t.Helper()
	id := h.newThread("c1")
	before := h.fake.eventCount()
	var a struct{ Turn hub.Turn }
	h.mustJSON(h.call("POST", "/v1/threads/"+id+"/turns", `{"input":"one two"}`), 202, &a)
	waitFor(h.t, "the turn to finish", func() bool { return h.fake.eventCount() == before+4 })
	return id, a.Turn.ID
}

func seqs(frames []frame) string {
	var s []string
	for _, f := range frames {
		s = append(s, f.id)
	}
	return strings.Join(s, ",")
}

func TestSSEFraming(t *testing.T) {
	h := newHarness(t)
	id, turnID := h.playedThread()
	s := h.openStream(h.request("GET", "/v1/threads/"+id+"/events", ""))
	for k, v := range map[string]string{"Content-Type": "text/event-stream", "Cache-Control": "no-store", "X-Accel-Buffering": "no", "X-Content-Type-Options": "nosniff"} {
		if got := s.resp.Header.Get(k); got != v {
			t.Fatalf("%s = %q, want %q", k, got, v)
		}
	}
	first := s.nextEvent()
	var data map[string]any
	if err := json.Unmarshal([]byte(first.data), &data); err != nil {
		t.Fatalf("data %q: %v", first.data, err)
	}
	if want := "id: 1\nevent: turn_started\ndata: " + first.data + "\n\n"; first.raw != want {
		t.Fatalf("frame %q, want %q", first.raw, want)
	}
	if data["seq"] != 1.0 || data["type"] != "turn_started" || data["threadId"] != id || data["turnId"] != turnID || data["input"] != "one two" {
		t.Fatalf("data %v", data)
	}
	if _, err := time.Parse(time.RFC3339Nano, data["at"].(string)); err != nil {
		t.Fatalf("at: %v", err)
	}
	want := []string{"message_delta", "message_delta", "turn_completed"}
	for i, typ := range want {
		f := s.nextEvent()
		if f.event != typ || f.id != strconv.Itoa(i+2) {
			t.Fatalf("frame %d: %q", i+2, f.raw)
		}
	}
	// Stored events done, the stream stays open and goes live.
	s.quiet(50 * time.Millisecond)
	h.mustJSON(h.call("PATCH", "/v1/threads/"+id, `{"title":"live"}`), 200, nil)
	if f := s.nextEvent(); f.event != "thread_updated" || f.id != "5" {
		t.Fatalf("live frame %q", f.raw)
	}
}

func TestSSEResume(t *testing.T) {
	h := newHarness(t)
	id, _ := h.playedThread()
	path := "/v1/threads/" + id + "/events"
	cases := []struct {
		name     string
		query    string
		lastID   string
		wantSeqs string
	}{
		{"from start", "", "", "1,2,3,4"},
		{"after", "?after=2", "", "3,4"},
		{"Last-Event-ID", "", "3", "4"},
		{"Last-Event-ID wins over after", "?after=1", "3", "4"},
		{"empty Last-Event-ID falls back to after", "?after=2", " ", "3,4"},
		{"after the end", "?after=4", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := h.request("GET", path+c.query, "")
			if c.lastID != "" {
				req.Header.Set("Last-Event-ID", c.lastID)
			}
			s := h.openStream(req)
			var got []frame
			n := 0
			if c.wantSeqs != "" {
				n = len(strings.Split(c.wantSeqs, ","))
			}
			for range n {
				got = append(got, s.nextEvent())
			}
			if seqs(got) != c.wantSeqs {
				t.Fatalf("seqs %q, want %q", seqs(got), c.wantSeqs)
			}
			s.quiet(30 * time.Millisecond)
			s.resp.Body.Close()
		})
	}
	for _, bad := range []struct{ query, lastID string }{
		{"?after=x", ""}, {"?after=-2", ""}, {"?after=", ""}, {"?after=1.5", ""},
		{"", "abc"}, {"", "-1"}, {"?after=1", "1e3"},
	} {
		req := h.request("GET", path+bad.query, "")
		if bad.lastID != "" {
			req.Header.Set("Last-Event-ID", bad.lastID)
		}
		if r := h.send(req); r.status != 400 || r.code() != "INVALID_ARGUMENT" {
			t.Fatalf("%q / Last-Event-ID %q: %d %s", bad.query, bad.lastID, r.status, r.body)
		}
	}
	// ?after=-1: live events only.
	s := h.openStream(h.request("GET", path+"?after=-1", ""))
	s.quiet(30 * time.Millisecond)
	h.mustJSON(h.call("PATCH", "/v1/threads/"+id, `{"title":"now"}`), 200, nil)
	if f := s.nextEvent(); f.id != "5" {
		t.Fatalf("live-only stream: %q", f.raw)
	}
}

func TestSSEAllEventsScope(t *testing.T) {
	h := newHarness(t)
	mine, theirs := h.newThread("c1"), h.newThread("c2")
	h.fake.emit(mine, 1) // seq 1, before the streams open
	// The default of /v1/events: live only.
	live := h.openStream(h.request("GET", "/v1/events", ""))
	all := h.openStream(h.request("GET", "/v1/events?scope=all&after=0", "", withHeader("X-Client-ID", "tray")))
	replay := h.openStream(h.request("GET", "/v1/events?after=0", ""))
	waitFor(t, "3 subscribers", func() bool { return h.fake.openStreams() == 3 })
	h.fake.emit(theirs, 1) // seq 2
	h.fake.emit(mine, 1)   // seq 3
	if f := live.nextEvent(); f.id != "3" {
		t.Fatalf("c1 live stream got %q", f.raw)
	}
	if got := seqs([]frame{all.nextEvent(), all.nextEvent(), all.nextEvent()}); got != "1,2,3" {
		t.Fatalf("scope=all got %s", got)
	}
	if got := seqs([]frame{replay.nextEvent(), replay.nextEvent()}); got != "1,3" {
		t.Fatalf("c1 replay got %s", got)
	}
	live.quiet(30 * time.Millisecond)
	// A thread stream of another client's thread is NOT_FOUND, as JSON.
	if r := h.call("GET", "/v1/threads/"+theirs+"/events", ""); r.status != 404 || r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("foreign thread stream: %d %s", r.status, r.header.Get("Content-Type"))
	}
}

func TestSSEPing(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.PingInterval = 20 * time.Millisecond })
	s := h.openStream(h.request("GET", "/v1/events", ""))
	for i := 0; i < 2; i++ {
		f, ok := s.next()
		if !ok || f.raw != ": ping\n\n" || f.cmt != "ping" {
			t.Fatalf("frame %q, want a ping", f.raw)
		}
	}
}

func TestSSEResyncEndsStream(t *testing.T) {
	h := newHarness(t)
	id, _ := h.playedThread()
	s := h.openStream(h.request("GET", "/v1/threads/"+id+"/events?after=1", ""))
	if got := seqs([]frame{s.nextEvent(), s.nextEvent(), s.nextEvent()}); got != "2,3,4" {
		t.Fatalf("got %s", got)
	}
	h.fake.forceResync()
	f := s.nextEvent()
	if f.event != "resync" || f.id != "4" {
		t.Fatalf("frame %q, want a resync carrying the last id", f.raw)
	}
	if rest := s.rest(); len(rest) != 0 {
		t.Fatalf("events after resync: %v", rest)
	}
	waitFor(t, "the subscription to close", func() bool { return h.fake.openStreams() == 0 })
}

func TestSSEClientDisconnectClosesSubscription(t *testing.T) {
	h := newHarness(t)
	s := h.openStream(h.request("GET", "/v1/events", ""))
	waitFor(t, "the subscription", func() bool { return h.fake.openStreams() == 1 })
	s.resp.Body.Close()
	waitFor(t, "the subscription to close", func() bool { return h.fake.openStreams() == 0 })
}

func TestSSEManyEventsInOrder(t *testing.T) {
	h := newHarness(t)
	id := h.newThread("c1")
	s := h.openStream(h.request("GET", "/v1/threads/"+id+"/events", ""))
	waitFor(t, "the subscription", func() bool { return h.fake.openStreams() == 1 })
	const n = 20000
	go h.fake.emit(id, n)
	for i := 1; i <= n; i++ {
		if f := s.nextEvent(); f.id != strconv.Itoa(i) {
			t.Fatalf("event %d has id %s", i, f.id)
		}
	}
}

func TestServeAndShutdownEndStreams(t *testing.T) {
	f := newFake()
	srv := New(hub.Services{Service: f}, Options{Token: testToken})
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	url := "http://" + l.Addr().String()
	req, _ := http.NewRequest("GET", url+"/v1/events", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("X-Client-ID", "c1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || srv.Port() != l.Addr().(*net.TCPAddr).Port {
		t.Fatalf("status %d, port %d", resp.StatusCode, srv.Port())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v (an SSE stream kept it waiting?)", err)
	}
	if err := <-served; err != http.ErrServerClosed {
		t.Fatalf("Serve: %v", err)
	}
	buf := make([]byte, 1)
	if _, err := resp.Body.Read(buf); err == nil {
		t.Fatal("stream still open after Shutdown")
	}
	if err := srv.Serve(l); err != http.ErrServerClosed {
		t.Fatalf("Serve after Shutdown: %v", err)
	}
}

// A client that stopped reading its stream (its socket full, the
// handler blocked in Write) must not hold Shutdown up until its deadline.
// (Regression: `switchboard serve` took 15 s to stop on SIGTERM and
// exited 1 with "http: context deadline exceeded".)
func TestShutdownWithStalledStream(t *testing.T) {
	f := newFake()
	srv := New(hub.Services{Service: f}, Options{Token: testToken})
	tl, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := newStallListener(tl, 1<<20) // the stream's client reads nothing past 1 MiB
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	c := hub.Caller{ClientID: "c1"}
	th, err := f.CreateThread(context.Background(), c, hub.CreateThreadRequest{Agent: "echo", Cwd: "/tmp"})
	if err != nil {
		t.Fatal(err)
	}
	// 32 MiB of stored events: far more than the socket buffers hold.
	f.mu.Lock()
	big := map[string]string{"text": strings.Repeat("x", 32<<10)}
	for i := 0; i < 1024; i++ {
		f.emitLocked(hub.EventMessageDelta, f.threads[th.ID], "", big)
	}
	f.mu.Unlock()
	req, _ := http.NewRequest("GET", "http://"+l.Addr().String()+"/v1/events?after=0", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("X-Client-ID", "c1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close() // never read: the client has stalled
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	// A healthy stream beside it still ends cleanly (its final chunk
	// written, no "unexpected EOF").
	healthyReq, _ := http.NewRequest("GET", "http://"+l.Addr().String()+"/v1/events", nil)
	healthyReq.Header = req.Header.Clone()
	healthy, err := http.DefaultClient.Do(healthyReq)
	if err != nil {
		t.Fatal(err)
	}
	defer healthy.Body.Close()
	healthyEnd := make(chan error, 1)
	go func() { _, err := io.ReadAll(healthy.Body); healthyEnd <- err }()
	select { // the handler fills the socket and blocks
	case <-l.stalled:
	case <-time.After(10 * time.Second):
		t.Fatal("the stalled stream's handler never blocked in Write")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v after %v", err, time.Since(start))
	}
	if d := time.Since(start); d > shutdownWriteGrace+2*time.Second {
		t.Errorf("Shutdown took %v with a stalled stream", d)
	}
	if err := <-served; err != http.ErrServerClosed {
		t.Fatalf("Serve: %v", err)
	}
	if err := <-healthyEnd; err != nil {
		t.Errorf("a healthy stream ended with %v, want a clean end", err)
	}
}

func turnStreamRequest(h *harness, threadID, input string, opts ...reqOpt) *http.Request {
	opts = append([]reqOpt{withHeader("Accept", "text/event-stream")}, opts...)
	return h.request("POST", "/v1/threads/"+threadID+"/turns", `{"input":"`+input+`"}`, opts...)
}

func TestTurnStream(t *testing.T) {
	h := newHarness(t)
	id, _ := h.playedThread() // older events must not be replayed
	s := h.openStream(turnStreamRequest(h, id, "alpha beta gamma"))
	turnID := s.resp.Header.Get(TurnHeader)
	events := s.rest()
	var types []string
	for _, f := range events {
		types = append(types, f.event)
		var e hub.Event
		if err := json.Unmarshal([]byte(f.data), &e); err != nil || e.TurnID != turnID || turnID == "" {
			t.Fatalf("event %q of turn %q (header %q)", f.raw, e.TurnID, turnID)
		}
	}
	if got := strings.Join(types, ","); got != "turn_started,message_delta,message_delta,message_delta,turn_completed" {
		t.Fatalf("events %s", got)
	}
	if events[0].id != "5" {
		t.Fatalf("first id %s", events[0].id)
	}
	waitFor(t, "the subscription to close", func() bool { return h.fake.openStreams() == 0 })
}

func TestTurnStreamOnlyThatTurn(t *testing.T) {
	h := newHarness(t)
	id := h.newThread("c1")
	s := h.openStream(turnStreamRequest(h, id, "hold"))
	turnID := s.resp.Header.Get(TurnHeader)
	if f := s.nextEvent(); f.event != "turn_started" {
		t.Fatalf("first %q", f.raw)
	}
	// An event of the thread that is not the turn's is left out.
	h.mustJSON(h.call("PATCH", "/v1/threads/"+id, `{"title":"meanwhile"}`), 200, nil)
	h.mustJSON(h.call("POST", "/v1/turns/"+turnID+"/cancel", ""), 200, nil)
	rest := s.rest()
	if len(rest) != 1 || rest[0].event != "turn_completed" || !strings.Contains(rest[0].data, `"cancelled"`) {
		t.Fatalf("rest %v", rest)
	}
}

func TestTurnStreamEndsOnError(t *testing.T) {
	h := newHarness(t)
	id := h.newThread("c1")
	s := h.openStream(turnStreamRequest(h, id, "fail now"))
	var types []string
	for _, f := range s.rest() {
		types = append(types, f.event)
	}
	if got := strings.Join(types, ","); got != "turn_started,message_delta,message_delta,error" {
		t.Fatalf("events %s", got)
	}
}

func TestTurnStreamRefusedAsJSON(t *testing.T) {
	h := newHarness(t)
	id := h.newThread("c1")
	h.mustJSON(h.call("POST", "/v1/threads/"+id+"/turns", `{"input":"hold"}`), 202, nil)
	for name, req := range map[string]*http.Request{
		"conflict": turnStreamRequest(h, id, "again"),
		"foreign":  turnStreamRequest(h, id, "x", withHeader("X-Client-ID", "c2")),
		"bad body": h.request("POST", "/v1/threads/"+id+"/turns", `{"input":`, withHeader("Accept", "text/event-stream")),
	} {
		r := h.send(req)
		want := map[string]int{"conflict": 409, "foreign": 404, "bad body": 400}[name]
		if r.status != want || r.header.Get("Content-Type") != "application/json" {
			t.Fatalf("%s: %d %s %s", name, r.status, r.header.Get("Content-Type"), r.body)
		}
	}
	if n := h.fake.openStreams(); n != 0 {
		t.Fatalf("%d subscriptions left open", n)
	}
}

func TestWantsEventStream(t *testing.T) {
	for accept, want := range map[string]bool{
		"":                                    false,
		"application/json":                    false,
		"text/event-stream":                   true,
		"application/json, text/event-stream": true,
		"text/event-stream;q=0.5":             true,
		"text/event-stream;q=0":               false,
		"text/event-stream; q=0.0":            false,
		"*/*":                                 false,
		"Text/Event-Stream":                   true,
	} {
		if got := wantsEventStream([]string{accept}); got != want {
			t.Errorf("Accept %q: %v, want %v", accept, got, want)
		}
	}
}

// HEAD on a stream answers the headers and ends instead of hanging.
func TestSSEHead(t *testing.T) {
	h := newHarness(t)
	r := h.call("HEAD", "/v1/events", "")
	if r.status != 200 || r.header.Get("Content-Type") != "text/event-stream" || len(r.body) != 0 {
		t.Fatalf("%d %v %q", r.status, r.header, r.body)
	}
	waitFor(t, "the subscription to close", func() bool { return h.fake.openStreams() == 0 })
}
