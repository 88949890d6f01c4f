package engine

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// Prompts that wait (issue 33, ADR 0039): hub.QueueService.
//
// What is guaranteed: a queued prompt leaves the queue in the store
// transaction that stores the turn it became (hub.Write.Dequeue with the
// turn, startTurnAs), and that transaction commits before the prompt is
// written to the agent's stdin. So a prompt is sent at most once: of two
// starts of the same head only the first commits, and a restart never
// sends a prompt whose turn was stored. A crash between that commit and
// the agent's stdin loses the send, not the prompt's text: the restarted
// hub marks the turn interrupted (recover) with its input, and does not
// send it again — the user sees it and sends it again if they want.
//
// When the head is sent: at the end of a turn that completed (internal
// ones included, so a compaction does not strand the queue), when a
// prompt is queued on an idle thread, at the reset of a limit, at the
// user's SendNext, and when the hub starts (each idle thread with a
// queue). It is not sent while the thread is limited (limitedUntil in
// the future: one timer per limited thread, on the engine's clock, clears
// the limit and sends the head at the reset) nor while the queue is
// paused: after a turn cancelled, failed (but for a rate limit with a
// reset time) or limited without a reset time, nothing is re-sent — each
// retry costs money — until the user sends the next one.

// queues is the engine's queue state; its own lock.
type queues struct {
	mu sync.Mutex
	// locks serialise each thread's queue changes with the start of its
	// head (which must not be written back by a move once dequeued).
	locks map[string]*sync.Mutex
	// timers are the limited threads' reset timers, by thread id.
	timers map[string]Timer
}

// lock locks threadID's queue and returns its unlock.
func (q *queues) lock(threadID string) func() {
	q.mu.Lock()
	if q.locks == nil {
		q.locks = make(map[string]*sync.Mutex)
	}
	l := q.locks[threadID]
	if l == nil {
		l = new(sync.Mutex)
		q.locks[threadID] = l
	}
	q.mu.Unlock()
	l.Lock()
	return l.Unlock
}

// Enqueue implements hub.QueueService.
func (e *Engine) Enqueue(ctx context.Context, c hub.Caller, threadID string, in hub.TurnInput) (hub.QueuedPrompt, error) {
	t, err := e.visibleThread(ctx, c, threadID)
	if err != nil {
		return hub.QueuedPrompt{}, err
	}
	if _, _, _, err := promptBlocks(in); err != nil {
		return hub.QueuedPrompt{}, err
	}
	unlock := e.queues.lock(t.ID)
	list, err := e.store.QueuedPrompts(ctx, t.ID)
	if err != nil {
		unlock()
		return hub.QueuedPrompt{}, err
	}
	if len(list) >= hub.MaxQueuedPrompts {
		unlock()
		return hub.QueuedPrompt{}, hub.Errorf(hub.CodeTooManyRequests, "the queue of thread %s holds %d prompts already", t.ID, hub.MaxQueuedPrompts)
	}
	now := e.now()
	q := hub.QueuedPrompt{ID: newID("qp"), ThreadID: t.ID, Position: len(list), Input: in.Input, Content: in.Content, CreatedAt: now, UpdatedAt: now}
	w := &hub.Write{Queued: []hub.QueuedPrompt{q}}
	e.queuedEvents(w, t, q)
	if len(list) == 0 && t.QueuePaused != "" {
		var running string // a pause holds the prompts that waited, not a new queue
		w.ThreadChanges[0].QueuePaused = &running
	}
	err = e.commit(w)
	unlock()
	if err != nil {
		return hub.QueuedPrompt{}, err
	}
	e.kickQueue(t.ID) // an idle thread sends it now
	return q, nil
}

// Queue implements hub.QueueService.
func (e *Engine) Queue(ctx context.Context, c hub.Caller, threadID string) ([]hub.QueuedPrompt, error) {
	if _, err := e.visibleThread(ctx, c, threadID); err != nil {
		return nil, err
	}
	list, err := e.store.QueuedPrompts(ctx, threadID)
	if list == nil && err == nil {
		list = []hub.QueuedPrompt{}
	}
	return list, err
}

