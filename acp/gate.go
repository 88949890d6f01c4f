package acp

import "sync"

// waitingRequestCost is what a request waiting for a slot is charged
// against ConnOptions.MaxQueuedBytes on top of its line: roughly what its
// context, its cancel entry and its queue slot cost. It bounds how many
// requests may wait (8 MiB / 4 KiB = 2048 with the defaults) however small
// they are.
const waitingRequestCost = 4 << 10

// requestGate bounds how many of the peer's requests are handled at once
// (ConnOptions.MaxConcurrentRequests). Requests past the bound wait in
// arrival order and are started as slots free; none is refused. It never
// blocks the dispatcher: a waiting request stays charged to the inbox's
// byte budget (in.hold) until it starts, so many waiting requests push back
// on the peer through the reader, as any queued message does.
type requestGate struct {
	max int // ≤ 0: no bound

	mu      sync.Mutex
	running int
	waiting []inboxItem
	head    int
}

// admit reports whether it can start now (a slot is taken for it); if not,
// it queues it.
func (g *requestGate) admit(it inboxItem) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.max <= 0 || g.running < g.max {
		g.running++
		return true
	}
	g.waiting = append(g.waiting, it)
	return false
}

// next hands the slot of a finished request to the first waiting one
// (ok), or frees it.
func (g *requestGate) next() (inboxItem, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.head == len(g.waiting) {
		g.running--
		return inboxItem{}, false
	}
	it := g.waiting[g.head]
	g.waiting[g.head] = inboxItem{}
	g.head++
	if g.head == len(g.waiting) {
		g.waiting, g.head = g.waiting[:0], 0
	}
	return it, true
}

// counts reports how many gated requests are being handled and how many
// wait (for tests and diagnostics).
func (g *requestGate) counts() (running, waiting int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.running, len(g.waiting) - g.head
}
