package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// storedOutput rebuilds a turn's output from its message_delta events: a
// turn's output is saved when it ends, its events as they stream.
func (e *Engine) storedOutput(ctx context.Context, t hub.Turn) (string, error) {
	var b strings.Builder
	for after := int64(0); ; {
		page, err := e.store.Events(ctx, hub.EventFilter{After: after, ThreadID: t.ThreadID, TurnID: t.ID, All: true, Limit: 10000})
		if err != nil {
			return "", err
		}
		for _, ev := range page {
			after = ev.Seq
			if ev.Type != hub.EventMessageDelta {
				continue
			}
			var p struct {
				Text string `json:"text"`
			}
			if json.Unmarshal(ev.Payload, &p) == nil {
				b.WriteString(p.Text)
			}
		}
		if len(page) < 10000 {
			return b.String(), nil
		}
	}
}

// recover repairs what a previous run left behind, before any call is
// served: turns still "running" become "interrupted" (with a
// turn_completed event), pending permissions expire (never approved),
// threads return to idle (those of the interrupted turns, and any other
// still marked running, with a thread_updated event), and agent processes recorded as running are
// killed with their process group and (Linux) every descendant — only when
// the pid still belongs to the same process (same start time), so a reused
// pid is never signalled. (A recorded pid is the agent's supervisor when
// it has one, ADR 0029; the supervisor normally killed its tree itself
// when the previous run ended.) A host's copies (hub/host.go) are left as
// they are: what they copy goes on on their host.
func (e *Engine) recover(ctx context.Context) error {
	now := e.now()
	w := &hub.Write{}
	turns, err := e.store.RunningTurns(ctx)
	if err != nil {
		return fmt.Errorf("hub: recovery: %w", err)
	}
	idle := map[string]bool{} // threads made idle
	for _, t := range turns {
		if hub.HostOf(t.ID) != "" {
			continue // a host's copy: its turn goes on there (mirror.go)
		}
		t.Status, t.EndedAt = hub.TurnInterrupted, &now
		t.Error = "the hub stopped while this turn was running"
		if out, err := e.storedOutput(ctx, t); err == nil {
			t.Output = out
		}
		th, err := e.store.GetThread(ctx, t.ThreadID)
		if err != nil {
			continue // a deleted thread's turn: nobody will see it
		}
		if !idle[th.ID] {
			idle[th.ID] = true
			w.ThreadChanges = append(w.ThreadChanges, hub.ThreadChange{ThreadID: th.ID, Status: hub.ThreadIdle, UpdatedAt: now})
		}
		ev, _ := hub.NewEvent(hub.EventTurnCompleted, th, t.ID, now, map[string]any{"turn": t.ForEvent()})
		w.Turns = append(w.Turns, t)
		w.Events = append(w.Events, ev)
	}
	// No turn runs now: a thread still marked running disagrees with its
	// turns (an earlier run's lost update left it so) and is repaired, and
	// announced, so that no client keeps its Send disabled.
	stuck, err := e.stuckThreads(ctx, idle)
	if err != nil {
		return fmt.Errorf("hub: recovery: %w", err)
	}
	for _, id := range stuck {
		e.log.Info("hub: a thread marked running had no running turn; it is idle again", "thread", id)
		w.ThreadChanges = append(w.ThreadChanges, hub.ThreadChange{ThreadID: id, Status: hub.ThreadIdle, UpdatedAt: now, Announce: true})
	}
	procs, err := e.store.AgentProcesses(ctx)
	if err != nil {
		return fmt.Errorf("hub: recovery: %w", err)
	}
	for _, p := range procs {
		if !p.StartTime.IsZero() && processStartTime(p.PID).Equal(p.StartTime) {
			e.log.Info("hub: stopping an agent left by the previous run", "pid", p.PID, "agent", p.Agent)
			killGroup(p.PID)
		}
		w.ForgetProcs = append(w.ForgetProcs, p.PID)
	}
	if err := e.commit(w); err != nil {
		return fmt.Errorf("hub: recovery: %w", err)
	}
	pending, err := e.store.ListPermissions(ctx, hub.PermissionFilter{All: true, Status: hub.PermissionPending})
	if err != nil {
		return fmt.Errorf("hub: recovery: %w", err)
	}
	for _, p := range pending {
		if p.Host != "" {
			continue // a host's copy: it stays pending there
		}
		p.Status, p.DecidedBy, p.DecidedAt = hub.PermissionExpired, hub.DecidedByHub, &now
		th, _ := e.store.GetThread(ctx, p.ThreadID)
		ev, _ := hub.NewEvent(hub.EventPermissionResolved, th, p.TurnID, now, map[string]any{"permission": p})
		ev.ThreadID = p.ThreadID
		if err := e.commit(&hub.Write{Decide: &p, Events: []hub.Event{ev}}); err != nil && hub.ErrorCode(err) != hub.CodeConflict {
			return fmt.Errorf("hub: recovery: %w", err)
		}
	}
	return e.expireElicitations(ctx, now)
}

// expireElicitations ends the elicitations a previous run left pending
// (no agent waits for them any more): expired, decided by "hub".
func (e *Engine) expireElicitations(ctx context.Context, now time.Time) error {
	for range 100 { // 500 a page; a bound, should a write keep failing
		els, _, err := e.store.QueryElicitations(ctx, hub.ElicitationFilter{All: true, Status: hub.ElicitationPending})
		if err != nil {
			return fmt.Errorf("hub: recovery: %w", err)
		}
		els = slices.DeleteFunc(els, func(el hub.Elicitation) bool { return hub.HostOf(el.ID) != "" }) // a host's copies stay
		if len(els) == 0 {
			return nil
		}
		for _, el := range els {
			el.Status, el.DecidedBy, el.DecidedAt = hub.ElicitationExpired, hub.DecidedByHub, &now
			th, _ := e.store.GetThread(ctx, el.ThreadID)
			ev, _ := hub.NewEvent(hub.EventElicitationResolved, th, el.TurnID, now, map[string]any{"elicitation": el})
			ev.ThreadID = el.ThreadID
			if err := e.commit(&hub.Write{AnswerElicitation: &el, Events: []hub.Event{ev}}); err != nil && hub.ErrorCode(err) != hub.CodeConflict {
				return fmt.Errorf("hub: recovery: %w", err)
			}
		}
	}
	return nil
}

// stuckThreads lists the threads marked running, besides those in skip.
func (e *Engine) stuckThreads(ctx context.Context, skip map[string]bool) ([]string, error) {
	var ids []string
	f := hub.ThreadFilter{All: true, Status: hub.ThreadRunning, Limit: 500}
	for {
		page, next, err := e.store.ListThreads(ctx, f)
		if err != nil {
			return nil, err
		}
		for _, th := range page {
			if !skip[th.ID] && th.Host == "" { // a host's copy runs there
				ids = append(ids, th.ID)
			}
		}
		if next == "" {
			return ids, nil
		}
		f.Cursor = next
	}
}
