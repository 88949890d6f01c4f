package engine

import (
	"context"

	"github.com/switchboard-hub/switchboard/hub"
)

// deleteAgentSession sends session/delete for a thread being deleted, so
// the agent forgets a session the hub opened for it: only when the thread's
// agent is running and advertises sessionCapabilities.delete, and never
// for an imported thread (Thread.Imported: the session is the user's own
// history in the agent's CLI). Bounded like session/close; on success the
// runtime forgets the session, so stopping the agent does not close it
// too. A thread whose agent is not running keeps its session at the agent:
// no agent is started only to delete one.
func (e *Engine) deleteAgentSession(ctx context.Context, rt *threadRT, t hub.Thread) {
	if t.Imported != nil {
		return
	}
	rt.mu.Lock()
	a, sid := rt.agent, rt.sessionID
	rt.mu.Unlock()
	if sid == "" || !agentAlive(a) || !hasJSON(a.Capabilities().SessionCapabilities.Delete) {
		return
	}
	cctx, cancel := context.WithTimeout(ctx, sessionCloseTimeout)
	defer cancel()
	if err := a.DeleteSession(cctx, sid); err != nil {
		e.log.Info("hub: session/delete failed", "thread", t.ID, "err", err)
		return
	}
	rt.mu.Lock()
	if rt.sessionID == sid {
		rt.sessionID = ""
	}
	rt.mu.Unlock()
	unlockSessions(a, sid)
}
