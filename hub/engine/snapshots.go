package engine

import (
	"context"
	"sync"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// Snapshots off the prompt's path (issue 31 "Speed", ADR 0042). The
// checkpoint before a turn, the snapshot at its end and the overlap check
// after it (overlaps.go) run on the thread's snapshot lane, one after
// another in the order they were queued, never on the goroutine that sends
// the prompt or records a cancel. What must see a turn's snapshots waits
// for the lane instead:
//   - the agent's fs/*, terminal/create and permission requests of a turn
//     wait until its checkpoint is stored (holdForCheckpoint): whatever
//     the hub serves or asks for lands after the checkpoint;
//   - reading or restoring checkpoints, Changes and reverts wait until the
//     lane has run every snapshot queued before them (settleSnapshots);
//   - a turn's end waits (bounded) for its turn-end snapshot (queueTurnEnd).

// snapshotTimeout bounds one snapshot job's git.
const snapshotTimeout = 30 * time.Second

// snapLane runs a thread's snapshot jobs in order. The zero value is
// ready; its mutex is a leaf.
type snapLane struct {
	mu   sync.Mutex
	tail chan struct{} // closed once the last job queued ran; nil: none yet
}

// queue runs fn after every job queued before it, on its own goroutine
// (counted in wg), and returns a channel closed once fn returned.
func (l *snapLane) queue(wg *sync.WaitGroup, fn func(context.Context)) <-chan struct{} {
	done := make(chan struct{})
	l.mu.Lock()
	prev := l.tail
	l.tail = done
	l.mu.Unlock()
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		if prev != nil {
			<-prev
		}
		ctx, cancel := context.WithTimeout(context.Background(), snapshotTimeout)
		defer cancel()
		fn(ctx)
	}()
	return done
}

// settled returns a channel closed once every job queued so far ran.
func (l *snapLane) settled() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tail == nil {
		c := make(chan struct{})
		close(c)
		return c
	}
	return l.tail
}

// settleSnapshots waits until the thread's snapshot lane ran every job
// queued so far (or ctx ends: its error).
func (e *Engine) settleSnapshots(ctx context.Context, threadID string) error {
	select {
	case <-e.runtime(threadID).snaps.settled():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// queueCheckpoint queues the checkpoint before tr (beforeTurn) on its
// thread's lane and returns the channel the agent's requests wait on
// (holdForCheckpoint). t is the thread as the turn found it.
func (e *Engine) queueCheckpoint(tr *turnRT, t hub.Thread) <-chan struct{} {
	gate, turn := e.checkpointGate, tr.turn
	return tr.rt.snaps.queue(&e.snapsWG, func(ctx context.Context) {
		if gate != nil {
			gate(t.ID)
		}
		e.beforeTurn(ctx, t, turn)
	})
}

// turnEndSnapshotWait bounds how long a turn's end waits for its turn-end
// snapshot (finishTurn): long enough for any ordinary checkout (tens of
// ms at 10k files), short enough that a huge one cannot hold a cancel.
const turnEndSnapshotWait = 2 * time.Second

// queueTurnEnd queues the snapshot at the end of tr (afterTurn) and the
// overlap check it allows (overlaps.go) on its thread's lane, and waits
// until the snapshot is stored, at most turnEndSnapshotWait. So, in all
// but a huge checkout, what anyone changes after seeing turn_completed is
// "changed since the agent's turn" (a revert refuses to lose it); past the
// bound, changes made before the late snapshot count as the agent's. A
// turn that ends while its own checkpoint is still being taken (a cancel
// at once) does not wait: the lane is busy with the checkpoint.
func (e *Engine) queueTurnEnd(tr *turnRT) {
	wait := true
	if tr.checkpointed != nil {
		select {
		case <-tr.checkpointed:
		default:
			wait = false
		}
	}
	snapped := make(chan struct{})
	tr.rt.snaps.queue(&e.snapsWG, func(ctx context.Context) {
		r, end := e.afterTurn(ctx, tr)
		close(snapped)
		if end != "" {
			e.checkOverlaps(ctx, tr.turn.ThreadID, &r, end)
		}
	})
	if !wait {
		return
	}
	t := time.NewTimer(turnEndSnapshotWait)
	defer t.Stop()
	select {
	case <-snapped:
	case <-t.C:
		e.log.Warn("hub: the turn-end snapshot is slow: the turn ends without waiting for it", "thread", tr.turn.ThreadID, "turn", tr.turn.ID)
	}
}

// holdForCheckpoint makes an agent's request wait until the checkpoint
// before the thread's running turn is stored: nothing the hub serves or
// asks for on the agent's behalf changes the folder before it. It returns
// ctx's error when the request ends first. Outside a turn, or for a turn
// without a checkpoint, it returns at once.
func (c *threadClient) holdForCheckpoint(ctx context.Context) error {
	c.rt.mu.Lock()
	tr := c.rt.turn
	c.rt.mu.Unlock()
	if tr == nil || tr.checkpointed == nil {
		return nil
	}
	select {
	case <-tr.checkpointed:
		tr.wd.touch() // the wait was the hub's, not the agent's silence
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
