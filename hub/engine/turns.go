package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// turnRT is a running turn. tr.turn's immutable fields (ID, ThreadID,
// Input, StartedAt, Internal) may be read without a lock; the rest is
// guarded by mu.
type turnRT struct {
	turn   hub.Turn
	thread hub.Thread
	rt     *threadRT
	blocks []acp.ContentBlock
	// ctx bounds starting the agent and its session; cancelled by a cancel
	// that arrives before the prompt was sent.
	ctx    context.Context
	stopFn context.CancelFunc
	done   chan struct{} // closed after the final state is committed

	mu sync.Mutex
	// output is the start of the message text released (text), up to
	// hub.TurnEventOutputMax bytes: what turn_completed carries. The
	// whole output is the text of the turn's stored message_delta events
	// (a long one is stored only so: hub.Turn.Output); it is never held
	// here.
	output      strings.Builder
	outputBytes int // the whole output's size
	text        turnText
	// messageIDs are the agent's messageId of the message and of the
	// thought the turn's deltas belong to now ("" before any): messageid.go.
	messageIDs   [2]string
	cancelReason string // why the turn was cancelled; "" while not
	// refusedBy is the decidedBy of the permissions the turn's end
	// cancels: hub.DecidedByCancel when a caller cancelled the turn, else
	// ("") hub.DecidedByHub. Set with cancelReason.
	refusedBy string
	// timedOut is why the watchdog stopped the turn ("" while it did not).
	timedOut string
	// reserved: startTurn (or openOutsideTurn) counted a process for this
	// turn in Engine.procs (guarded by Engine.mu); ensureSession takes the
	// reservation over (claimSlot) or gives it back (releaseReservation).
	reserved bool
	// fresh: the turn opens a new session without the context block
	// (compaction sends its own) and never reopens the old one. Set
	// before the turn runs.
	fresh bool
	// importing: the call outside a turn that opens an imported session
	// (ImportSession): session/load first, its replay recorded as the
	// thread's turns (replay.go), else session/resume; never a new
	// session. importedHow says which opened it.
	importing   bool
	importedHow string
	// wd is the turn's watchdog (watchdog.go); nil outside runTurn.
	wd *watchdog
	// approvals are the agent's own permissions approved in this turn,
	// for a terminal/create of the same command (approvals.go).
	approvals []approval
	// toolCalls are the turn's tool calls as the agent's updates built
	// them, by toolCallId (toolcalls.go). Guarded by mu.
	toolCalls map[string]json.RawMessage
	// passed are the budgets an override let this turn past (set before
	// it runs, read-only after): its own cost never cancels it for them.
	passed map[string]bool
	// spend is what the turn spent and how its budgets hold it
	// (spend.go); never nil.
	spend *turnSpend
	// in is the prompt as the caller gave it (not redacted; memory only),
	// for a retry after a sign-in (authretry.go); retryOf is the failed
	// turn this one retries ("" for any other). Read-only.
	in      hub.TurnInput
	retryOf string
	// checkpointed is closed once the checkpoint before the turn ran on
	// the thread's snapshot lane (snapshots.go); the agent's requests
	// wait for it. nil for a turn without one (internal). Set before the
	// turn runs, read-only after.
	checkpointed <-chan struct{}
}

// StartTurn implements Service.
func (e *Engine) StartTurn(ctx context.Context, c hub.Caller, threadID string, in hub.TurnInput) (hub.Turn, error) {
	t, err := e.visibleThread(ctx, c, threadID)
	if err != nil {
		return hub.Turn{}, err
	}
	tr, err := e.startTurnAs(ctx, t, in, turnKind{})
	if err != nil {
		return hub.Turn{}, err
	}
	return tr.turn, nil
}

// turnKind says what a turn started by startTurnAs is besides a prompt:
// internal turns are hidden from history unless asked for; a fresh one
// opens a new session (turnRT.fresh); retryOf names the failed turn a
// retry after a sign-in repeats (authretry.go); queued the queued prompt
// it is (queue.go).
type turnKind struct {
	internal, fresh bool
	retryOf         string
	// queued is the queued prompt the turn is (queue.go): it leaves the
	// queue in the Write that stores the turn, which also clears the
	// queue's pause and the thread's limit.
	queued string
}

