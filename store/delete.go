package store

import (
	"context"
	"fmt"
)

// deleteThreadSQL deletes a thread's text (hub.Write.DeleteThreads), in
// this order, each with the thread id as its one argument: its search
// documents (search_fts is in FTS5 secure-delete mode, so their terms
// leave the index's segments at once), its events, permissions, elicitations, turns.
//
// The event log's last row is kept, its payload cleared, when it is the
// thread's: seq is the rowid, so deleting the highest row would hand its
// seq to the next event, and a client resuming from it would miss that
// event. With secure_delete on (the writer's DSN), SQLite overwrites the
// deleted content with zeros; compact (compact.go) then moves the pages
// out of the WAL, so the text leaves the files.
var deleteThreadSQL = []string{
	`DELETE FROM search_fts WHERE rowid IN (SELECT seq FROM search_docs WHERE thread_id = ?1)`,
	`DELETE FROM search_docs WHERE thread_id = ?1`,
	`DELETE FROM events WHERE thread_id = ?1 AND seq < (SELECT MAX(seq) FROM events)`,
	`UPDATE events SET payload = NULL WHERE thread_id = ?1`,
	`DELETE FROM permissions WHERE thread_id = ?1`,
	`DELETE FROM elicitations WHERE thread_id = ?1`,
	`DELETE FROM remembered_rules WHERE thread_id = ?1`,
	`DELETE FROM turns WHERE thread_id = ?1`,
	`DELETE FROM prompt_queue WHERE thread_id = ?1`,
	`UPDATE threads SET deleted = 1, title = '', cwd = '', summary = '', agent_session_id = '',
		modes = NULL, config_options = NULL, client_capabilities = NULL, available_commands = NULL,
		worktree = NULL
		WHERE id = ?1`,
}

func deleteThread(ctx context.Context, st *stmts, id string) error {
	if id == "" {
		return invalid("store: delete thread without id")
	}
	for _, s := range st.deleteThread {
		if _, err := s.ExecContext(ctx, id); err != nil {
			return fmt.Errorf("store: delete thread %s: %w", id, err)
		}
	}
	return nil
}

// deletes reports whether any Write of batch deletes a thread.
func deletes(batch []*op) bool {
	for _, o := range batch {
		if o.w != nil && len(o.w.DeleteThreads) > 0 {
			return true
		}
	}
	return false
}
