package engine

import (
	"context"

	"github.com/switchboard-hub/switchboard/hub"
)

// QueryThreads implements Service.
func (e *Engine) QueryThreads(ctx context.Context, c hub.Caller, q hub.ThreadQuery) (hub.ThreadPage, error) {
	if err := checkCaller(c); err != nil {
		return hub.ThreadPage{}, err
	}
	if q.Limit < 0 || q.Limit > 500 {
		return hub.ThreadPage{}, hub.Errorf(hub.CodeInvalidArgument, "limit must be between 1 and 500")
	}
	archived := q.Archived
	switch archived {
	case "":
		archived = hub.ArchivedHide
	case hub.ArchivedHide, hub.ArchivedOnly, hub.ArchivedAll:
	default:
		return hub.ThreadPage{}, &hub.Error{Code: hub.CodeInvalidArgument, Message: "archived must be true, false or all",
			Details: map[string]any{"field": "archived"}}
	}
	ts, next, err := e.store.ListThreads(ctx, hub.ThreadFilter{ClientID: c.ClientID, All: c.All,
		Limit: q.Limit, Cursor: q.Cursor, Archived: archived})
	if err != nil {
		return hub.ThreadPage{}, err
	}
	if ts == nil {
		ts = []hub.Thread{}
	}
	// Worktree threads carry their standing (ahead/behind, dirty, merged)
	// from the engine's cache: no git process per list read (land.go).
	for i := range ts {
		ts[i] = e.withOverlaps(ts[i])
		if ts[i].Worktree != nil {
			ts[i], _ = e.withWorktreeStatus(ctx, ts[i], nil)
		}
	}
	return hub.ThreadPage{Threads: ts, NextCursor: next}, nil
}

// SetArchived implements Service. It touches nothing but the flag (and
// updatedAt): the thread's turn, agent and permissions go on as they were.
// An archived thread leaves the overlaps; an unarchived one is checked
// again (overlaps.go).
func (e *Engine) SetArchived(ctx context.Context, c hub.Caller, id string, archived bool) (hub.Thread, error) {
	t, err := e.changeThread(ctx, c, hub.ThreadChange{ThreadID: id, Archived: &archived})
	if err == nil {
		e.archivedOverlaps(ctx, id, archived)
	}
	return t, err
}

// archivedOverlaps takes an archived thread out of the overlaps and
// checks an unarchived one again (overlaps.go).
func (e *Engine) archivedOverlaps(ctx context.Context, id string, archived bool) {
	if archived {
		e.dropOverlaps(ctx, id)
	} else {
		e.queueOverlapCheck(id)
	}
}

// archivePage is how many threads ArchiveThreads changes per commit.
const archivePage = 200

// ArchiveThreads implements Service: the caller's threads that are not
// archived and match req, archived a page per commit, each announced by
// thread_updated. With scope=all the caller's threads are every client's.
func (e *Engine) ArchiveThreads(ctx context.Context, c hub.Caller, req hub.ArchiveRequest) (hub.ArchiveResult, error) {
	if err := checkCaller(c); err != nil {
		return hub.ArchiveResult{}, err
	}
	f := hub.ThreadFilter{ClientID: c.ClientID, All: c.All, Cwd: req.Cwd, Agent: req.Agent,
		Archived: hub.ArchivedHide, Limit: archivePage}
	if req.IdleBefore != nil {
		if req.IdleBefore.IsZero() {
			return hub.ArchiveResult{}, hub.Errorf(hub.CodeInvalidArgument, "idleBefore must be a time")
		}
		f.UpdatedBefore = *req.IdleBefore
	}
	var n, retries int
	yes := true
	// Every page is read afresh from the first: the threads archived by
	// the previous page no longer match, so no cursor is needed and a
	// thread updated meanwhile is judged by its new updatedAt.
	for {
		if err := ctx.Err(); err != nil {
			return hub.ArchiveResult{Archived: n}, err
		}
		ts, _, err := e.store.ListThreads(ctx, f)
		if err != nil {
			return hub.ArchiveResult{Archived: n}, err
		}
		if len(ts) == 0 {
			return hub.ArchiveResult{Archived: n}, nil
		}
		now := e.now()
		w := &hub.Write{}
		for _, t := range ts {
			w.ThreadChanges = append(w.ThreadChanges, hub.ThreadChange{ThreadID: t.ID, Archived: &yes, UpdatedAt: now, Announce: true})
		}
		if err := e.commit(w); err != nil {
			// A thread deleted since it was read fails the page: read it
			// again (the deleted one is gone from it), a few times.
			if hub.ErrorCode(err) == hub.CodeNotFound && retries < 5 {
				retries++
				continue
			}
			return hub.ArchiveResult{Archived: n}, err
		}
		n += len(ts)
		for _, t := range ts {
			e.archivedOverlaps(ctx, t.ID, true)
		}
		if len(ts) < archivePage {
			return hub.ArchiveResult{Archived: n}, nil
		}
	}
}
