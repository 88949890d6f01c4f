// Package eventbus is the hub's fan-out of committed events to its
// subscribers (SSE streams, the window, the tray, the editor bridge): the
// engine publishes through it, and fakes of hub.Service in other packages'
// tests use the same one rather than a copy. It imports hub only.
package eventbus

import (
	"context"
	"sync"

	"github.com/switchboard-hub/switchboard/hub"
)

// Fan-out of committed events to subscribers (SSE streams, the window, the
// tray), after Tailscale's IPN bus:
//
//   - Registration and the catch-up boundary are taken under one lock, so a
//     subscriber gets every event with Seq > after exactly once: stored ones
//     (Seq ≤ boundary) read from the store, live ones (Seq > boundary) from
//     its buffer.
//   - Each subscriber has a bounded buffer. One that falls behind gets a
//     final "resync" event and is closed; it reconnects with its last Seq.
//   - publish never blocks on a subscriber.

// DefaultLiveBuffer is how many live events a subscriber may have unread
// beyond the outBuffer its goroutine already handed over.
const DefaultLiveBuffer = 8192

// outBuffer is how many events the subscriber's goroutine may hand over
// ahead of its reader: a commit's events reach the reader in one wake-up,
// which an SSE stream writes in one syscall, instead of one hand-off (and
// one write) per event.
const outBuffer = 256

// Reader reads the stored events back for a subscriber's catch-up: the
// store (hub.Store has it), or a fake's event log.
type Reader interface {
	Events(ctx context.Context, f hub.EventFilter) ([]hub.Event, error)
}

// Bus is one hub's fan-out. Its methods are safe for concurrent use.
type Bus struct {
	store      Reader
	liveBuffer int

	mu      sync.Mutex
	subs    map[*subscriber]struct{}
	lastSeq int64 // highest Seq published

	// The publisher (DECISIONS.md 0012): the store's writer hands each
	// committed Write's events over (enqueue) and goes on committing; one
	// goroutine publishes them, in the order handed over. So the writer
	// wakes one goroutine per batch, not every stream's for every event,
	// and is not descheduled mid fan-out while the next batch waits.
	pmu     sync.Mutex
	pending []published
	kick    chan struct{} // capacity 1
}

// published is one committed Write's events and what to do once they are
// published.
type published struct {
	events []hub.Event
	after  func() // nil: nothing
}

// New returns the bus of a hub whose stored events are read from store
// and go up to lastSeq. liveBuffer bounds each subscriber's unread live
// events (0: DefaultLiveBuffer). It starts the publisher goroutine
// (Enqueue), which lives as long as the process.
func New(store Reader, lastSeq int64, liveBuffer int) *Bus {
	if liveBuffer <= 0 {
		liveBuffer = DefaultLiveBuffer
	}
	b := &Bus{store: store, liveBuffer: liveBuffer, subs: make(map[*subscriber]struct{}), lastSeq: lastSeq, kick: make(chan struct{}, 1)}
	go b.publisher()
	return b
}

// Enqueue hands committed events to the publisher, which publishes them
// after everything enqueued before, then calls after (if not nil). It
// never blocks: called on the store's writer goroutine.
func (b *Bus) Enqueue(events []hub.Event, after func()) {
	if len(events) == 0 && after == nil {
		return
	}
	b.pmu.Lock()
	b.pending = append(b.pending, published{events, after})
	b.pmu.Unlock()
	select {
	case b.kick <- struct{}{}:
	default:
	}
}

// publisher publishes what enqueue hands over, forever (an engine lives
// as long as its process; an idle publisher is one parked goroutine).
func (b *Bus) publisher() {
	var batch []published
	for range b.kick {
		for {
			b.pmu.Lock()
			batch, b.pending = b.pending, batch[:0]
			b.pmu.Unlock()
			if len(batch) == 0 {
				break
			}
			for i, p := range batch {
				b.Publish(p.events)
				if p.after != nil {
					p.after()
				}
				batch[i] = published{}
			}
		}
	}
}

// subscriber is one registered stream; the caller holds it as a
// *hub.Subscription whose Close is stop.
type subscriber struct {
	bus    *Bus
	filter hub.EventFilter
	// live is written by publish under bus.mu and closed on overflow. It
	// holds pointers into the committed Writes' Events (never changed
	// after their commit), shared by every subscriber: a full buffer is
	// 64 KiB, not 8192 copies of an event.
	live chan *hub.Event
	out  chan hub.Event // read by the subscriber
	done chan struct{}  // closed by stop
	once sync.Once
	// overflowed is set under bus.mu when live was closed for lagging.
	overflowed bool
}

