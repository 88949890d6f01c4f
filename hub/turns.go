package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
)

// turnRT is a running turn. tr.turn's immutable fields (ID, ThreadID,
// Input, StartedAt, Internal) may be read without a lock; the rest is
// guarded by mu.
type turnRT struct {
	turn   Turn
	thread Thread
	rt     *threadRT
	blocks []acp.ContentBlock
	// ctx bounds starting the agent and its session; cancelled by a cancel
	// that arrives before the prompt was sent.
	ctx    context.Context
	stopFn context.CancelFunc
	done   chan struct{} // closed after the final state is committed

	mu           sync.Mutex
	output       strings.Builder
	cancelReason string // why the turn was cancelled; "" while not
	timedOut     bool
	// reserved: startTurn counted a process for this turn in Engine.procs
	// (guarded by Engine.mu); ensureSession takes the reservation over.
	reserved bool
}

func (tr *turnRT) appendOutput(s string) {
	tr.mu.Lock()
	tr.output.WriteString(s)
	tr.mu.Unlock()
}

// StartTurn implements Service.
func (e *Engine) StartTurn(ctx context.Context, c Caller, threadID string, in TurnInput) (Turn, error) {
	t, err := e.visibleThread(ctx, c, threadID)
	if err != nil {
		return Turn{}, err
	}
	tr, err := e.startTurn(ctx, t, in, false)
	if err != nil {
		return Turn{}, err
	}
	return tr.turn, nil
}

func (e *Engine) startTurn(ctx context.Context, t Thread, in TurnInput, internal bool) (*turnRT, error) {
	blocks, text, raw, err := promptBlocks(in)
	if err != nil {
		return nil, err
	}
	rt := e.runtime(t.ID)
	now := e.now()
	tctx, stop := context.WithCancel(context.Background())
	tr := &turnRT{
		turn:   Turn{ID: newID("tu"), ThreadID: t.ID, Status: TurnRunning, Input: text, Content: raw, StartedAt: now, Internal: internal},
		thread: t, rt: rt, blocks: blocks, ctx: tctx, stopFn: stop, done: make(chan struct{}),
	}

	e.mu.Lock()
	rt.mu.Lock()
	switch {
	case e.closing:
		err = Errorf(CodeUpstreamUnavailable, "the hub is shutting down")
	case rt.turn != nil:
		err = &Error{Code: CodeConflict, Message: "a turn is already running on this thread", Details: map[string]any{"turnId": rt.turn.turn.ID}}
	case !agentAlive(rt.agent) && e.procs >= e.cfg.MaxAgentProcesses:
		err = &Error{Code: CodeTooManyRequests, Message: fmt.Sprintf("%d agent processes are running, the configured limit", e.procs), RetryAfter: 10 * time.Second}
	}
	if err == nil {
		rt.turn = tr
		e.turns[tr.turn.ID] = tr
		e.turnsWG.Add(1)
		if !agentAlive(rt.agent) {
			e.procs++
			tr.reserved = true
		}
	}
	rt.mu.Unlock()
	e.mu.Unlock()
	if err != nil {
		stop()
		return nil, err
	}

	t.Status, t.UpdatedAt = ThreadRunning, now
	tr.thread = t
	ev, _ := NewEvent(EventTurnStarted, t, tr.turn.ID, now, map[string]any{"input": text})
	if err := e.commit(ctx, &Write{Turns: []Turn{tr.turn}, Threads: []Thread{t}, Events: []Event{ev}}); err != nil {
		e.forgetTurn(tr)
		e.releaseReservation(tr)
		e.turnsWG.Done()
		return nil, err
	}
	go e.runTurn(tr)
	return tr, nil
}

// promptBlocks validates a turn's input: text or ACP content blocks.
func promptBlocks(in TurnInput) ([]acp.ContentBlock, string, json.RawMessage, error) {
	if (in.Input == "") == (len(in.Content) == 0) {
		return nil, "", nil, Errorf(CodeInvalidArgument, `give either "input" or "content"`)
	}
	if in.Input != "" {
		return []acp.ContentBlock{acp.TextBlock(in.Input)}, in.Input, nil, nil
	}
	blocks := make([]acp.ContentBlock, len(in.Content))
	var text []string
	for i, raw := range in.Content {
		if err := json.Unmarshal(raw, &blocks[i]); err != nil || blocks[i].Type == "" {
			return nil, "", nil, Errorf(CodeInvalidArgument, "content[%d] is not an ACP content block", i)
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
	watchdog := time.AfterFunc(e.config().TurnTimeout, func() {
		tr.mu.Lock()
		tr.timedOut = true
		tr.mu.Unlock()
		e.cancelTurn(tr, "the turn ran past limits.turnTimeout")
	})
	defer watchdog.Stop()

	agent, sid, prefix, err := e.ensureSession(tr)
	stop := ""
	if err == nil {
		stop, err = agent.Prompt(context.Background(), sid, append(prefix, tr.blocks...))
	}
	e.finishTurn(tr, stop, err)
}

// cancelTurn asks the agent to stop the turn (answering its pending
// permissions "cancelled"), and kills the agent's process group when it
// does not stop within CancelWait. It returns at once.
func (e *Engine) cancelTurn(tr *turnRT, reason string) {
	tr.mu.Lock()
	first := tr.cancelReason == ""
	if first {
		tr.cancelReason = reason
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
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), e.cancelWait+time.Second)
		defer cancel()
		if _, err := agent.Cancel(ctx, sid); err != nil {
			e.log.Warn("hub: agent did not stop the turn; killing it", "thread", tr.turn.ThreadID, "err", err)
			agent.Proc.Kill()
		}
	}()
}

