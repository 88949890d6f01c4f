package engine

import (
	"context"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// Retrying the user's turn after a sign-in (docs/API.md "Sign in").
//
// A turn whose agent refuses its session with "authentication required"
// (ACP -32000) fails with an `error` event of details.reason
// AUTH_REQUIRED, and the engine remembers that turn on its thread: in
// memory only, with the prompt as the user gave it. When a sign-in to
// that agent succeeds (SignedIn: an agent method through
// AuthenticateAgent, a terminal method whose program exited 0, or an
// env_var method whose key is set, DECISIONS.md 0036), the
// agent's idle processes are restarted and each remembered turn of that
// agent is started again, as a new turn of its thread with the same
// prompt; its turn_started carries `retryOf` (the failed turn's id).
//
// What is guaranteed:
//   - At most once. A remembered turn is taken out before it is retried,
//     and a retry is never remembered again: if it fails once more, the
//     user sends it again themselves.
//   - Only the action that failed, and only while it is the thread's last:
//     any turn started on the thread since (the user resent it, or wrote
//     something else) forgets it, as do deleting the thread, giving it
//     another agent, authRetryMax passing, and the hub stopping.
//   - A failed sign-in retries nothing: only a successful one calls
//     SignedIn. Nothing else is ever re-sent.
//   - The retry is an ordinary turn: budgets, rules and permissions (fail
//     closed) apply as to any turn. A thread busy at that moment keeps
//     nothing (its running turn superseded the failed one).

// authRetryMax is how long a failed turn waits for its agent's sign-in.
const authRetryMax = 30 * time.Minute

// authRetry is a turn that failed for want of a sign-in.
type authRetry struct {
	turnID string
	agent  string
	in     hub.TurnInput
	at     time.Time
}

// rememberRetry keeps tr, which failed because its agent needs signing
// in, for SignedIn. Internal turns and retries are not kept.
func (e *Engine) rememberRetry(tr *turnRT) {
	if tr.turn.Internal || tr.retryOf != "" {
		return
	}
	tr.rt.mu.Lock()
	if tr.rt.turn == tr && !tr.rt.deleted {
		tr.rt.retry = &authRetry{turnID: tr.turn.ID, agent: tr.thread.Agent, in: tr.in, at: e.now()}
	}
	tr.rt.mu.Unlock()
}

// SignedIn is called once a sign-in to agent id succeeded: it restarts the
// agent's idle processes (RestartAgent) and retries, once, each turn that
// failed because that agent needed signing in (see above). It returns the
// turns it started.
func (e *Engine) SignedIn(id string) []hub.Turn {
	e.RestartAgent(id)
	e.mu.Lock()
	var due []*threadRT
	for _, rt := range e.threads {
		due = append(due, rt)
	}
	e.mu.Unlock()
	var started []hub.Turn
	for _, rt := range due {
		rt.mu.Lock()
		r := rt.retry
		if r == nil || r.agent != id {
			rt.mu.Unlock()
			continue
		}
		rt.retry = nil // at most once, whatever happens next
		busy := rt.turn != nil || rt.deleted
		rt.mu.Unlock()
		if busy || e.now().Sub(r.at) > authRetryMax {
			continue
		}
		if tu, err := e.retryTurn(rt.id, r); err != nil {
			e.log.Info("hub: retrying a turn after a sign-in failed", "thread", rt.id, "turn", r.turnID, "err", err)
		} else {
			started = append(started, tu)
		}
	}
	return started
}

// retryTurn starts r again on thread id, unless the thread now has
// another agent.
func (e *Engine) retryTurn(id string, r *authRetry) (hub.Turn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	t, err := e.store.GetThread(ctx, id)
	if err != nil {
		return hub.Turn{}, err
	}
	if t.Agent != r.agent {
		return hub.Turn{}, hub.Errorf(hub.CodeConflict, "the thread's agent is now %s", t.Agent)
	}
	tr, err := e.startTurnAs(ctx, t, r.in, turnKind{retryOf: r.turnID})
	if err != nil {
		return hub.Turn{}, err
	}
	return tr.turn, nil
}
