package acp

import (
	"context"
	"io"
	"sync"
	"unsafe"
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
	mu   sync.Mutex
	cond *sync.Cond
	// The items, oldest first: from head[headN] to tail[tailN-1]; n of
	// them. spare is a read block kept for the next push.
	head, tail   *itemBlock
	headN, tailN int
	n            int
	spare        *itemBlock
	bytes        int
	max          int
	closed       bool
}

func newInbox(max int) *inbox {
	q := &inbox{max: max}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// itemOverhead is what an item costs besides its line: the budget counts
// it, so that max bounds the memory a flood of small lines takes (at ~100
// bytes a line the items would otherwise weigh more than the lines).
const itemOverhead = int(unsafe.Sizeof(inboxItem{}))

// blockItems is the size of the inbox's blocks: items are kept in a chain
// of fixed blocks, each dropped once read, so a flood's queue neither
// doubles an array as it grows nor keeps it once drained.
const blockItems = 128

type itemBlock struct {
	items [blockItems]inboxItem
	next  *itemBlock
}

func (q *inbox) push(it inboxItem) {
	it.size += itemOverhead
	q.mu.Lock()
	defer q.mu.Unlock()
	for !q.closed && q.bytes > q.max && it.eof == nil {
		q.cond.Wait()
	}
	if q.closed {
		return
	}
	if q.tail == nil || q.tailN == blockItems {
		b := q.spare
		q.spare = nil
		if b == nil {
			b = new(itemBlock)
		}
		if q.tail == nil {
			q.head = b
		} else {
			q.tail.next = b
		}
		q.tail, q.tailN = b, 0
	}
	q.tail.items[q.tailN] = it
	q.tailN++
	q.n++
	q.bytes += it.size
	q.cond.Broadcast()
}

// pop waits for the next item; ok is false once the inbox is closed.
func (q *inbox) pop() (inboxItem, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for !q.closed && q.n == 0 {
		q.cond.Wait()
	}
	if q.closed {
		return inboxItem{}, false
	}
	b := q.head
	it := b.items[q.headN]
	b.items[q.headN] = inboxItem{}
	q.headN++
	q.n--
	if q.headN == blockItems || b == q.tail && q.headN == q.tailN {
		// The block is read: drop it (keep one for reuse).
		q.head, q.headN = b.next, 0
		if q.head == nil {
			q.tail, q.tailN = nil, 0
		}
		b.next = nil
		q.spare = b
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