// CancelTurn implements Service.
func (e *Engine) CancelTurn(ctx context.Context, c Caller, turnID string) (Turn, error) {
	turn, err := e.store.GetTurn(ctx, turnID)
	if err != nil {
		return Turn{}, err
	}
	if _, err := e.visibleThread(ctx, c, turn.ThreadID); err != nil {
		return Turn{}, Errorf(CodeNotFound, "turn %s not found", turnID)
	}
	e.mu.Lock()
	tr := e.turns[turnID]
	e.mu.Unlock()
	if tr == nil {
		return turn, nil // already ended: cancelling is idempotent
	}
	e.cancelTurn(tr, "cancelled by "+decider(c))
	select {
	case <-tr.done:
	case <-time.After(e.cancelWait + 3*time.Second):
		return Turn{}, Errorf(CodeTimeout, "the turn did not end in time")
	case <-ctx.Done():
		return Turn{}, ctx.Err()
	}
	return e.store.GetTurn(ctx, turnID)
}

func decider(c Caller) string {
	if c.Via != "" {
		return c.Via
	}
	return c.ClientID
}

// finishTurn records the turn's end: status, output, events. Permissions of
// the turn still pending are cancelled (never approved).
func (e *Engine) finishTurn(tr *turnRT, stopReason string, err error) {
	tr.mu.Lock()
	turn := tr.turn
	turn.Output = tr.output.String()
	reason, timedOut := tr.cancelReason, tr.timedOut
	tr.mu.Unlock()
	now := e.now()
	turn.EndedAt, turn.StopReason = &now, stopReason

	var errEvent *Event
	switch {
	case timedOut:
		turn.Status, turn.Error = TurnFailed, "the turn ran past limits.turnTimeout and was stopped"
	case reason != "":
		turn.Status = TurnCancelled
		if turn.StopReason == "" {
			turn.StopReason = acp.StopCancelled
		}
	case err == nil && stopReason == acp.StopCancelled:
		turn.Status = TurnCancelled
	case err == nil:
		turn.Status = TurnCompleted
	default:
		turn.Status, turn.Error = TurnFailed, err.Error()
	}
	if turn.Status == TurnFailed {
		code := CodeUpstreamUnavailable
		if timedOut {
			code = CodeTimeout
		}
		var he *Error
		if errors.As(err, &he) {
			code = he.Code
		}
		ev, _ := NewEvent(EventError, tr.thread, turn.ID, now, map[string]any{"code": code, "message": turn.Error})
		errEvent = &ev
	}
	e.cancelPermissions(tr)

	thread := tr.thread
	if t, gerr := e.store.GetThread(context.Background(), thread.ID); gerr == nil {
		thread = t
	}
	thread.Status, thread.UpdatedAt = ThreadIdle, now
	done, _ := NewEvent(EventTurnCompleted, thread, turn.ID, now, map[string]any{"turn": turn})
	w := &Write{Turns: []Turn{turn}, Threads: []Thread{thread}}
	if errEvent != nil {
		w.Events = append(w.Events, *errEvent)
	}
	w.Events = append(w.Events, done)
	if cerr := e.commit(context.Background(), w); cerr != nil {
		e.log.Error("hub: recording the end of a turn failed", "turn", turn.ID, "err", cerr)
	}
	e.forgetTurn(tr)
	e.scheduleIdle(tr.rt)
	close(tr.done)
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
func (e *Engine) History(ctx context.Context, c Caller, threadID string, includeEvents, includeInternal bool) ([]TurnHistory, error) {
	if _, err := e.visibleThread(ctx, c, threadID); err != nil {
		return nil, err
	}
	turns, err := e.store.ListTurns(ctx, threadID, includeInternal)
	if err != nil {
		return nil, err
	}
	out := make([]TurnHistory, len(turns))
	index := make(map[string]int, len(turns))
	for i, t := range turns {
		out[i] = TurnHistory{Turn: t}
		index[t.ID] = i
	}
	if !includeEvents {
		return out, nil
	}
	for after := int64(0); ; {
		page, err := e.store.Events(ctx, EventFilter{After: after, ThreadID: threadID, All: true, Limit: 10000})
		if err != nil {
			return nil, err
		}
		for _, ev := range page {
			if i, ok := index[ev.TurnID]; ok {
				out[i].Events = append(out[i].Events, ev)
			}
			after = ev.Seq
		}
		if len(page) < 10000 {
			return out, nil
		}
	}
}