// startTurnAs starts a turn on t.
func (e *Engine) startTurnAs(ctx context.Context, t hub.Thread, in hub.TurnInput, kind turnKind) (*turnRT, error) {
	internal, fresh := kind.internal, kind.fresh
	blocks, text, raw, err := promptBlocks(in)
	if err != nil {
		return nil, err
	}
	if err := e.checkContent(ctx, t, blocks); err != nil {
		return nil, err
	}
	// Stored (and streamed) redacted; the agent gets the blocks as given.
	text, raw = e.redactString(text), e.redactJSON(raw)
	rt := e.runtime(t.ID)
	now := e.now()
	tctx, stop := context.WithCancel(context.Background())
	tr := &turnRT{
		turn:   hub.Turn{ID: newID("tu"), ThreadID: t.ID, Status: hub.TurnRunning, Input: text, Content: raw, StartedAt: now, Internal: internal},
		thread: t, rt: rt, blocks: blocks, ctx: tctx, stopFn: stop, done: make(chan struct{}),
	}
	tr.wd, tr.fresh, tr.in, tr.retryOf = newWatchdog(e, tr), fresh, in, kind.retryOf
	tr.spend = newTurnSpend(now)

	e.mu.Lock()
	rt.mu.Lock()
	switch {
	case e.closing:
		err = hub.Errorf(hub.CodeUpstreamUnavailable, "the hub is shutting down")
	case rt.deleted:
		err = hub.Errorf(hub.CodeNotFound, "thread %s not found", t.ID)
	case rt.turn != nil:
		err = &hub.Error{Code: hub.CodeConflict, Message: "a turn is already running on this thread", Details: map[string]any{"turnId": rt.turn.turn.ID}}
	case t.Worktree != nil && t.Worktree.Discarded:
		err = hub.Errorf(hub.CodeConflict, "the worktree of thread %s was discarded", t.ID)
	case !agentAlive(rt.agent):
		err = e.takeSlotLocked(tr)
	}
	if err == nil {
		rt.turn = tr
		rt.retry = nil // a new turn supersedes a failed one waiting for a sign-in
		e.turns[tr.turn.ID] = tr
		e.turnsWG.Add(1)
	}
	rt.mu.Unlock()
	e.mu.Unlock()
	if err != nil {
		stop()
		return nil, err
	}
	if !internal {
		var tokens, minutes []spendLimit
		if tr.passed, err = e.admitTurn(ctx, t, tr.turn.ID); err == nil { // budgets.go
			tokens, minutes, err = e.spendLimits(ctx, t, now) // budgets.go too
		}
		if err != nil {
			e.forgetTurn(tr)
			e.releaseReservation(tr)
			e.turnsWG.Done()
			return nil, err
		}
		tr.spend.mu.Lock()
		tr.spend.tokens, tr.spend.minutes = tokens, minutes
		tr.spend.mu.Unlock()
	}
	if !internal {
		// snapshots.go: only a turn that will run gets a checkpoint, taken
		// while the prompt goes to the agent; the agent's requests wait
		// for it.
		tr.checkpointed = e.queueCheckpoint(tr, t)
	}
	t.Status, t.UpdatedAt = hub.ThreadRunning, now
	tr.thread = t
	started := map[string]any{"input": text}
	if internal {
		started["internal"] = true // hidden, like the turn in history
	}
	if tr.retryOf != "" {
		started["retryOf"] = tr.retryOf // authretry.go
	}
	ev, _ := hub.NewEvent(hub.EventTurnStarted, t, tr.turn.ID, now, started)
	running := hub.ThreadChange{ThreadID: t.ID, Status: hub.ThreadRunning, UpdatedAt: now}
	w := &hub.Write{Turns: []hub.Turn{tr.turn}, Events: []hub.Event{ev}}
	if kind.queued != "" { // queue.go: dequeued with the turn, in one transaction
		var unpaused string
		var unlimited time.Time
		running.QueuePaused, running.LimitedUntil, running.Announce = &unpaused, &unlimited, true
		w.Dequeue = []string{kind.queued}
		deq, _ := hub.NewEvent(hub.EventPromptDequeued, t, tr.turn.ID, now, map[string]any{"queuedId": kind.queued, "turnId": tr.turn.ID})
		w.Events = append([]hub.Event{deq}, w.Events...)
	}
	w.ThreadChanges = []hub.ThreadChange{running}
	if err := e.commit(w); err != nil {
		e.forgetTurn(tr)
		e.releaseReservation(tr)
		e.turnsWG.Done()
		return nil, err
	}
	go e.runTurn(tr)
	return tr, nil
}

