package client

import "time"

// Backoff is a reconnect delay schedule: Min, doubling up to Max.
type Backoff struct {
	Min, Max time.Duration
	n        int
}

// DefaultBackoff starts at 250 ms and is capped at 5 s.
func DefaultBackoff() Backoff { return Backoff{Min: 250 * time.Millisecond, Max: 5 * time.Second} }

// Next returns the next delay.
func (b *Backoff) Next() time.Duration {
	d := b.Min
	for i := 0; i < b.n && d < b.Max; i++ {
		d *= 2
	}
	b.n++
	return min(d, b.Max)
}

// Reset starts the schedule over (after a successful connection).
func (b *Backoff) Reset() { b.n = 0 }
