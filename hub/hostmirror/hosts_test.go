package hostmirror

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

// fakeLocal is a Local whose Mirror queues Writes and commits them in
// order on a goroutine of its own, once open is closed (so that several
// are queued at once), keeping hub.WriteChain's rule as the store does: a
// Write with a "bad" text is refused, and a refused Write breaks its
// chain. commits has the texts of each Write stored.
type fakeLocal struct {
	open    chan struct{}
	queue   chan fakeWrite
	mu      sync.Mutex
	commits [][]string
}

type fakeWrite struct {
	w    *hub.Write
	done chan error
}

func newFakeLocal(t *testing.T) *fakeLocal {
	f := &fakeLocal{open: make(chan struct{}), queue: make(chan fakeWrite, 64)}
	go func() {
		<-f.open
		for q := range f.queue {
			q.done <- f.apply(q.w)
		}
	}()
	t.Cleanup(func() { close(f.queue) })
	return f
}

func (f *fakeLocal) apply(w *hub.Write) error {
	if w.Chain != nil && w.Chain.Broken() {
		return hub.ErrChainBroken
	}
	var texts []string
	for _, ev := range w.Events {
		var p struct{ Text string }
		_ = json.Unmarshal(ev.Payload, &p)
		if p.Text == "bad" {
			if w.Chain != nil {
				w.Chain.Break()
			}
			return hub.Errorf(hub.CodeInvalidArgument, "refused")
		}
		texts = append(texts, ev.Type+":"+p.Text)
	}
	f.mu.Lock()
	f.commits = append(f.commits, texts)
	f.mu.Unlock()
	return nil
}

func (f *fakeLocal) local() Local {
	return Local{
		Mirror: func(w *hub.Write) <-chan error {
			done := make(chan error, 1)
			f.queue <- fakeWrite{w, done}
			return done
		},
		HostSeq: func(context.Context, string) (int64, string, error) { return 0, "", nil },
	}
}

// stored is every text stored, in order, and the count of commits.
func (f *fakeLocal) stored() (string, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var all []string
	for _, c := range f.commits {
		all = append(all, c...)
	}
	return strings.Join(all, " "), len(f.commits)
}

// A batch of a host's events goes in one Write; one the local hub
// refuses is left out, and the others are stored, in order: the link does
// not stop at it forever. Batches are queued without waiting for the
// last one's commit, and a refusal among them keeps the order: the
// Writes queued after the refused one are stored after what is kept of
// it.
func TestStoreBatchesAndLeavesOutWhatIsRefused(t *testing.T) {
	f := newFakeLocal(t)
	hs := New(f.local(), Options{})
	defer hs.Close()
	h := &host{name: "box", known: map[string]bool{}}
	ev := func(seq int64, typ, payload string) hub.Event {
		return hub.Event{Seq: seq, Type: typ, ThreadID: "t1", Payload: json.RawMessage(payload)}
	}
	p := &pipeline{hs: hs, h: h}
	batches := [][]hub.Event{
		{ev(1, hub.EventThreadUpdated, `{"thread":{"id":"t1","agent":"fake","cwd":"/w","status":"idle"}}`), ev(2, hub.EventMessageDelta, `{"text":"ok1"}`)},
		{ev(3, hub.EventToolCall, `{"text":"bad"}`), ev(4, hub.EventMessageDelta, `{"text":"ok2"}`)},
		{ev(5, hub.EventMessageDelta, `{"text":"ok3"}`)},
		{ev(6, hub.EventMessageDelta, `{"text":"ok4"}`), ev(7, hub.EventMessageDelta, `{"text":"ok5"}`)},
	}
	for _, b := range batches {
		if err := hs.store(t.Context(), h, nil, p, b); err != nil {
			t.Fatal(err)
		}
	}
	if len(p.queued) < 2 {
		t.Fatalf("%d Writes queued after four batches: want them queued without waiting for each commit", len(p.queued))
	}
	close(f.open)
	if err := p.drain(); err != nil {
		t.Fatal(err)
	}
	got, _ := f.stored()
	// ok4 and ok5, one batch's consecutive deltas, are one copy (joinDeltas).
	if want := "thread_updated: message_delta:ok1 message_delta:ok2 message_delta:ok3 message_delta:ok4ok5"; got != want {
		t.Fatalf("stored %q, want %q", got, want)
	}
	if !h.known["t1"] {
		t.Fatal("the thread is not known after its copies were stored")
	}

	// Without a refusal, one commit for the whole batch.
	_, before := f.stored()
	if err := hs.store(t.Context(), h, nil, p, []hub.Event{ev(8, hub.EventMessageDelta, `{"text":"a"}`), ev(9, hub.EventMessageDelta, `{"text":"b"}`)}); err != nil {
		t.Fatal(err)
	}
	if err := p.drain(); err != nil {
		t.Fatal(err)
	}
	if _, n := f.stored(); n != before+1 {
		t.Fatalf("%d commits for one batch of two events: want one", n-before)
	}
}

// A failure that is not a refusal (the disk) ends the stream: drain
// reports it, and nothing queued after it is stored (the link resumes
// from the last copy kept, so nothing is copied twice or out of order).
func TestPipelineStopsAtAFailure(t *testing.T) {
	var calls atomic.Int32
	local := Local{
		Mirror: func(w *hub.Write) <-chan error {
			done := make(chan error, 1)
			switch n := calls.Add(1); {
			case n == 2:
				w.Chain.Break()
				done <- hub.Errorf(hub.CodeInternal, "disk")
			case w.Chain.Broken():
				done <- hub.ErrChainBroken
			default:
				done <- nil
			}
			return done
		},
	}
	hs := New(local, Options{})
	defer hs.Close()
	p := &pipeline{hs: hs, h: &host{name: "box", known: map[string]bool{}}}
	for range 3 {
		if err := p.submit(&hub.Write{Events: []hub.Event{{Type: hub.EventMessageDelta, ThreadID: "t1@box"}}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.drain(); hub.ErrorCode(err) != hub.CodeInternal {
		t.Fatalf("drain: %v, want the disk's INTERNAL", err)
	}
	if n := calls.Load(); n != 3 {
		t.Fatalf("%d Writes queued, want 3 (none again after the failure)", n)
	}
	if len(p.queued) != 0 || p.chain.Broken() {
		t.Fatal("the pipeline is not empty and whole after its drain")
	}
}

// A follower waiting out its backoff after a failed dial tries again at
// once when Kicked (the link is back), not after the backoff: a long cut
// grows the backoff to its cap, and the catch-up would start that late.
func TestKickEndsTheBackoff(t *testing.T) {
	var dials atomic.Int32
	local := Local{
		Mirror:  func(*hub.Write) <-chan error { done := make(chan error, 1); done <- nil; return done },
		HostSeq: func(context.Context, string) (int64, string, error) { return 0, "", nil },
	}
	// A backoff no test outlives: only a Kick brings the second dial.
	hs := New(local, Options{Backoff: client.Backoff{Min: time.Hour, Max: time.Hour}})
	defer hs.Close()
	if err := hs.Add("box", func(context.Context) (*client.Client, error) {
		dials.Add(1)
		return nil, hub.HostUnreachable("box")
	}); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 10*time.Second, "the first dial", func() bool { return dials.Load() == 1 })
	hs.Kick("nope") // a host not added: nothing
	testkit.Never(t, 200*time.Millisecond, "a second dial before the backoff's end without a Kick", func() bool { return dials.Load() > 1 })
	hs.Kick("box")
	testkit.Eventually(t, 10*time.Second, "a second dial after the Kick", func() bool { return dials.Load() == 2 })
}
