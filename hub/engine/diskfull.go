package engine

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// A data dir whose disk fills up (docs/SECURITY.md "Resource limits"):
// writes fail with hub.ErrDiskFull until space returns. The hub says so
// hub-wide (disk_full, never stored: it could not be), and a turn's end —
// its status and turn_completed — is written again until it is stored, so
// no turn stays "running" once there is room. Other writes that fail are
// lost as before (their callers see the error). A hub stopped meanwhile
// gives up; restart recovery ends the turn (interrupted).

// Backoff of retryTurnEnd: the first wait, doubled up to the last.
const (
	storeRetryFirst = 100 * time.Millisecond
	storeRetryMax   = 5 * time.Second
)

// diskFullMessage is disk_full's message while the disk is full.
const diskFullMessage = "The disk of Switchboard's data folder is full: nothing new is being saved. Free some space; what waits is saved as soon as there is room."

// noteStorage follows the store's answers to note a full disk and its
// end, announcing each change (disk_full). Called on the store's writer
// goroutine with each write's result; it never blocks.
func (e *Engine) noteStorage(err error) {
	switch {
	case err == nil:
		if e.diskFull.Load() && e.diskFull.CompareAndSwap(true, false) {
			e.announceUnstored(hub.EventDiskFull, map[string]string{"message": ""})
		}
	case errors.Is(err, hub.ErrDiskFull):
		if e.diskFull.CompareAndSwap(false, true) {
			e.announceUnstored(hub.EventDiskFull, map[string]string{"message": diskFullMessage})
		}
	}
}

// announceUnstored publishes a hub-wide event without storing it (seq 0):
// only for what cannot be stored (disk_full). Subscribers with scope=all
// get it as it comes; a stream resumed later does not.
func (e *Engine) announceUnstored(typ string, payload any) {
	p, err := json.Marshal(payload)
	if err != nil {
		return
	}
	e.bus.Enqueue([]hub.Event{{Type: typ, At: e.now(), Payload: p}}, nil)
}

// retryTurnEnd stores w, the end of tr (its first commit failed with
// err), again and again — after storeRetryFirst, doubling to
// storeRetryMax — until it is stored, or the engine closes, or the store
// refuses it for another reason than itself (not INTERNAL: the thread was
// deleted, say). Meanwhile tr is the thread's turn again, so no other turn
// starts on the thread before this one's end is stored; a window that
// connects meanwhile gets disk_full again at each failure.
func (e *Engine) retryTurnEnd(tr *turnRT, w *hub.Write, err error) error {
	tr.rt.mu.Lock()
	if tr.rt.turn == nil {
		tr.rt.turn = tr
	}
	tr.rt.mu.Unlock()
	defer e.forgetTurn(tr)
	delay := storeRetryFirst
	for hub.ErrorCode(err) == hub.CodeInternal {
		e.log.Warn("hub: storing the end of a turn failed; trying again", "turn", tr.turn.ID, "in", delay, "err", err)
		if e.diskFull.Load() {
			e.announceUnstored(hub.EventDiskFull, map[string]string{"message": diskFullMessage})
		}
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-e.closed:
			t.Stop()
			return err
		}
		delay = min(2*delay, storeRetryMax)
		if err = e.commit(w); err == nil {
			return nil
		}
	}
	return err
}
