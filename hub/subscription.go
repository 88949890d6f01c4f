package hub

import "sync"

// Subscription is one subscriber's event stream (Service.Subscribe). Read
// Events until it is closed; call Close when done.
type Subscription struct {
	events <-chan Event
	stop   func()
	once   sync.Once
}

// NewSubscription wraps a stream: the producer sends on events in Seq order
// and closes it when the stream ends — after stop, on an error, or after a
// final Event of type "resync" when the subscriber fell behind. stop is
// called once, by the first Close.
func NewSubscription(events <-chan Event, stop func()) *Subscription {
	return &Subscription{events: events, stop: stop}
}

// Events delivers the stream; it is closed when the stream ends.
func (s *Subscription) Events() <-chan Event { return s.events }

// Close ends the subscription. Safe to call more than once, from any
// goroutine.
func (s *Subscription) Close() {
	s.once.Do(func() {
		if s.stop != nil {
			s.stop()
		}
	})
}
