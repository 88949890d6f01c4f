package engine

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// compactPrompt asks the agent for the summary stored by CompactThread.
const compactPrompt = "Summarize our conversation so far for a colleague who will continue it: the goal, decisions made, files changed, and open questions. Reply with the summary only."

// compactTimeout bounds an automatic compaction.
const compactTimeout = 10 * time.Minute

// CompactThread implements Service. Compacting replaces the thread's agent
// session with a new one that carries only what matters:
//
//  1. an internal turn (hidden from history unless asked for) asks the
//     agent, in the current session, for a summary; it is stored as the
//     thread's summary;
//  2. the session is closed (session/close when the agent advertises it,
//     the process kept; otherwise the process is stopped);
//  3. a new session is opened (never the old one reopened), the thread's
//     mode and config options are re-applied on it (restoreChoices), and
//     one more internal turn sends it the summary and the recent turns,
//     within context.maxChars (contextBlock);
//  4. the thread records CompactedAt, announced by thread_updated.
//
// A step that fails ends the compaction with its error; the summary stays
// stored once step 1 succeeded, and the next turn reopens a session as
// after any loss of one (context injected).
func (e *Engine) CompactThread(ctx context.Context, c hub.Caller, id string) (hub.Thread, error) {
	t, err := e.visibleThread(ctx, c, id)
	if err != nil {
		return hub.Thread{}, err
	}
	return e.compact(ctx, t)
}

func (e *Engine) compact(ctx context.Context, t hub.Thread) (hub.Thread, error) {
	rt := e.runtime(t.ID)
	rt.mu.Lock()
	rt.compactDue = false
	rt.mu.Unlock()

	turn, err := e.internalTurn(ctx, t, compactPrompt, false)
	if err != nil {
		return hub.Thread{}, err
	}
	summary := strings.TrimSpace(turn.Output)
	if turn.Status != hub.TurnCompleted || summary == "" {
		return hub.Thread{}, hub.Errorf(hub.CodeUpstreamUnavailable, "the agent gave no summary (turn %s)", turn.Status)
	}
	summary = e.redactString(summary)
	none := ""
	if err := e.commit(&hub.Write{ThreadChanges: []hub.ThreadChange{{ThreadID: t.ID, Summary: &summary, AgentSessionID: &none}}}); err != nil {
		return hub.Thread{}, err
	}
	e.closeThreadSession(rt)

	if t, err = e.store.GetThread(ctx, t.ID); err != nil {
		return hub.Thread{}, err
	}
	block, err := e.contextBlock(t, contextCompactedHead, "")
	if err != nil {
		return hub.Thread{}, err
	}
	text := contextCompactedHead + "\nSummary so far:\n" + summary + "\n"
	if len(block) > 0 {
		text = block[0].Text
	}
	turn, err = e.internalTurn(ctx, t, text, true)
	if err != nil {
		return hub.Thread{}, err
	}
	if turn.Status != hub.TurnCompleted {
		return hub.Thread{}, hub.Errorf(hub.CodeUpstreamUnavailable, "the new session did not take the context (turn %s: %s)", turn.Status, turn.Error)
	}

	now := e.now()
	w := &hub.Write{ThreadChanges: []hub.ThreadChange{{ThreadID: t.ID, CompactedAt: &now, UpdatedAt: now, Announce: true}}}
	if err := e.commit(w); err != nil {
		return hub.Thread{}, err
	}
	return w.ThreadChanges[0].Thread, nil
}

// internalTurn runs one internal turn with input on thread t and returns
// it as stored once it ended; fresh opens a new session for it (see
// turnRT.fresh). The caller giving up cancels it.
func (e *Engine) internalTurn(ctx context.Context, t hub.Thread, input string, fresh bool) (hub.Turn, error) {
	tr, err := e.startTurnAs(ctx, t, hub.TurnInput{Input: input}, turnKind{internal: true, fresh: fresh})
	if err != nil {
		return hub.Turn{}, err
	}
	select {
	case <-tr.done:
	case <-ctx.Done():
		e.cancelTurn(tr, "compact abandoned by the caller")
		return hub.Turn{}, ctx.Err()
	}
	return e.store.GetTurn(context.Background(), tr.turn.ID)
}

// noteUsageLocked keeps the share of its context window the agent last
// reported (usage_update {used, size}) and marks the thread due for
// compaction once it crosses context.compactAt during a user's turn.
// rt.mu is held.
func (c *threadClient) noteUsageLocked(u acp.SessionUpdate, tr *turnRT) {
	if u.ParseErr != nil || u.Kind != acp.UpdateUsage {
		return
	}
	var m struct {
		Used float64 `json:"used"`
		Size float64 `json:"size"`
	}
	if json.Unmarshal(u.Raw, &m) != nil || m.Size <= 0 || m.Used < 0 {
		return
	}
	c.rt.usedFrac = m.Used / m.Size
	if at := c.e.compactAt(); at > 0 && c.rt.usedFrac >= at && tr != nil && !tr.turn.Internal {
		c.rt.compactDue = true
	}
}

// compactIfDue starts an automatic compaction of the thread, in the
// background, when a turn crossed context.compactAt. Called once a turn
// has ended.
func (e *Engine) compactIfDue(rt *threadRT) {
	rt.mu.Lock()
	due := rt.compactDue && !rt.deleted && rt.turn == nil
	rt.compactDue = false
	rt.mu.Unlock()
	if !due || e.config().ContextCompactAt <= 0 {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), compactTimeout)
		defer cancel()
		t, err := e.store.GetThread(ctx, rt.id)
		if err != nil {
			return
		}
		e.log.Info("hub: compacting a thread automatically (context.compactAt)", "thread", rt.id)
		if _, err := e.compact(ctx, t); err != nil {
			e.log.Warn("hub: automatic compaction failed", "thread", rt.id, "err", err)
		}
	}()
}
