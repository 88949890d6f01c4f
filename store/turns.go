package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/switchboard-hub/switchboard/hub"
)

const upsertTurnSQL = `INSERT INTO turns
	(id, thread_id, status, input, content, output, stop_reason, error, started_at, ended_at, internal)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (id) DO UPDATE SET
		thread_id = excluded.thread_id, status = excluded.status, input = excluded.input,
		content = excluded.content, output = excluded.output, stop_reason = excluded.stop_reason,
		error = excluded.error, started_at = excluded.started_at, ended_at = excluded.ended_at,
		internal = excluded.internal`

// turnSelect reads turns joined to their (visible) thread. CROSS JOIN
// makes turns the outer loop, so that the turns indices drive every query.
//
// An ended turn whose stored output is empty reads it from its
// message_delta events (which is what a turn's output is): the engine
// stores a long output once, as its events, not again in the turn's row
// (hub.Turn.Output). A turn with no message reads "" either way. (The
// ordered subquery is not flattened into an aggregate: group_concat gets
// the texts in seq order, read off events_thread_seq between the turn's
// first and last seq (turnrange.go), without sorting.)
const turnSelect = `SELECT t.id, t.thread_id, t.status, t.input, t.content,
	CASE WHEN t.output = '' AND t.status <> 'running' THEN (
		SELECT coalesce(group_concat(x.text, ''), '') FROM (
			SELECT json_extract(e.payload, '$.text') AS text FROM events e INDEXED BY events_thread_seq
			WHERE e.thread_id = t.thread_id AND e.seq >= t.first_seq
				AND e.seq <= CASE WHEN t.last_seq > 0 THEN t.last_seq ELSE 9223372036854775807 END
				AND e.turn_id = t.id AND e.type = 'message_delta' ORDER BY e.seq) x)
	ELSE t.output END, t.stop_reason,
	t.error, t.started_at, t.ended_at, t.internal
	FROM turns t CROSS JOIN threads th ON th.id = t.thread_id AND th.deleted = 0`

// upsertTurn stores t; its thread must exist (a foreign key).
func upsertTurn(ctx context.Context, st *stmts, t *hub.Turn) error {
	if t.ID == "" || t.ThreadID == "" {
		return invalid("store: turn without id or thread id")
	}
	_, err := st.upsertTurn.ExecContext(ctx, t.ID, t.ThreadID, t.Status, t.Input, encJSON(t.Content),
		t.Output, t.StopReason, t.Error, encTime(t.StartedAt), encTimePtr(t.EndedAt), boolInt(t.Internal))
	if err != nil {
		return fmt.Errorf("store: upsert turn %s: %w", t.ID, err)
	}
	return nil
}

func scanTurn(s interface{ Scan(...any) error }) (hub.Turn, error) {
	var t hub.Turn
	var content []byte
	var started int64
	var ended sql.NullInt64
	err := s.Scan(&t.ID, &t.ThreadID, &t.Status, &t.Input, &content, &t.Output, &t.StopReason,
		&t.Error, &started, &ended, &t.Internal)
	t.Content, t.StartedAt, t.EndedAt = decJSON(content), decTime(started), decTimePtr(ended)
	return t, err
}

// GetTurn returns the turn id; NOT_FOUND if it does not exist or its thread
// was deleted.
func (db *DB) GetTurn(ctx context.Context, id string) (hub.Turn, error) {
	t, err := scanTurn(db.queryRow(ctx, turnSelect+` WHERE t.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return hub.Turn{}, hub.Errorf(hub.CodeNotFound, "turn %s not found", id)
	}
	if err != nil {
		return hub.Turn{}, fmt.Errorf("store: get turn: %w", err)
	}
	return t, nil
}

// ListTurns returns the turns of threadID oldest first (by StartedAt, then
// insertion), without Internal ones unless includeInternal. A missing or
// deleted thread has no turns.
func (db *DB) ListTurns(ctx context.Context, threadID string, includeInternal bool) ([]hub.Turn, error) {
	q := turnSelect + ` WHERE t.thread_id = ?`
	if !includeInternal {
		q += ` AND t.internal = 0`
	}
	return db.queryTurns(ctx, q+` ORDER BY t.started_at, t.rowid`, threadID)
}

// Turn page sizes (ListTurnsPage).
const (
	DefaultTurnLimit = 50
	MaxTurnLimit     = 500
)

// ListTurnsPage returns up to limit (default 50, at most 500) turns of
// threadID oldest first, as ListTurns orders them, after cursor, and the
// cursor of the next page ("" on the last). Paging is by keyset: a turn
// started while a client pages shows on a later page. A malformed cursor
// is INVALID_ARGUMENT.
func (db *DB) ListTurnsPage(ctx context.Context, threadID string, includeInternal bool, cursor string, limit int) ([]hub.Turn, string, error) {
	if limit <= 0 {
		limit = DefaultTurnLimit
	}
	limit = min(limit, MaxTurnLimit)
	q := turnSelect + ` WHERE t.thread_id = ?`
	args := []any{threadID}
	if !includeInternal {
		q += ` AND t.internal = 0`
	}
	if cursor != "" {
		at, id, err := decodeCursor(cursor)
		if err != nil {
			return nil, "", err
		}
		q += ` AND (t.started_at, t.rowid) > (?, (SELECT rowid FROM turns WHERE id = ?))`
		args = append(args, at, id)
	}
	turns, err := db.queryTurns(ctx, q+` ORDER BY t.started_at, t.rowid LIMIT ?`, append(args, limit+1)...)
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(turns) > limit {
		turns = turns[:limit]
		last := turns[limit-1]
		next = encodeCursor(encTime(last.StartedAt), last.ID)
	}
	return turns, next, nil
}

// RunningTurns returns every turn still marked running, of threads not
// deleted, oldest first.
func (db *DB) RunningTurns(ctx context.Context) ([]hub.Turn, error) {
	return db.queryTurns(ctx, turnSelect+` WHERE t.status = 'running' ORDER BY t.started_at, t.rowid`)
}

func (db *DB) queryTurns(ctx context.Context, q string, args ...any) ([]hub.Turn, error) {
	rows, err := db.query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list turns: %w", err)
	}
	defer rows.Close()
	var turns []hub.Turn
	for rows.Next() {
		t, err := scanTurn(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list turns: %w", err)
		}
		turns = append(turns, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list turns: %w", err)
	}
	return turns, nil
}
