package engine

import (
	"context"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// Rate limits (issue 32 reads them, issue 33 waits them out): when an
// agent reports that its provider refused it until a reset time — in a
// usage_update's _meta or in the error a prompt failed with
// (acp.RateLimit) — the thread's LimitedUntil is set to that time and
// announced (thread_updated). This side only records the time; the queue
// (issue 33) decides what happens at it and clears it with
// SetLimitedUntil.

// limitChange is the thread change that records a limit until t,
// announced.
func (e *Engine) limitChange(threadID string, t time.Time) hub.ThreadChange {
	t = t.UTC()
	return hub.ThreadChange{ThreadID: threadID, LimitedUntil: &t, UpdatedAt: e.now(), Announce: true}
}

// SetLimitedUntil sets a thread's limitedUntil to until, or clears it when
// until is zero, and announces the thread (thread_updated). For the hub's
// own callers (the queue at the reset time); NOT_FOUND for a thread that
// does not exist or is deleted.
func (e *Engine) SetLimitedUntil(ctx context.Context, threadID string, until time.Time) (hub.Thread, error) {
	if _, err := e.store.GetThread(ctx, threadID); err != nil {
		return hub.Thread{}, err
	}
	ch := e.limitChange(threadID, until)
	if until.IsZero() {
		var zero time.Time
		ch.LimitedUntil = &zero
	}
	w := &hub.Write{ThreadChanges: []hub.ThreadChange{ch}}
	if err := e.commit(w); err != nil {
		return hub.Thread{}, err
	}
	return w.ThreadChanges[0].Thread, nil
}
