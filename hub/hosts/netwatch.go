package hosts

import (
	"sync"
	"time"
)

// The machine's network changes (a link, an address or a route came or
// went) make a link that is down try again at once (ADR 0055): a laptop's
// Wi-Fi back, a VPN up, a cable in. On a path that dropped packets during
// a cut, the attempt in flight when the network returns waits for its
// next SYN; a new attempt meets the network at once. Linux tells through
// rtnetlink (netwatch_linux.go); elsewhere nothing tells, and the link's
// retries (ADR 0054) are all there is.

// netChanges is the process's one watcher, started by the first link.
var netChanges = &netWatch{subs: map[chan struct{}]bool{}}

// netWatch hands each change to every subscriber: a channel of capacity
// one, so a subscriber busy meanwhile gets one wake for many changes.
type netWatch struct {
	once sync.Once
	mu   sync.Mutex
	subs map[chan struct{}]bool
}

// subscribe starts the watcher if it is not running yet and returns a
// channel that receives a value after each change (changes within
// netSettle of each other are one), and the func that unsubscribes.
func (w *netWatch) subscribe() (<-chan struct{}, func()) {
	w.once.Do(func() { watchNetwork(w.notify) })
	ch := make(chan struct{}, 1)
	w.mu.Lock()
	w.subs[ch] = true
	w.mu.Unlock()
	return ch, func() {
		w.mu.Lock()
		delete(w.subs, ch)
		w.mu.Unlock()
	}
}

// notify wakes every subscriber; it never blocks.
func (w *netWatch) notify() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for ch := range w.subs {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// netSettle joins the burst of messages one change makes (the link up,
// then its address, then its routes) into one wake.
const netSettle = 100 * time.Millisecond

// netRetryGap is the least time between two attempts a link starts
// because the network changed: a machine whose network never settles
// (containers coming and going) does not start ssh after ssh.
const netRetryGap = time.Second
