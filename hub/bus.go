package hub

import (
	"context"
	"sync"
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

// liveBuffer is how many live events a subscriber may have unread.
const liveBuffer = 8192

type eventReader interface {
	Events(ctx context.Context, f EventFilter) ([]Event, error)
}

type bus struct {
	store eventReader

	mu      sync.Mutex
	subs    map[*Subscription]struct{}
	lastSeq int64 // highest Seq published
}

func newBus(store eventReader, lastSeq int64) *bus {
	return &bus{store: store, subs: make(map[*Subscription]struct{}), lastSeq: lastSeq}
}

// Subscription is one subscriber's stream. Read Events until it is closed;
// Close when done.
type Subscription struct {
	bus    *bus
	filter EventFilter
	live   chan Event    // written by publish under bus.mu, closed on overflow
	out    chan Event    // read by the subscriber
	done   chan struct{} // closed by Close
	once   sync.Once
	// overflowed is set under bus.mu when live was closed for lagging.
	overflowed bool
	stop       func() // NewSubscription's
}

// NewSubscription wraps a channel as a Subscription, for implementations of
// Service other than Engine (fakes in tests). The producer closes events
// when the stream ends; stop is called once by Close.
func NewSubscription(events chan Event, stop func()) *Subscription {
	return &Subscription{out: events, done: make(chan struct{}), stop: stop}
}

// Events delivers the stream. It is closed when the subscription ends:
// after Close, a store error, or a final Event of type "resync" when the
// subscriber fell behind.
func (s *Subscription) Events() <-chan Event { return s.out }

// Close ends the subscription. Safe to call more than once.
func (s *Subscription) Close() {
	s.once.Do(func() {
		if s.bus != nil {
			s.bus.mu.Lock()
			delete(s.bus.subs, s)
			s.bus.mu.Unlock()
		}
		if s.stop != nil {
			s.stop()
		}
		close(s.done)
	})
}

// subscribe registers a subscriber for events matching f with Seq >
// f.After (f.After < 0: from now on).
func (b *bus) subscribe(f EventFilter) *Subscription {
	s := &Subscription{
		bus:    b,
		filter: f,
		live:   make(chan Event, liveBuffer),
		out:    make(chan Event),
		done:   make(chan struct{}),
	}
	b.mu.Lock()
	boundary := b.lastSeq
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	if f.After < 0 {
		f.After = boundary
	}
	go s.run(f.After, boundary)
	return s
}

func (s *Subscription) matches(e Event) bool {
	if s.filter.ThreadID != "" && e.ThreadID != s.filter.ThreadID {
		return false
	}
	return s.filter.All || e.ClientID == s.filter.ClientID
}

// run delivers stored events in (after, boundary], then live ones.
func (s *Subscription) run(after, boundary int64) {
	defer close(s.out)
	defer s.Close()
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
				s.send(Event{Type: EventResync, Seq: after})
				return
			}
			if e.Seq <= after {
				continue // delivered by the catch-up already
			}
			if !s.send(e) {
				return
			}
			after = e.Seq
		case <-s.done:
			return
		}
	}
}

func (s *Subscription) send(e Event) bool {
	select {
	case s.out <- e:
		return true
	case <-s.done:
		return false
	}
}

// publish hands committed events, in Seq order, to every matching
// subscriber. It never blocks: a subscriber whose buffer is full is cut
// off with a resync.
func (b *bus) publish(events []Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range events {
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
