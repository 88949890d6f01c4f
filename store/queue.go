package store

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/switchboard-hub/switchboard/hub"
)

// The threads' queued prompts (hub/queue.go, migration 0019).

const dequeueSQL = `DELETE FROM prompt_queue WHERE id = ?`

const upsertQueuedSQL = `INSERT INTO prompt_queue (id, thread_id, pos, input, content, created_at, updated_at)
	VALUES (?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (id) DO UPDATE SET pos = excluded.pos, input = excluded.input,
		content = excluded.content, updated_at = excluded.updated_at`

const queuedColumns = `id, thread_id, pos, input, content, created_at, updated_at`

// applyQueue applies w.Dequeue, then w.Queued. A prompt that is no longer
// queued fails the Write with NOT_FOUND: of two Writes that dequeue the
// same prompt into a turn, only the first stores its turn.
func applyQueue(ctx context.Context, st *stmts, w *hub.Write) error {
	for _, id := range w.Dequeue {
		res, err := st.dequeue.ExecContext(ctx, id)
		var n int64
		if err == nil {
			n, err = res.RowsAffected()
		}
		if err != nil {
			return fmt.Errorf("store: dequeue prompt %s: %w", id, err)
		}
		if n == 0 {
			return hub.Errorf(hub.CodeNotFound, "queued prompt %s not found", id)
		}
	}
	for i := range w.Queued {
		q := &w.Queued[i]
		if q.ID == "" || q.ThreadID == "" {
			return invalid("store: queued prompt without id or thread")
		}
		var content []byte
		if len(q.Content) > 0 {
			content, _ = json.Marshal(q.Content)
		}
		if _, err := st.upsertQueued.ExecContext(ctx, q.ID, q.ThreadID, q.Position, q.Input, encJSON(content), encTime(q.CreatedAt), encTime(q.UpdatedAt)); err != nil {
			return fmt.Errorf("store: queue prompt %s: %w", q.ID, err)
		}
	}
	return nil
}

// QueuedPrompts implements hub.QueueStore: the thread's queue, head first.
func (db *DB) QueuedPrompts(ctx context.Context, threadID string) ([]hub.QueuedPrompt, error) {
	rows, err := db.query(ctx, `SELECT `+queuedColumns+` FROM prompt_queue
		WHERE thread_id = ? AND thread_id IN (SELECT id FROM threads WHERE deleted = 0) ORDER BY pos, created_at, id`, threadID)
	if err != nil {
		return nil, fmt.Errorf("store: queued prompts: %w", err)
	}
	defer rows.Close()
	var out []hub.QueuedPrompt
	for rows.Next() {
		var q hub.QueuedPrompt
		var content []byte
		var created, updated int64
		if err := rows.Scan(&q.ID, &q.ThreadID, &q.Position, &q.Input, &content, &created, &updated); err != nil {
			return nil, fmt.Errorf("store: queued prompts: %w", err)
		}
		if len(content) > 0 {
			if err := json.Unmarshal(content, &q.Content); err != nil {
				return nil, fmt.Errorf("store: queued prompt %s: content: %w", q.ID, err)
			}
		}
		q.CreatedAt, q.UpdatedAt = decTime(created), decTime(updated)
		q.Position = len(out) // 0..n-1 whatever gaps a crash left
		out = append(out, q)
	}
	return out, rows.Err()
}

// WaitingThreads implements hub.QueueStore: the live threads with a
// queued prompt or a limit.
func (db *DB) WaitingThreads(ctx context.Context) ([]string, error) {
	rows, err := db.query(ctx, `SELECT thread_id FROM prompt_queue
		WHERE thread_id IN (SELECT id FROM threads WHERE deleted = 0)
		UNION SELECT id FROM threads WHERE deleted = 0 AND limited_until IS NOT NULL
		ORDER BY 1`)
	if err != nil {
		return nil, fmt.Errorf("store: waiting threads: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("store: waiting threads: %w", err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
}
