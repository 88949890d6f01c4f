package client

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The constructors the tests make their clients with; TestLeanClient
// swaps in the lean ones. No test of this package runs in parallel.
var (
	newClient = New
	forHub    = ForHub
)

// The lean client (NewLean, ForHubLean: a proven connection per request,
// lean.go) passes what the pooled one does: every test below that makes
// its clients through newClient, forHub or testClient, run again with
// the lean constructors — the proof before any token (squatters, a hub
// replaced between two calls), a token rotated, a restarted hub, error
// answers, and streams resumed, cut, idle, closed and given up.
func TestLeanClient(t *testing.T) {
	newClient, forHub = NewLean, ForHubLean
	t.Cleanup(func() { newClient, forHub = New, ForHub })
	for name, test := range map[string]func(*testing.T){
		"DecideResult": TestDecideResult, "DecideBatch": TestDecideBatch, "Rules": TestRules,
		"PermissionsPage": TestPermissionsPage, "ClientFollowsARestartedHub": TestClientFollowsARestartedHub,
		"ErrorAnswer": TestErrorAnswer, "HistoryPage": TestHistoryPage, "StreamSurfacesCutEvents": TestStreamSurfacesCutEvents,
		"SquatterGetsNoToken": TestSquatterGetsNoToken, "SquatterAfterTheHubDies": TestSquatterAfterTheHubDies,
		"TokenRotationReread": TestTokenRotationReread, "Search": TestSearch, "SessionCalls": TestSessionCalls,
		"ShelfCalls": TestShelfCalls, "ImportNotRetried": TestImportNotRetried,
		"StreamResumesFromLastID": TestStreamResumesFromLastID, "StreamErrorsWithoutReconnect": TestStreamErrorsWithoutReconnect,
		"StreamLineTooLongIsFinal": TestStreamLineTooLongIsFinal, "StreamTurn": TestStreamTurn,
		"StreamGivesUp": TestStreamGivesUp, "StreamClose": TestStreamClose, "CompletedTurn": TestCompletedTurn,
		"WorkCalls": TestWorkCalls, "LeanConnections": testLeanConnections, "LeanHungHub": testLeanHungHub,
	} {
		t.Run(name, test)
	}
}

// testLeanConnections: each request of a lean client goes on a connection
// of its own (proven first: the squatter tests), which ends with the
// answer (Connection: close); a context that ends
// mid-stream ends the read with the context's error; only http:// URLs.
func testLeanConnections(t *testing.T) {
	f := newFakeHub(t)
	f.on("GET /v1/agents", jsonAnswer(200, `{"agents":[]}`))
	f.on("GET /v1/events", func(w http.ResponseWriter, r *http.Request) {
		sse(event(1, "turn_started", "tu"))(w, r)
		<-r.Context().Done()
	})
	conns := map[string]bool{}
	c := ForHubLean(NewHub(f.srv.URL, "tok"), Options{ClientID: "test"})
	for range 3 {
		if _, err := c.Agents(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	agents := 0
	for _, r := range f.requests() {
		if r.URL.Path == "/v1/agents" {
			agents++
			conns[r.RemoteAddr] = true
			if !r.Close {
				t.Errorf("a request without Connection: close")
			}
		}
	}
	if agents != 3 || len(conns) != 3 {
		t.Errorf("%d requests on %d connections, want 3 on 3", agents, len(conns))
	}

	ctx, cancel := context.WithCancel(context.Background())
	s, err := c.Events(ctx, 0, StreamOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Next(); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(50*time.Millisecond, cancel)
	if _, err := s.Next(); !errors.Is(err, context.Canceled) {
		t.Errorf("Next after cancel: %v, want context.Canceled", err)
	}

	if _, err := ForHubLean(NewHub("https://127.0.0.1:1", "tok"), Options{}).Agents(context.Background()); err == nil ||
		!strings.Contains(err.Error(), "only http://") {
		t.Errorf("an https hub: %v, want only http://", err)
	}
}

// A lean client's request to a hub that takes the connection and never
// answers, not even the proof, ends when its context does.
func testLeanHungHub(t *testing.T) {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err = ForHubLean(NewHub("http://"+l.Addr().String(), "tok"), Options{}).Events(ctx, 0, StreamOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("returned after %v: the proof's own timeout, not the context", d)
	}
}
