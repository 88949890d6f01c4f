package hub

import "time"

// Which threads a listing shows by their archived flag (ThreadQuery,
// ThreadFilter; GET /v1/threads?archived=).
const (
	// ArchivedAny shows every thread. It is ThreadFilter's zero value, so
	// the hub's own scans (restart recovery) never miss an archived thread.
	ArchivedAny = ""
	// ArchivedHide shows only threads that are not archived: what
	// GET /v1/threads answers without ?archived.
	ArchivedHide = "false"
	// ArchivedOnly shows only archived threads (?archived=true).
	ArchivedOnly = "true"
	// ArchivedAll is ?archived=all: every thread, archived or not.
	ArchivedAll = "all"
)

// ThreadQuery asks for a page of threads (GET /v1/threads): Limit
// (default 50, at most 500), Cursor (a previous page's NextCursor) and
// Archived: "" or "false" hides archived threads, "true" shows only
// them, "all" shows both.
type ThreadQuery struct {
	Limit    int    `json:"limit,omitempty"`
	Cursor   string `json:"cursor,omitempty"`
	Archived string `json:"archived,omitempty"`
}

// ArchiveRequest is the body of POST /v1/threads/archive: it archives
// every thread of the caller that matches all the fields given (Cwd: the
// thread's folder exactly; Agent: its agent id; IdleBefore: not updated
// since then). No field archives every thread of the caller. Running
// threads are archived too: archiving cancels nothing.
type ArchiveRequest struct {
	Cwd        string     `json:"cwd,omitempty"`
	Agent      string     `json:"agent,omitempty"`
	IdleBefore *time.Time `json:"idleBefore,omitempty"`
}

// ArchiveResult is the answer of POST /v1/threads/archive: how many
// threads it archived (those already archived are not counted).
type ArchiveResult struct {
	Archived int `json:"archived"`
}
