package engine

import (
	"context"
	"strings"

	"github.com/switchboard-hub/switchboard/hub"
)

// compactPrompt asks the agent for the summary stored by CompactThread.
const compactPrompt = "Summarize our conversation so far for a colleague who will continue it: the goal, decisions made, files changed, and open questions. Reply with the summary only."

// CompactThread implements Service: an internal turn (hidden from history
// unless asked for) asks the agent for a summary, stored as the thread's
// summary and used as context if the agent's session is ever lost.
func (e *Engine) CompactThread(ctx context.Context, c hub.Caller, id string) (hub.Thread, error) {
	t, err := e.visibleThread(ctx, c, id)
	if err != nil {
		return hub.Thread{}, err
	}
	tr, err := e.startTurn(ctx, t, hub.TurnInput{Input: compactPrompt}, true)
	if err != nil {
		return hub.Thread{}, err
	}
	select {
	case <-tr.done:
	case <-ctx.Done():
		e.cancelTurn(tr, "compact abandoned by the caller")
		return hub.Thread{}, ctx.Err()
	}
	turn, err := e.store.GetTurn(ctx, tr.turn.ID)
	if err != nil {
		return hub.Thread{}, err
	}
	summary := strings.TrimSpace(turn.Output)
	if turn.Status != hub.TurnCompleted || summary == "" {
		return hub.Thread{}, hub.Errorf(hub.CodeUpstreamUnavailable, "the agent gave no summary (turn %s)", turn.Status)
	}
	return e.changeThread(ctx, c, hub.ThreadChange{ThreadID: id, Summary: &summary})
}
