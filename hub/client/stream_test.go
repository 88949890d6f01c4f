package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

func testClient(f *fakeHub, o Options) *Client {
	if o.ClientID == "" {
		o.ClientID = "test"
	}
	return forHub(NewHub(f.srv.URL, "tok"), o)
}

func fastReconnect() StreamOptions {
	return StreamOptions{Reconnect: true, Backoff: Backoff{Min: time.Millisecond, Max: 5 * time.Millisecond}, GiveUpAfter: 2 * time.Second}
}

func readN(t *testing.T, s *Stream, n int) []hub.Event {
	t.Helper()
	var got []hub.Event
	for len(got) < n {
		ev, err := s.Next()
		if err != nil {
			t.Fatalf("after %d events: %v", len(got), err)
		}
		got = append(got, ev)
	}
	return got
}

func seqs(evs []hub.Event) []int64 {
	var out []int64
	for _, e := range evs {
		out = append(out, e.Seq)
	}
	return out
}

// A dropped connection is resumed with Last-Event-ID: the last id: seen,
// so nothing is lost or repeated; a resync reconnects at once.
func TestStreamResumesFromLastID(t *testing.T) {
	f := newFakeHub(t)
	f.on("GET /v1/events",
		sse(event(1, "turn_started", "tu"), event(2, "message_delta", "tu")), // then the connection ends
		sse(event(3, "message_delta", "tu"), "event: resync\ndata: {}\n\n"),
		sse(event(4, "turn_completed", "tu")),
	)
	c := testClient(f, Options{All: true})
	s, err := c.Events(context.Background(), 0, fastReconnect())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got := readN(t, s, 4)
	if want := "[1 2 3 4]"; fmt.Sprint(seqs(got)) != want {
		t.Errorf("seqs %v, want %s", seqs(got), want)
	}
	var resumed []string
	for _, r := range f.requests() {
		resumed = append(resumed, r.Header.Get("Last-Event-ID"))
		if r.URL.Query().Get("scope") != "all" || r.Header.Get("Authorization") != "Bearer tok" || r.Header.Get("X-Client-ID") != "test" {
			t.Errorf("request %s lacks scope, token or client id: %v %v", r.URL, r.URL.Query(), r.Header)
		}
	}
	if strings.Join(resumed, ",") != "0,2,3" {
		t.Errorf("Last-Event-ID of the connections: %q, want 0,2,3", resumed)
	}
}

// Without Reconnect each way a connection ends has its own error.
func TestStreamErrorsWithoutReconnect(t *testing.T) {
	tests := []struct {
		name string
		h    http.HandlerFunc
		o    Options
		want error
	}{
		{"dropped", sse(event(1, "plan", "")), Options{}, io.ErrUnexpectedEOF},
		{"resync", sse(event(1, "plan", ""), "event: resync\ndata: {}\n\n"), Options{}, ErrResync},
		{"silent", func(w http.ResponseWriter, r *http.Request) {
			sse(event(1, "plan", ""))(w, r)
			<-r.Context().Done()
		}, Options{IdleTimeout: 50 * time.Millisecond}, ErrIdle},
		{"line too long", sse(event(1, "plan", ""), "data: "+strings.Repeat("x", 4096)+"\n\n"), Options{MaxEventBytes: 1024}, ErrLineTooLong},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeHub(t)
			f.on("GET /v1/events", tt.h)
			s, err := testClient(f, tt.o).Events(context.Background(), -1, StreamOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if ev, err := s.Next(); err != nil || ev.Seq != 1 {
				t.Fatalf("first event: %+v %v", ev, err)
			}
			if _, err := s.Next(); !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
			if r := f.requests()[0]; r.URL.Query().Get("after") != "-1" || r.Header.Get("Last-Event-ID") != "" {
				t.Errorf("a live-only stream asked %s with Last-Event-ID %q", r.URL, r.Header.Get("Last-Event-ID"))
			}
		})
	}
}

