//go:build unix

package engine_test

import (
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub/engine"
)

// fakeClock is a clock that moves only when Advance is called: Now and
// AfterFunc for engine.Options. Timers due fire on Advance, in order, on
// the caller's goroutine.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
	// armedCh is closed (and replaced) each time a timer is armed: what
	// waitFor waits on.
	armedCh chan struct{}
}

type fakeTimer struct {
	c       *fakeClock
	at      time.Time
	f       func()
	stopped bool // guarded by c.mu
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Now(), armedCh: make(chan struct{})} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) engine.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	close(c.armedCh)
	c.armedCh = make(chan struct{})
	return t
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := !t.stopped
	t.stopped = true
	return was
}

// armedLocked counts the timers not yet fired nor stopped that fall due
// within d. c.mu is held.
func (c *fakeClock) armedLocked(d time.Duration) int {
	n := 0
	for _, t := range c.timers {
		if !t.stopped && !t.at.After(c.now.Add(d)) {
			n++
		}
	}
	return n
}

// waitFor waits until n timers that fall due within d are armed (the
// engine arms its timers on its own goroutines: a turn's watchdog, a
// permission's expiry, an idle agent's stop).
func (c *fakeClock) waitFor(t testing.TB, n int, d time.Duration) {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		c.mu.Lock()
		armed, ch := c.armedLocked(d), c.armedCh
		c.mu.Unlock()
		if armed >= n {
			return
		}
		select {
		case <-ch:
		case <-timeout:
			t.Fatalf("%d timers due within %v armed, want %d", armed, d, n)
		}
	}
}

// advanceOnce waits for a timer due within d, then moves the clock by d.
func (c *fakeClock) advanceOnce(t testing.TB, d time.Duration) {
	t.Helper()
	c.waitFor(t, 1, d)
	c.Advance(d)
}

// Advance moves the clock by d, firing every timer that falls due, those
// armed by the firing ones included.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	end := c.now.Add(d)
	c.mu.Unlock()
	for {
		c.mu.Lock()
		var next *fakeTimer
		for _, t := range c.timers {
			if !t.stopped && !t.at.After(end) && (next == nil || t.at.Before(next.at)) {
				next = t
			}
		}
		if next == nil {
			c.now = end
			c.mu.Unlock()
			return
		}
		next.stopped = true
		if next.at.After(c.now) {
			c.now = next.at
		}
		c.mu.Unlock()
		next.f()
	}
}