// promptBlocks validates a turn's input: text or ACP content blocks.
func promptBlocks(in hub.TurnInput) ([]acp.ContentBlock, string, json.RawMessage, error) {
	if (in.Input == "") == (len(in.Content) == 0) {
		return nil, "", nil, hub.Errorf(hub.CodeInvalidArgument, `give either "input" or "content"`)
	}
	if in.Input != "" {
		return []acp.ContentBlock{acp.TextBlock(in.Input)}, in.Input, nil, nil
	}
	blocks := make([]acp.ContentBlock, len(in.Content))
	var text []string
	for i, raw := range in.Content {
		if err := json.Unmarshal(raw, &blocks[i]); err != nil || blocks[i].Type == "" {
			return nil, "", nil, hub.Errorf(hub.CodeInvalidArgument, "content[%d] is not an ACP content block", i)
		}
		if blocks[i].Type == "text" {
			text = append(text, blocks[i].Text)
		}
	}
	raw, _ := json.Marshal(in.Content)
	return blocks, strings.Join(text, "\n"), raw, nil
}

func agentAlive(a *acp.Agent) bool {
	if a == nil {
		return false
	}
	select {
	case <-a.Done():
		return false
	default:
		return true
	}
}

// runTurn drives one turn to its end on its own goroutine.
func (e *Engine) runTurn(tr *turnRT) {
	defer e.turnsWG.Done()
	tr.wd.start()
	defer tr.wd.stop()
	tr.spend.mu.Lock()
	timed := len(tr.spend.minutes) > 0
	tr.spend.mu.Unlock()
	if timed {
		go e.watchMinutes(tr) // spend.go; ends with the turn
	}

	agent, sid, prefix, err := e.ensureSession(tr, true)
	stop := ""
	if err == nil && !tr.cancelled() { // a cancel during setup: no prompt at all
		tr.rt.mu.Lock()
		tr.rt.prompted = true // the session defaults are settled (choices.go)
		tr.rt.mu.Unlock()
		stop, err = agent.Prompt(context.Background(), sid, append(prefix, tr.blocks...))
		e.recordPromptUsage(tr, agent, sid) // usage.go
	}
	e.finishTurn(tr, stop, err)
}

// cancelTurn asks the agent to stop the turn (answering its pending
// permissions "cancelled"), and kills the agent's process group when it
// does not stop within CancelWait. It returns at once.
func (e *Engine) cancelTurn(tr *turnRT, reason string) {
	e.cancelTurnAs(tr, reason, hub.DecidedByHub)
}

// cancelTurnAs is cancelTurn, its pending permissions recorded as decided
// by refusedBy (when this cancel is the turn's first).
func (e *Engine) cancelTurnAs(tr *turnRT, reason, refusedBy string) {
	tr.mu.Lock()
	first := tr.cancelReason == ""
	if first {
		tr.cancelReason, tr.refusedBy = reason, refusedBy
	}
	tr.mu.Unlock()
	if !first {
		return
	}
	tr.stopFn() // stops a launch or session setup still under way
	rt := tr.rt
	rt.mu.Lock()
	agent, sid, current := rt.agent, rt.sessionID, rt.turn == tr
	rt.mu.Unlock()
	if !current || agent == nil {
		return
	}
	go e.cancelPrompt(tr, agent, sid)
}