// EditQueued implements hub.QueueService.
func (e *Engine) EditQueued(ctx context.Context, c hub.Caller, threadID, queuedID string, ed hub.QueueEdit) (hub.QueuedPrompt, error) {
	t, err := e.visibleThread(ctx, c, threadID)
	if err != nil {
		return hub.QueuedPrompt{}, err
	}
	if ed.Input != nil && *ed.Input == "" {
		return hub.QueuedPrompt{}, hub.Errorf(hub.CodeInvalidArgument, `"input" cannot be empty: remove the prompt instead`)
	}
	defer e.queues.lock(t.ID)()
	list, err := e.store.QueuedPrompts(ctx, t.ID)
	if err != nil {
		return hub.QueuedPrompt{}, err
	}
	at := -1
	for i := range list {
		if list[i].ID == queuedID {
			at = i
		}
	}
	if at < 0 {
		return hub.QueuedPrompt{}, hub.Errorf(hub.CodeNotFound, "queued prompt %s not found", queuedID)
	}
	now := e.now()
	q := list[at]
	if ed.Input != nil {
		if len(q.Content) > 0 {
			return hub.QueuedPrompt{}, hub.Errorf(hub.CodeInvalidArgument, "queued prompt %s is content blocks, not text", queuedID)
		}
		q.Input, q.UpdatedAt = *ed.Input, now
	}
	to := at
	if ed.Position != nil {
		to = min(max(*ed.Position, 0), len(list)-1)
	}
	list = append(list[:at], list[at+1:]...)
	list = append(list[:to], append([]hub.QueuedPrompt{q}, list[to:]...)...)
	w := &hub.Write{}
	for i := range list {
		if list[i].Position != i || list[i].ID == q.ID {
			list[i].Position = i
			w.Queued = append(w.Queued, list[i])
		}
	}
	e.queuedEvents(w, t, list[to])
	if err := e.commit(w); err != nil {
		return hub.QueuedPrompt{}, err
	}
	return list[to], nil
}

// RemoveQueued implements hub.QueueService.
func (e *Engine) RemoveQueued(ctx context.Context, c hub.Caller, threadID, queuedID string) error {
	t, err := e.visibleThread(ctx, c, threadID)
	if err != nil {
		return err
	}
	defer e.queues.lock(t.ID)()
	list, err := e.store.QueuedPrompts(ctx, t.ID)
	if err != nil {
		return err
	}
	w := &hub.Write{Dequeue: []string{queuedID}}
	for i, q := range list {
		if q.ID == queuedID {
			for _, rest := range list[i+1:] {
				rest.Position--
				w.Queued = append(w.Queued, rest)
			}
			break
		}
	}
	ev, _ := hub.NewEvent(hub.EventPromptDequeued, t, "", e.now(), map[string]any{"queuedId": queuedID, "reason": hub.DequeuedRemoved})
	w.Events = append(w.Events, ev)
	w.ThreadChanges = []hub.ThreadChange{{ThreadID: t.ID, Announce: true}} // the thread's queued count
	if len(list) <= 1 && t.QueuePaused != "" {
		var running string // the queue is empty: nothing is paused
		w.ThreadChanges[0].QueuePaused = &running
	}
	return e.commit(w)
}

// SendNext implements hub.QueueService: the head now, whatever pause or
// limit holds the queue.
func (e *Engine) SendNext(ctx context.Context, c hub.Caller, threadID string) (hub.Turn, error) {
	t, err := e.visibleThread(ctx, c, threadID)
	if err != nil {
		return hub.Turn{}, err
	}
	defer e.queues.lock(t.ID)()
	tr, err := e.sendHead(ctx, t)
	if err != nil {
		return hub.Turn{}, err
	}
	if tr == nil {
		return hub.Turn{}, hub.Errorf(hub.CodeNotFound, "the queue of thread %s is empty", t.ID)
	}
	e.stopLimitTimer(t.ID)
	return tr.turn, nil
}

// queuedEvents adds to w the prompt_queued event of q (redacted) and the
// thread's announcement (its queued count).
func (e *Engine) queuedEvents(w *hub.Write, t hub.Thread, q hub.QueuedPrompt) {
	shown := q
	shown.Input = e.redactString(q.Input)
	if len(q.Content) > 0 {
		raw, _ := json.Marshal(q.Content)
		_ = json.Unmarshal(e.redactJSON(raw), &shown.Content)
	}
	ev, _ := hub.NewEvent(hub.EventPromptQueued, t, "", e.now(), map[string]any{"queued": shown})
	w.Events = append(w.Events, ev)
	w.ThreadChanges = append(w.ThreadChanges, hub.ThreadChange{ThreadID: t.ID, Announce: true})
}

// sendHead starts the head of t's queue as a turn (startTurnAs dequeues
// it in the turn's own Write); nil when the queue is empty. The caller
// holds the thread's queue lock.
func (e *Engine) sendHead(ctx context.Context, t hub.Thread) (*turnRT, error) {
	list, err := e.store.QueuedPrompts(ctx, t.ID)
	if err != nil || len(list) == 0 {
		return nil, err
	}
	return e.startTurnAs(ctx, t, list[0].TurnInput(), turnKind{queued: list[0].ID})
}

