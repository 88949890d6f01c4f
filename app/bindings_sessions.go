package app

import "github.com/switchboard-hub/switchboard/hub"

// The window's bindings for the agent's own sessions (issue 16).

// ListAgentSessions is Service.ListAgentSessions (GET
// /v1/agents/{id}/sessions?cwd&cursor).
func (b *Bindings) ListAgentSessions(agentID, cwd, cursor string) (hub.AgentSessionPage, error) {
	return b.svcs.Service.ListAgentSessions(b.ctx, windowCaller, agentID, cwd, cursor)
}

// ImportSession is Service.ImportSession (POST /v1/threads/import-session).
func (b *Bindings) ImportSession(req hub.ImportSessionRequest) (hub.ImportSessionResult, error) {
	return b.svcs.Service.ImportSession(b.ctx, windowCaller, req)
}