// cancelPrompt sends the ACP cancel for tr's prompt and kills the agent
// when the turn has not ended within CancelWait. The prompt may not be in
// flight yet (the turn is between its session setup and session/prompt):
// an ACP cancel then reaches the agent before the prompt and is lost, so
// it is sent again until a prompt answers it or the turn ends.
func (e *Engine) cancelPrompt(tr *turnRT, agent *acp.Agent, sid string) {
	deadline := time.Now().Add(e.cancelWait)
	for {
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		stop, err := agent.Cancel(ctx, sid)
		cancel()
		if err == nil && stop != "" {
			return // the prompt ended
		}
		if err == nil {
			select { // no prompt in flight yet
			case <-tr.done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
		if err != nil || time.Now().After(deadline) {
			e.log.Warn("hub: agent did not stop the turn; killing it", "thread", tr.turn.ThreadID, "err", err)
			agent.Proc.Kill()
			return
		}
	}
}

func (tr *turnRT) cancelled() bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.cancelReason != ""
}

// refuser is who the permissions the turn's end cancels are decided by.
func (tr *turnRT) refuser() string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.refusedBy != "" {
		return tr.refusedBy
	}
	return hub.DecidedByHub
}

// CancelTurn implements Service.
func (e *Engine) CancelTurn(ctx context.Context, c hub.Caller, turnID string) (hub.Turn, error) {
	turn, err := e.store.GetTurn(ctx, turnID)
	if err != nil {
		return hub.Turn{}, err
	}
	if _, err := e.visibleThread(ctx, c, turn.ThreadID); err != nil {
		return hub.Turn{}, hub.Errorf(hub.CodeNotFound, "turn %s not found", turnID)
	}
	e.mu.Lock()
	tr := e.turns[turnID]
	e.mu.Unlock()
	if tr == nil {
		return turn, nil // already ended: cancelling is idempotent
	}
	e.cancelTurnAs(tr, "cancelled by "+hub.DecidedByOf(c), hub.DecidedByCancel)
	select {
	case <-tr.done:
	case <-time.After(e.cancelWait + 3*time.Second):
		return hub.Turn{}, hub.Errorf(hub.CodeTimeout, "the turn did not end in time")
	case <-ctx.Done():
		return hub.Turn{}, ctx.Err()
	}
	return e.store.GetTurn(ctx, turnID)
}