// kickQueue sends the head of the thread's queue on its own goroutine
// when nothing holds it: no turn running, no limit in the future (that
// arms the reset timer instead), no pause, the hub not closing. A start
// refused but for a running turn pauses the queue (failed), so that it
// is never retried in a loop.
func (e *Engine) kickQueue(threadID string) {
	e.mu.Lock()
	closing := e.closing
	if !closing {
		e.turnsWG.Add(1) // before Close can wait: closing is set under mu
	}
	e.mu.Unlock()
	if closing {
		return
	}
	go func() {
		defer e.turnsWG.Done()
		ctx := context.Background()
		defer e.queues.lock(threadID)()
		t, err := e.store.GetThread(ctx, threadID)
		if err != nil || t.Status == hub.ThreadRunning {
			return
		}
		// A limit still to come, or one past with nothing queued, waits
		// on its timer: at the reset (at once when past) it is cleared
		// and the head, if any, sent. An empty queue is no reason to
		// leave a thread "limited" for ever (a restart re-arms it too).
		if t.LimitedUntil != nil && (e.until(*t.LimitedUntil) > 0 || t.Queued == 0) {
			e.armLimitTimer(threadID, *t.LimitedUntil)
			return
		}
		if t.Queued == 0 || t.QueuePaused != "" {
			return
		}
		_, err = e.sendHead(ctx, t)
		switch hub.ErrorCode(err) {
		case "", hub.CodeConflict, hub.CodeNotFound:
		default:
			e.log.Warn("hub: sending the next queued prompt failed", "thread", threadID, "err", err)
			e.pauseQueue(threadID, hub.QueuePausedFailed)
		}
	}()
}

// pauseQueue records why the thread's queue waits for the user.
func (e *Engine) pauseQueue(threadID, why string) {
	e.commitAsync(&hub.Write{ThreadChanges: []hub.ThreadChange{{ThreadID: threadID, QueuePaused: &why, UpdatedAt: e.now(), Announce: true}}})
}

// queueAfterTurn is what the end of a turn does to the thread's queue,
// once its end is stored: a completed turn sends the next prompt; a
// limit with a reset time arms the timer; the rest leave the queue as
// the turn's final Write set it (queuePaused, queueHold).
func (e *Engine) queueAfterTurn(tr *turnRT, status string, limited *time.Time) {
	if limited != nil {
		e.armLimitTimer(tr.thread.ID, *limited)
		return
	}
	if status == hub.TurnCompleted {
		e.kickQueue(tr.thread.ID)
	}
}

// queueHold is the queuePaused the end of a turn sets, or nil: a user's
// turn cancelled or failed (not limited with a reset time) while prompts
// wait pauses the queue; nothing else changes it. A turn cancelled by the
// hub's own shutdown does not: the next start sends the head.
func (e *Engine) queueHold(tr *turnRT, status string, err error, limited *time.Time) *string {
	if tr.turn.Internal || limited != nil || status == hub.TurnCompleted {
		return nil
	}
	e.mu.Lock()
	closing := e.closing
	e.mu.Unlock()
	if closing {
		return nil
	}
	if list, qerr := e.store.QueuedPrompts(context.Background(), tr.thread.ID); qerr != nil || len(list) == 0 {
		return nil // nothing waits: nothing to pause
	}
	why := hub.QueuePausedFailed
	switch {
	case status == hub.TurnCancelled:
		why = hub.QueuePausedCancelled
	case acp.RateLimitedWithoutReset(err):
		why = hub.QueuePausedLimited // asks the user: "Resume"
	}
	return &why
}

// armLimitTimer (re)arms the thread's reset timer for until: at until,
// on the engine's clock, limitedUntil is cleared (thread_updated) and the
// head of the queue sent.
func (e *Engine) armLimitTimer(threadID string, until time.Time) {
	e.queues.mu.Lock()
	defer e.queues.mu.Unlock()
	if e.queues.timers == nil {
		e.queues.timers = make(map[string]Timer)
	}
	if old := e.queues.timers[threadID]; old != nil {
		old.Stop()
	}
	var self Timer
	self = e.afterFunc(max(e.until(until), 0), func() {
		e.queues.mu.Lock()
		current := e.queues.timers[threadID] == self
		if current {
			delete(e.queues.timers, threadID)
		}
		e.queues.mu.Unlock()
		if !current {
			return
		}
		t, err := e.store.GetThread(context.Background(), threadID)
		if err != nil || t.LimitedUntil == nil {
			return
		}
		if t.LimitedUntil.After(until) { // limited again meanwhile: its own timer
			return
		}
		if _, err := e.SetLimitedUntil(context.Background(), threadID, time.Time{}); err != nil {
			e.log.Warn("hub: clearing a thread's limit failed", "thread", threadID, "err", err)
			return
		}
		e.kickQueue(threadID)
	})
	e.queues.timers[threadID] = self
}

// stopLimitTimer stops the thread's reset timer, if any.
func (e *Engine) stopLimitTimer(threadID string) {
	e.queues.mu.Lock()
	defer e.queues.mu.Unlock()
	if t := e.queues.timers[threadID]; t != nil {
		t.Stop()
		delete(e.queues.timers, threadID)
	}
}

// resumeQueues is the queue's part of a start (New, after recover): each
// thread with queued prompts sends its head, or arms its reset timer from
// the stored limitedUntil; a limited thread with an empty queue arms its
// timer too, so that its limit is cleared at the reset.
func (e *Engine) resumeQueues(ctx context.Context) error {
	ids, err := e.store.WaitingThreads(ctx)
	if err != nil {
		return err
	}
	for _, id := range ids {
		e.kickQueue(id)
	}
	return nil
}
