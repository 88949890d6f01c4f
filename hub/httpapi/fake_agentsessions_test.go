package httpapi

import (
	"context"

	"github.com/switchboard-hub/switchboard/hub"
)

// The fake's AgentSessions: agent "echo" lists two sessions a page;
// "gone" has no session/list. Enough to test the adapter (the engine's
// and the end-to-end tests test the behaviour).

type fakeSessionCall struct{ agent, cwd, cursor string }

func (f *fake) ListAgentSessions(ctx context.Context, c hub.Caller, agentID, cwd, cursor string) (hub.AgentSessionPage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.enterLocked(c); err != nil {
		return hub.AgentSessionPage{}, err
	}
	f.lastSessionList = fakeSessionCall{agentID, cwd, cursor}
	if agentID != "echo" {
		return hub.AgentSessionPage{}, &hub.Error{Code: hub.CodeInvalidArgument, Message: "no session/list",
			Details: map[string]any{"reason": hub.ReasonSessionListUnsupported}}
	}
	if cursor == "" {
		return hub.AgentSessionPage{Sessions: []hub.AgentSession{{SessionID: "s1", Cwd: cwd, Title: "One", ThreadID: f.imported["s1"]}}, NextCursor: "p2"}, nil
	}
	return hub.AgentSessionPage{Sessions: []hub.AgentSession{{SessionID: "s2", Cwd: cwd, Title: "Two", ThreadID: f.imported["s2"]}}}, nil
}

func (f *fake) ImportSession(ctx context.Context, c hub.Caller, req hub.ImportSessionRequest) (hub.ImportSessionResult, error) {
	t, created, err := f.importSession(ctx, c, req)
	return hub.ImportSessionResult{Thread: t, Created: created}, err
}

func (f *fake) importSession(ctx context.Context, c hub.Caller, req hub.ImportSessionRequest) (hub.Thread, bool, error) {
	f.mu.Lock()
	if id, ok := f.imported[req.SessionID]; ok {
		t := *f.threads[id]
		f.mu.Unlock()
		return t, false, nil
	}
	f.mu.Unlock()
	t, err := f.CreateThread(ctx, c, hub.CreateThreadRequest{Agent: req.Agent, Cwd: req.Cwd, Title: req.Title})
	if err != nil {
		return t, false, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.imported == nil {
		f.imported = map[string]string{}
	}
	f.imported[req.SessionID] = t.ID
	t.Imported = &hub.ImportedSession{SessionID: req.SessionID, History: hub.ImportedHistoryStored}
	*f.threads[t.ID] = t
	return t, true, nil
}