// finishTurn records the turn's end: status, output, events. Permissions of
// the turn still pending are cancelled (never approved).
func (e *Engine) finishTurn(tr *turnRT, stopReason string, err error) {
	e.queueTurnEnd(tr) // snapshots.go: the turn-end snapshot stored (bounded wait), the overlap check queued
	if tr.thread.Worktree != nil && !tr.turn.Internal {
		e.refreshStanding(context.Background(), tr.thread.ID) // land.go: the sidebar's counts, before turn_completed
	}
	// What the redaction streams held back is released (redacted) before
	// the output is read and turn_completed queued: the output equals the
	// message_deltas streamed, and nothing is lost.
	if ds := tr.closeText(); len(ds) > 0 {
		e.commitAsync(&hub.Write{Events: e.deltaEvents(tr.thread, tr.turn.ID, ds)})
	}
	tr.mu.Lock()
	turn := tr.turn
	turn.Output = tr.output.String()
	outputBytes := tr.outputBytes
	reason, timedOut := tr.cancelReason, tr.timedOut
	tr.mu.Unlock()
	now := e.now()
	turn.EndedAt, turn.StopReason = &now, stopReason

	var errEvent *hub.Event
	var limited *time.Time // the agent's rate limit, from its error
	switch {
	case timedOut != "":
		turn.Status, turn.Error = hub.TurnFailed, timedOut
	case reason != "":
		turn.Status = hub.TurnCancelled
		if turn.StopReason == "" {
			turn.StopReason = acp.StopCancelled
		}
	case err == nil && stopReason == acp.StopCancelled:
		turn.Status = hub.TurnCancelled
	case err == nil:
		turn.Status = hub.TurnCompleted
	default:
		// A dead agent's error carries its stderr tail.
		turn.Status, turn.Error = hub.TurnFailed, e.redactString(errorText(err))
	}
	if turn.Status == hub.TurnFailed {
		code := hub.CodeUpstreamUnavailable
		if timedOut != "" {
			code = hub.CodeTimeout
		}
		payload := map[string]any{"code": code, "message": turn.Error}
		var he *hub.Error
		if errors.As(err, &he) {
			code = he.Code
			payload["code"] = code
			if he.Details["reason"] == hub.ReasonAuthRequired {
				payload["reason"], payload["agent"] = hub.ReasonAuthRequired, he.Details["agent"]
				e.rememberRetry(tr) // authretry.go
			}
			if he.Details["reason"] == reasonDefaultsNotOffered { // defaults.go
				payload["reason"], payload["agent"], payload["unoffered"] = reasonDefaultsNotOffered, he.Details["agent"], he.Details["unoffered"]
			}
		}
		if rl := acp.RateLimitFromError(err); rl != nil { // ratelimit.go
			limited = &rl.Until
			payload["reason"], payload["limitedUntil"] = hub.ReasonRateLimited, rl.Until.Format(time.RFC3339)
		}
		ev, _ := hub.NewEvent(hub.EventError, tr.thread, turn.ID, now, payload)
		errEvent = &ev
	}
	e.cancelPending(tr) // permissions.go

	thread := tr.thread
	w := &hub.Write{Turns: []hub.Turn{turn}}
	if _, gerr := e.store.GetThread(context.Background(), thread.ID); hub.ErrorCode(gerr) == hub.CodeNotFound {
		// A deleted thread is never written back, nor is its text.
		w.Turns = nil
	} else {
		// Field-wise: a rename that read the thread while the turn ran
		// must not write "running" back, nor this "idle" undo its title.
		hold := e.queueHold(tr, turn.Status, err, limited) // queue.go
		w.ThreadChanges = []hub.ThreadChange{{ThreadID: thread.ID, Status: hub.ThreadIdle, UpdatedAt: now,
			LimitedUntil: limited, QueuePaused: hold, Announce: limited != nil || hold != nil}}
	}
	announced := turn
	if outputBytes > len(turn.Output) {
		// Stored once, as its events (an empty Output reads them);
		// announced by its start.
		if w.Turns != nil {
			w.Turns[0].Output = ""
		}
		announced.OutputBytes, announced.OutputTruncated = outputBytes, true
	}
	done, _ := hub.NewEvent(hub.EventTurnCompleted, thread, turn.ID, now, map[string]any{"turn": announced})
	if errEvent != nil {
		w.Events = append(w.Events, *errEvent)
	}
	w.Events = append(w.Events, done)
	if r := e.spendRecord(tr, now); r != nil { // spend.go: the turn's agent time
		w.Usage = append(w.Usage, *r)
	}
	// Queue the final write, then free the thread before it is published:
	// a client that starts the next turn on seeing turn_completed must not
	// get CONFLICT. The next turn's writes queue behind this one.
	committed := e.submit(w)
	e.forgetTurn(tr)
	if cerr := <-committed; cerr != nil {
		// The disk full, most often: retried until stored (diskfull.go).
		if cerr = e.retryTurnEnd(tr, w, cerr); cerr != nil {
			e.log.Error("hub: recording the end of a turn failed", "turn", turn.ID, "err", cerr)
		}
	}
	e.scheduleIdle(tr.rt)
	close(tr.done)
	e.queueAfterTurn(tr, turn.Status, limited) // queue.go: the next prompt, or the reset timer
	e.compactIfDue(tr.rt)
}

func (e *Engine) forgetTurn(tr *turnRT) {
	e.mu.Lock()
	delete(e.turns, tr.turn.ID)
	e.mu.Unlock()
	tr.rt.mu.Lock()
	if tr.rt.turn == tr {
		tr.rt.turn = nil
	}
	tr.rt.mu.Unlock()
	tr.stopFn()
}

