package engine

import "time"

// The engine's clock: Options.Now and Options.AfterFunc (time.Now and
// time.AfterFunc unless a test passes a fake clock's). A turn's
// watchdog, a permission's escalation and expiry, an elicitation's expiry
// and an idle agent's stop run on it, so a test moves time instead of
// waiting for it. Still on the wall clock: a client request's timeout and
// linger, the disk-full retry, the store-failure fallbacks and the cancel
// deadline.

// Timer is a timer Options.AfterFunc started.
type Timer interface {
	// Stop prevents the function from running, as time.Timer.Stop.
	Stop() bool
}

// wallAfterFunc is the default Options.AfterFunc.
func wallAfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// after returns a channel that is closed once d has passed on the engine's
// clock, and the function that stops it (the channel then never closes).
func (e *Engine) after(d time.Duration) (<-chan struct{}, func() bool) {
	ch := make(chan struct{})
	t := e.afterFunc(d, func() { close(ch) })
	return ch, t.Stop
}

// until is the time left until t on the engine's clock.
func (e *Engine) until(t time.Time) time.Duration { return t.Sub(e.now()) }
