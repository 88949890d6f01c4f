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
// stops reading blocks nobody but that goroutine and the answers waiting
// for room. Lines are written in push order. onErr is called once when a
// write fails.
//
// Its bytes (queued and being written) are bounded by max for answers to
// the peer's requests (pushWait): an answer waits for room, then for its
// own write, so a peer that does not read its input holds the requests it
// sent (and their slots, ConnOptions.MaxConcurrentRequests) instead of
// growing the queue. Our own calls and notifications (push) never wait:
// they are small, and the engine must not block on an agent. A line larger
// than max is admitted alone, when the queue is empty.
type writeQueue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	lines  [][]byte
	bytes  int // of the lines queued and the one being written
	max    int
	pushed uint64 // lines pushed so far; a line's number is pushed after its push
	wrote  uint64 // lines written so far (or dropped at close)
	closed bool
}

func newWriteQueue(w io.Writer, max int, onErr func(error)) *writeQueue {
	q := &writeQueue{max: max}
	q.cond = sync.NewCond(&q.mu)
	go q.run(w, onErr)
	return q
}

// pushLocked queues line; q.mu must be held.
func (q *writeQueue) pushLocked(line []byte) uint64 {
	q.lines = append(q.lines, line)
	q.bytes += len(line)
	q.pushed++
	q.cond.Broadcast()
	return q.pushed
}

// push queues line without waiting.
func (q *writeQueue) push(line []byte) {
	q.mu.Lock()
	if !q.closed {
		q.pushLocked(line)
	}
	q.mu.Unlock()
}

// pushWait queues line once the queue has room for it (see writeQueue),
// then waits until it has been written. It returns false when the queue
// closed first (the line is then dropped).
func (q *writeQueue) pushWait(line []byte) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	for !q.closed && q.bytes > 0 && q.bytes+len(line) > q.max {
		q.cond.Wait()
	}
	if q.closed {
		return false
	}
	n := q.pushLocked(line)
	for !q.closed && q.wrote < n {
		q.cond.Wait()
	}
	return q.wrote >= n
}

// queued is the number of bytes queued or being written.
func (q *writeQueue) queued() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.bytes
}

func (q *writeQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.lines = nil
	q.bytes = 0
	q.mu.Unlock()
	q.cond.Broadcast()
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
		line := q.lines[0]
		q.lines[0] = nil
		q.lines = q.lines[1:]
		if len(q.lines) == 0 {
			q.lines = nil // let the array go once drained
		}
		q.mu.Unlock()
		_, err := w.Write(line)
		q.mu.Lock()
		if !q.closed {
			q.bytes -= len(line)
			q.wrote++
		}
		q.cond.Broadcast()
		q.mu.Unlock()
		if err != nil {
			onErr(err)
			return
		}
	}
}