func (s *subscriber) stop() {
	s.once.Do(func() {
		s.bus.mu.Lock()
		delete(s.bus.subs, s)
		s.bus.mu.Unlock()
		close(s.done)
	})
}

// Subscribe registers a subscriber for events matching f with Seq >
// f.After (f.After < 0: from now on; past the last seq published: from
// the log's start): the stored ones first (read from the Reader), then
// live ones, with no gap and no duplicate.
func (b *Bus) Subscribe(f hub.EventFilter) *hub.Subscription {
	s := &subscriber{
		bus:    b,
		filter: f,
		live:   make(chan *hub.Event, b.liveBuffer),
		out:    make(chan hub.Event, outBuffer),
		done:   make(chan struct{}),
	}
	b.mu.Lock()
	boundary := b.lastSeq
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	// From now on. A resume point this hub never reached (its data dir
	// was reset since, or the point is another hub's) belongs to a log
	// this hub no longer has: everything in its log is new to the
	// subscriber, which gets it from the start, with seqs at or below its
	// point — the mirror of a host tells a reset host by them and copies
	// the new log whole, including what it logged before the link came
	// back (hub/hostmirror, ADR 0048).
	switch {
	case f.After < 0:
		f.After = boundary
	case f.After > boundary:
		f.After = 0
	}
	go s.run(f.After, boundary)
	return hub.NewSubscription(s.out, s.stop)
}

func (s *subscriber) matches(e *hub.Event) bool {
	if s.filter.ThreadID != "" && e.ThreadID != s.filter.ThreadID {
		return false
	}
	return s.filter.All || e.ClientID == s.filter.ClientID
}

// run delivers stored events in (after, boundary], then live ones.
func (s *subscriber) run(after, boundary int64) {
	defer close(s.out)
	defer s.stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-s.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	for caughtUp := after >= boundary; !caughtUp; {
		f := s.filter
		f.After, f.Limit = after, 1000
		page, err := s.bus.store.Events(ctx, f)
		if err != nil {
			return
		}
		caughtUp = len(page) < f.Limit
		for _, e := range page {
			if e.Seq > boundary {
				caughtUp = true
				break
			}
			if !s.send(e) {
				return
			}
			after = e.Seq
		}
	}
	for {
		select {
		case e, ok := <-s.live:
			if !ok {
				s.send(hub.Event{Type: hub.EventResync, Seq: after})
				return
			}
			if e.Seq == 0 { // never stored (disk_full): as it comes
				if !s.send(*e) {
					return
				}
				continue
			}
			if e.Seq <= after {
				continue // delivered by the catch-up already
			}
			if !s.send(*e) {
				return
			}
			after = e.Seq
		case <-s.done:
			return
		}
	}
}

func (s *subscriber) send(e hub.Event) bool {
	select {
	case s.out <- e:
		return true
	case <-s.done:
		return false
	}
}

// Publish hands committed events, in Seq order, to every matching
// subscriber. It never blocks: a subscriber whose buffer is full is cut
// off with a resync. The subscribers hold pointers into events: they must
// not change afterwards (a committed Write's events never do).
func (b *Bus) Publish(events []hub.Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := range events {
		e := &events[i]
		if e.Seq > b.lastSeq {
			b.lastSeq = e.Seq
		}
		for s := range b.subs {
			if s.overflowed || !s.matches(e) {
				continue
			}
			select {
			case s.live <- e:
			default:
				s.overflowed = true
				close(s.live)
			}
		}
	}
}

// Attached reports whether a subscriber of clientID receives the thread's
// events.
func (b *Bus) Attached(threadID, clientID string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs {
		if !s.overflowed && s.filter.ClientID == clientID && (s.filter.ThreadID == "" || s.filter.ThreadID == threadID) {
			return true
		}
	}
	return false
}

// Subscribers counts the registered subscribers.
func (b *Bus) Subscribers() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.subs)
}

// ResyncAll cuts every subscriber off as if it had fallen behind: each
// gets a resync event after what it has and is closed (its client resumes
// from its last seq).
func (b *Bus) ResyncAll() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs {
		if !s.overflowed {
			s.overflowed = true
			close(s.live)
		}
	}
}
