package eventbus

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// memLog is an in-memory event log standing in for the store.
type memLog struct {
	mu     sync.Mutex
	events []hub.Event
}

func (m *memLog) append(typ, thread, client string) hub.Event {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := hub.Event{Seq: int64(len(m.events) + 1), Type: typ, ThreadID: thread, ClientID: client}
	m.events = append(m.events, e)
	return e
}

func (m *memLog) Events(_ context.Context, f hub.EventFilter) ([]hub.Event, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []hub.Event
	for _, e := range m.events {
		if e.Seq <= f.After || (f.ThreadID != "" && e.ThreadID != f.ThreadID) || (!f.All && e.ClientID != f.ClientID) {
			continue
		}
		out = append(out, e)
		if len(out) == f.Limit {
			break
		}
	}
	return out, nil
}

func collect(t *testing.T, s *hub.Subscription, n int) []hub.Event {
	t.Helper()
	var got []hub.Event
	timeout := time.After(10 * time.Second)
	for len(got) < n {
		select {
		case e, ok := <-s.Events():
			if !ok {
				t.Fatalf("closed after %d of %d events", len(got), n)
			}
			got = append(got, e)
		case <-timeout:
			t.Fatalf("got %d of %d events", len(got), n)
		}
	}
	return got
}

// A subscriber joining mid-stream, resuming from an old seq while writes go
// on, sees every event after it exactly once, in order.
func TestBusCatchUpThenLiveNoGapNoDuplicate(t *testing.T) {
	log := &memLog{}
	b := New(log, 0, 0)
	for i := 0; i < 2500; i++ {
		b.Publish([]hub.Event{log.append("message_delta", "t1", "c1")})
	}
	sub := b.Subscribe(hub.EventFilter{After: 100, ClientID: "c1"})
	defer sub.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 3000; i++ {
			b.Publish([]hub.Event{log.append("message_delta", "t1", "c1")})
		}
	}()
	got := collect(t, sub, 5400)
	<-done
	for i, e := range got {
		if e.Seq != int64(101+i) {
			t.Fatalf("event %d has seq %d, want %d", i, e.Seq, 101+i)
		}
	}
}

// A resume point past the log's end (a hub whose data dir was reset, its
// seqs starting over) is the log's start: all of it arrives, with seqs
// lower than the point, then the next events; nothing is held back.
func TestBusResumePastTheEndIsTheStart(t *testing.T) {
	log := &memLog{}
	b := New(log, 0, 0)
	for range 3 {
		b.Publish([]hub.Event{log.append("message_delta", "t1", "c1")})
	}
	// A point this log never reached (another log's): the whole log, then
	// what comes next, with no gap and no duplicate.
	sub := b.Subscribe(hub.EventFilter{After: 1000, All: true})
	defer sub.Close()
	b.Publish([]hub.Event{log.append("message_delta", "t1", "c1")})
	b.Publish([]hub.Event{log.append("turn_completed", "t1", "c1")})
	got := collect(t, sub, 5)
	for i, ev := range got {
		if ev.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d; want the log from seq 1 to 5", i, ev.Seq)
		}
	}
}

func TestBusFiltersByClientAndThread(t *testing.T) {
	log := &memLog{}
	b := New(log, 0, 0)
	mine := b.Subscribe(hub.EventFilter{After: -1, ClientID: "c1"})
	thread := b.Subscribe(hub.EventFilter{After: -1, ClientID: "c2", ThreadID: "t3"})
	all := b.Subscribe(hub.EventFilter{After: -1, All: true})
	defer mine.Close()
	defer thread.Close()
	defer all.Close()
	b.Publish([]hub.Event{log.append("x", "t1", "c1"), log.append("x", "t2", "c2"), log.append("x", "t3", "c2")})
	if e := collect(t, mine, 1)[0]; e.ThreadID != "t1" {
		t.Fatalf("c1 got %+v", e)
	}
	if e := collect(t, thread, 1)[0]; e.ThreadID != "t3" {
		t.Fatalf("thread subscriber got %+v", e)
	}
	if got := collect(t, all, 3); got[2].Seq != 3 {
		t.Fatalf("scope=all got %+v", got)
	}
	b.Publish([]hub.Event{log.append("x", "t9", "c9")})
	select {
	case e := <-mine.Events():
		t.Fatalf("c1 saw another client's event %+v", e)
	case <-time.After(50 * time.Millisecond):
	}
}

// A subscriber that stops reading gets one resync and is closed; publish
// never blocks on it.
func TestBusSlowSubscriberResync(t *testing.T) {
	log := &memLog{}
	b := New(log, 0, 0)
	slow := b.Subscribe(hub.EventFilter{After: -1, All: true})
	start := time.Now()
	for i := 0; i < DefaultLiveBuffer*2; i++ {
		b.Publish([]hub.Event{log.append("message_delta", "t1", "c1")})
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("publish blocked for %v", d)
	}
	var last hub.Event
	n := 0
	for e := range slow.Events() {
		last = e
		n++
	}
	if last.Type != hub.EventResync || n > DefaultLiveBuffer+outBuffer+2 {
		t.Fatalf("after %d events the last was %+v", n, last)
	}
	if last.Seq != int64(n-1) {
		t.Fatalf("resync carries seq %d after %d delivered events", last.Seq, n-1)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.subs) != 0 {
		t.Fatal("lagging subscriber still registered")
	}
}

func TestBusCloseEndsStream(t *testing.T) {
	b := New(&memLog{}, 0, 0)
	s := b.Subscribe(hub.EventFilter{After: -1, All: true})
	s.Close()
	s.Close()
	select {
	case _, ok := <-s.Events():
		if ok {
			t.Fatal("event after close")
		}
	case <-time.After(2 * time.Second):
		t.Fatal("stream not closed")
	}
}

// The publisher publishes what is handed over in order, each Write's
// events before its after func runs, without the enqueuer waiting.
func TestBusEnqueueOrder(t *testing.T) {
	log := &memLog{}
	b := New(log, 0, 0)
	s := b.Subscribe(hub.EventFilter{After: -1, All: true})
	defer s.Close()
	const writes = 500
	var mu sync.Mutex
	var afters []int64 // the bus's lastSeq when each after ran
	ran := make(chan struct{}, writes)
	for range writes {
		evs := []hub.Event{log.append("x", "t1", "c1"), log.append("x", "t2", "c2")}
		b.Enqueue(evs, func() {
			b.mu.Lock()
			seq := b.lastSeq
			b.mu.Unlock()
			mu.Lock()
			afters = append(afters, seq)
			mu.Unlock()
			ran <- struct{}{}
		})
	}
	got := collect(t, s, 2*writes)
	for i, e := range got {
		if e.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d: out of order", i, e.Seq)
		}
	}
	timeout := time.After(10 * time.Second)
	for n := 0; n < writes; n++ {
		select {
		case <-ran:
		case <-timeout:
			t.Fatalf("%d of %d after funcs ran", n, writes)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(afters) != writes {
		t.Fatalf("%d of %d after funcs ran", len(afters), writes)
	}
	for i, seq := range afters {
		if seq < int64(2*(i+1)) {
			t.Fatalf("write %d's after ran at lastSeq %d, before its events were published", i, seq)
		}
	}
}
