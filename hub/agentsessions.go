package hub

import (
	"context"
	"time"
)

// AgentSessions is the part of Service that imports the agent's own
// sessions (issue 16): those an agent kept of its own (ACP session/list),
// each bound to at most one thread.
type AgentSessions interface {
	// ListAgentSessions is one page of agentID's sessions in cwd (an
	// absolute, existing folder, checked like CreateThread's), as the
	// agent lists them (session/list, paged with the agent's cursor),
	// each with the thread already bound to it when the caller may see
	// one. It starts a short-lived process of the agent (counted against
	// limits.maxAgentProcesses). INVALID_ARGUMENT for an unknown or
	// unavailable agent or a bad cwd; INVALID_ARGUMENT with
	// details.reason SESSION_LIST_UNSUPPORTED when the agent does not
	// advertise session/list; UPSTREAM_UNAVAILABLE when it fails.
	// What the agent sends is untrusted: ids and titles are capped and
	// cleaned of control characters, entries with an unusable id dropped.
	ListAgentSessions(ctx context.Context, c Caller, agentID, cwd, cursor string) (AgentSessionPage, error)
	// ImportSession binds a new thread of the caller to the agent's
	// session req.SessionID and opens it: with session/load when the
	// agent has it (its replay stored as the thread's turns and events,
	// redacted like live text), else session/resume (the history stays
	// with the agent: Thread.Imported.History "agent"). Created is false
	// when a thread the caller may see is bound to that session already:
	// that thread is returned and nothing changes. A thread of another
	// client bound to it is CONFLICT (details.reason
	// SESSION_ALREADY_IMPORTED). The agent refusing the session (or
	// offering neither load nor resume) is UPSTREAM_UNAVAILABLE, or
	// INVALID_ARGUMENT with details.reason SESSION_IMPORT_UNSUPPORTED,
	// and leaves no thread behind.
	ImportSession(ctx context.Context, c Caller, req ImportSessionRequest) (ImportSessionResult, error)
}

// ImportSessionResult is what ImportSession did: the thread bound to the
// session, and whether it was made now (HTTP 201) or found (200).
type ImportSessionResult struct {
	Thread  Thread `json:"thread"`
	Created bool   `json:"created"`
}

// AgentSession is one session an agent lists (GET
// /v1/agents/{id}/sessions). ThreadID is the caller's thread bound to it,
// when there is one. UpdatedAt is the agent's, nil when it gave none or
// an unreadable one.
type AgentSession struct {
	SessionID string     `json:"sessionId"`
	Cwd       string     `json:"cwd"`
	Title     string     `json:"title"`
	UpdatedAt *time.Time `json:"updatedAt,omitempty"`
	ThreadID  string     `json:"threadId,omitempty"`
}

// AgentSessionPage is a page of an agent's sessions; NextCursor is the
// agent's cursor of the next page ("" on the last).
type AgentSessionPage struct {
	Sessions   []AgentSession `json:"sessions"`
	NextCursor string         `json:"nextCursor,omitempty"`
}

// ImportSessionRequest is the body of POST /v1/threads/import-session.
// Title (an extension) is the thread's title, as the list showed it;
// the folder's name when empty.
type ImportSessionRequest struct {
	Agent     string `json:"agent"`
	SessionID string `json:"sessionId"`
	Cwd       string `json:"cwd"`
	Title     string `json:"title,omitempty"`
}

// ImportedSession says a thread was made from an agent's own session
// (Thread.Imported): its id and where its history is: "stored" (replayed
// by session/load into the thread's turns) or "agent" (kept by the agent,
// reopened with session/resume).
type ImportedSession struct {
	SessionID string `json:"sessionId"`
	History   string `json:"history"`
}

// ImportedSession.History values.
const (
	ImportedHistoryStored = "stored"
	ImportedHistoryAgent  = "agent"
)

// details.reason values of ListAgentSessions and ImportSession.
const (
	ReasonSessionListUnsupported   = "SESSION_LIST_UNSUPPORTED"
	ReasonSessionImportUnsupported = "SESSION_IMPORT_UNSUPPORTED"
	ReasonSessionAlreadyImported   = "SESSION_ALREADY_IMPORTED"
	// ReasonSessionLocked: another Switchboard hub of the user has the
	// agent session open (one writer per agent session; details.holder
	// names it: pid and command line).
	ReasonSessionLocked = "SESSION_LOCKED"
)