// History implements Service.
func (e *Engine) History(ctx context.Context, c hub.Caller, threadID string, includeEvents, includeInternal bool) ([]hub.TurnHistory, error) {
	if _, err := e.visibleThread(ctx, c, threadID); err != nil {
		return nil, err
	}
	turns, err := e.store.ListTurns(ctx, threadID, includeInternal)
	if err != nil {
		return nil, err
	}
	return e.withEvents(ctx, threadID, turns, includeEvents, false)
}

// HistoryPage implements Service.
func (e *Engine) HistoryPage(ctx context.Context, c hub.Caller, threadID string, q hub.HistoryQuery) (hub.HistoryPage, error) {
	if _, err := e.visibleThread(ctx, c, threadID); err != nil {
		return hub.HistoryPage{}, err
	}
	turns, next, err := e.store.ListTurnsPage(ctx, threadID, q.IncludeInternal, q.Cursor, q.Limit)
	if err != nil {
		return hub.HistoryPage{}, err
	}
	out, err := e.withEvents(ctx, threadID, turns, q.IncludeEvents, true)
	if err != nil {
		return hub.HistoryPage{}, err
	}
	if len(out) < len(turns) {
		// Cut short by the size bound: the next page starts after the
		// last turn kept.
		if _, next, err = e.store.ListTurnsPage(ctx, threadID, q.IncludeInternal, q.Cursor, len(out)); err != nil {
			return hub.HistoryPage{}, err
		}
	}
	return hub.HistoryPage{Turns: out, NextCursor: next}, nil
}

// historyOverhead is what a turn or an event adds to a history's JSON
// besides its text: field names, ids, times.
const historyOverhead = 256

// withEvents makes turns a history, with their events when asked, and
// bounds the JSON it builds to about Options.MaxHistoryBytes. Past the
// bound a page (partial) ends before the turn that crosses it; a whole
// history, or a page whose first turn alone crosses it, fails with
// PAYLOAD_TOO_LARGE, details.reason HISTORY_TOO_LARGE. It stops reading as
// soon as the bound is crossed.
func (e *Engine) withEvents(ctx context.Context, threadID string, turns []hub.Turn, includeEvents, partial bool) ([]hub.TurnHistory, error) {
	out := make([]hub.TurnHistory, 0, len(turns))
	size := 0
	for _, t := range turns {
		h := hub.TurnHistory{Turn: t}
		size += historyOverhead + len(t.Input) + len(t.Output) + len(t.Content) + len(t.Error)
		for after := int64(0); includeEvents && size <= e.maxHistory; {
			page, err := e.store.Events(ctx, hub.EventFilter{After: after, ThreadID: threadID, TurnID: t.ID, All: true, Limit: 10000})
			if err != nil {
				return nil, err
			}
			for _, ev := range page {
				h.Events = append(h.Events, ev)
				size += historyOverhead + len(ev.Payload)
				after = ev.Seq
			}
			if len(page) < 10000 {
				break
			}
		}
		if size > e.maxHistory {
			if partial && len(out) > 0 {
				return out, nil
			}
			return nil, e.historyTooLarge(t.ID, partial)
		}
		out = append(out, h)
	}
	return out, nil
}

func (e *Engine) historyTooLarge(turnID string, page bool) error {
	err := &hub.Error{Code: hub.CodePayloadTooLarge,
		Message: fmt.Sprintf("the history is larger than %s: read it in pages with limit and cursor", sizeText(e.maxHistory)),
		Details: map[string]any{"reason": hub.ReasonHistoryTooLarge, "maxBytes": e.maxHistory}}
	if page {
		err.Message = fmt.Sprintf("turn %s alone is larger than %s with its events: read it without includeEvents, or its events from the thread's event stream", turnID, sizeText(e.maxHistory))
		err.Details["turnId"] = turnID
	}
	return err
}

// sizeText is n bytes in MiB, or KiB below one MiB.
func sizeText(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

// errorText is what a failed turn says: a coded error's message (its cause
// is part of the message already), any other error's text.
func errorText(err error) string {
	var he *hub.Error
	if errors.As(err, &he) {
		return he.Message
	}
	return err.Error()
}