// A line over the cap is not resumed even with Reconnect: it would come
// again.
func TestStreamLineTooLongIsFinal(t *testing.T) {
	f := newFakeHub(t)
	f.on("GET /v1/threads/th/events", sse("data: "+strings.Repeat("x", 4096)+"\n\n"))
	s, err := testClient(f, Options{MaxEventBytes: 1024}).ThreadEvents(context.Background(), "th", 0, fastReconnect())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Next(); !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("got %v, want ErrLineTooLong", err)
	}
	if n := len(f.requests()); n != 1 {
		t.Errorf("%d connections, want 1", n)
	}
}

// A turn's stream ends (io.EOF) after its turn_completed; dropped before
// it, it resumes on the thread's events after the last id.
func TestStreamTurn(t *testing.T) {
	f := newFakeHub(t)
	f.on("POST /v1/threads/th/turns", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Switchboard-Turn-ID", "tu")
		sse(event(5, "turn_started", "tu"), event(6, "message_delta", "tu"))(w, r)
	})
	f.on("GET /v1/threads/th/events",
		jsonAnswer(502, `{"error":{"code":"UPSTREAM_UNAVAILABLE","message":"restarting"}}`),
		sse(event(7, "message_delta", "tu"), event(8, "turn_completed", "tu"), event(9, "thread_updated", "")))
	s, err := testClient(f, Options{}).StreamTurn(context.Background(), "th", hub.TurnInput{Input: "hi"}, fastReconnect())
	if err != nil {
		t.Fatal(err)
	}
	if s.TurnID != "tu" {
		t.Errorf("TurnID %q", s.TurnID)
	}
	got := readN(t, s, 4)
	if got[3].Type != hub.EventTurnCompleted || got[3].Seq != 8 {
		t.Errorf("last event %+v", got[3])
	}
	if _, err := s.Next(); err != io.EOF {
		t.Errorf("after turn_completed: %v, want io.EOF", err)
	}
	reqs := f.requests()
	if len(reqs) != 3 || reqs[2].Header.Get("Last-Event-ID") != "6" || reqs[0].Header.Get("Content-Type") != "application/json" {
		t.Errorf("requests: %d, the resume's Last-Event-ID %q", len(reqs), reqs[len(reqs)-1].Header.Get("Last-Event-ID"))
	}
}

// An answer that reconnecting cannot change stops the reconnecting at
// once; so does GiveUpAfter for a hub that stays away.
func TestStreamGivesUp(t *testing.T) {
	f := newFakeHub(t)
	f.on("GET /v1/threads/th/events", sse(event(1, "plan", "")),
		jsonAnswer(404, `{"error":{"code":"NOT_FOUND","message":"thread gone"}}`))
	s, _ := testClient(f, Options{}).ThreadEvents(context.Background(), "th", 0, fastReconnect())
	readN(t, s, 1)
	if _, err := s.Next(); !IsCode(err, hub.CodeNotFound) || StatusOf(err) != 404 || hub.ErrorCode(err) != hub.CodeNotFound {
		t.Errorf("got %v, want the 404", err)
	}

	f2 := newFakeHub(t)
	f2.on("GET /v1/threads/th/events", sse(event(1, "plan", "")))
	c := testClient(f2, Options{})
	s, _ = c.ThreadEvents(context.Background(), "th", 0, StreamOptions{Reconnect: true, Backoff: Backoff{Min: time.Millisecond, Max: time.Millisecond}, GiveUpAfter: 50 * time.Millisecond})
	readN(t, s, 1)
	f2.srv.Close()
	start := time.Now()
	_, err := s.Next()
	var ue *UnreachableError
	if !errors.As(err, &ue) {
		t.Errorf("got %v, want an *UnreachableError", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("gave up after %v", time.Since(start))
	}
}

// Close ends a Next that waits on a quiet stream.
func TestStreamClose(t *testing.T) {
	f := newFakeHub(t)
	f.on("GET /v1/events", func(w http.ResponseWriter, r *http.Request) {
		sse()(w, r)
		<-r.Context().Done()
	})
	s, err := testClient(f, Options{}).Events(context.Background(), 0, fastReconnect())
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(50*time.Millisecond, func() { s.Close() })
	if _, err := s.Next(); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}
