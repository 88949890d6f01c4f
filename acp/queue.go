package acp

import (
	"context"
	"io"
	"sync"
)

// inboxItem is one message read from the peer, waiting for the dispatcher.
type inboxItem struct {
	msg    wireMessage
	size   int
	ctx    context.Context // requests only: cancelled by $/cancel_request
	cancel context.CancelFunc
	eof    error // set on the last item: the stream ended with this cause
}

// inbox is the unbounded-by-count, bounded-by-bytes FIFO between the reader
// and the dispatcher. push blocks only while more than max bytes are queued
// (backpressure on the peer); it never waits on a handler otherwise.
type inbox struct {
	mu     sync.Mutex
	cond   *sync.Cond
	items  []inboxItem
	head   int
	bytes  int
	max    int
	closed bool
}

func newInbox(max int) *inbox {
	q := &inbox{max: max}
	q.cond = sync.NewCond(&q.mu)
	return q
}

func (q *inbox) push(it inboxItem) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for !q.closed && q.bytes > q.max && it.eof == nil {
		q.cond.Wait()
	}
	if q.closed {
		return
	}
	q.items = append(q.items, it)
	q.bytes += it.size
	q.cond.Broadcast()
}

// pop waits for the next item; ok is false once the inbox is closed.
func (q *inbox) pop() (inboxItem, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for !q.closed && q.head == len(q.items) {
		q.cond.Wait()
	}
	if q.closed {
		return inboxItem{}, false
	}
	it := q.items[q.head]
	q.items[q.head] = inboxItem{}
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	}
	q.bytes -= it.size
	q.cond.Broadcast()
	return it, true
}

// hold charges n more bytes to the budget without waiting (a request the
// dispatcher keeps waiting for a slot); release gives them back.
func (q *inbox) hold(n int) {
	q.mu.Lock()
	q.bytes += n
	q.mu.Unlock()
}

func (q *inbox) release(n int) {
	q.mu.Lock()
	q.bytes -= n
	q.mu.Unlock()
	q.cond.Broadcast()
}

func (q *inbox) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.cond.Broadcast()
}

// writeQueue serialises outgoing lines on one goroutine so that a peer that
// stops reading blocks nobody but that goroutine. Lines are written in push
// order. onErr is called once when a write fails.
type writeQueue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	lines  [][]byte
	closed bool
}

func newWriteQueue(w io.Writer, onErr func(error)) *writeQueue {
	q := &writeQueue{}
	q.cond = sync.NewCond(&q.mu)
	go q.run(w, onErr)
	return q
}

func (q *writeQueue) push(line []byte) {
	q.mu.Lock()
	if !q.closed {
		q.lines = append(q.lines, line)
		q.cond.Signal()
	}
	q.mu.Unlock()
}

func (q *writeQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.lines = nil
	q.mu.Unlock()
	q.cond.Signal()
}

func (q *writeQueue) run(w io.Writer, onErr func(error)) {
	for {
		q.mu.Lock()
		for !q.closed && len(q.lines) == 0 {
			q.cond.Wait()
		}
		if q.closed {
			q.mu.Unlock()
			return
		}
		batch := q.lines
		q.lines = nil
		q.mu.Unlock()
		for _, line := range batch {
			if _, err := w.Write(line); err != nil {
				onErr(err)
				return
			}
		}
	}
}
