package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-hub/switchboard/hub"
)

// Event page sizes (hub.EventFilter.Limit).
const (
	DefaultEventLimit = 1000
	MaxEventLimit     = 10000
)

// insertEventSQL appends an event; one of a deleted thread (a late write
// racing the deletion) keeps its place in the log but not its text.
const insertEventSQL = `INSERT INTO events (type, thread_id, turn_id, client_id, at, payload)
	VALUES (?1, ?2, ?3, ?4, ?5, CASE WHEN ?2 <> '' AND EXISTS
		(SELECT 1 FROM threads WHERE id = ?2 AND deleted = 1) THEN NULL ELSE ?6 END)`

// insertEvent appends e and sets e.Seq; an empty e.ClientID is first
// filled from e's thread (which may have been written by the same Write),
// through clients, the batch's cache of owners by thread (DB.clients).
func insertEvent(ctx context.Context, st *stmts, clients map[string]string, e *hub.Event) error {
	if e.Type == "" {
		return invalid("store: event without type")
	}
	if e.ClientID == "" && e.ThreadID != "" {
		owner, ok := clients[e.ThreadID]
		if !ok {
			err := st.threadClient.QueryRowContext(ctx, e.ThreadID).Scan(&owner)
			switch {
			case err == nil:
				clients[e.ThreadID] = owner
			case !errors.Is(err, sql.ErrNoRows):
				return fmt.Errorf("store: append %s event: %w", e.Type, err)
			}
		}
		e.ClientID = owner
	}
	res, err := st.insertEvent.ExecContext(ctx, e.Type, e.ThreadID, e.TurnID, e.ClientID, encTime(e.At), encJSON(e.Payload))
	if err == nil {
		e.Seq, err = res.LastInsertId()
	}
	if err != nil {
		return fmt.Errorf("store: append %s event: %w", e.Type, err)
	}
	return nil
}

// Events returns up to f.Limit (default 1000, at most 10000) committed
// events with Seq > f.After in Seq order: only f.ThreadID's and f.TurnID's
// when set (a turn's events are those of a stored turn), only those whose
// ClientID is f.ClientID unless f.All (none when ClientID is "" and All is
// false), never those of a deleted thread.
// Events with no thread are kept (subject to the client filter).
func (db *DB) Events(ctx context.Context, f hub.EventFilter) ([]hub.Event, error) {
	if !f.All && f.ClientID == "" {
		return nil, nil
	}
	q, args, limit := eventsQuery(f)
	rows, err := db.query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: events: %w", err)
	}
	defer rows.Close()
	events := make([]hub.Event, 0, min(limit, 256))
	for rows.Next() {
		var e hub.Event
		var at int64
		var payload []byte
		if err := rows.Scan(&e.Seq, &e.Type, &e.ThreadID, &e.TurnID, &e.ClientID, &at, &payload); err != nil {
			return nil, fmt.Errorf("store: events: %w", err)
		}
		e.At, e.Payload = decTime(at), decJSON(payload)
		events = append(events, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: events: %w", err)
	}
	return events, nil
}

// eventsQuery builds Events' query for f (ClientID or All set). Events of
// deleted threads are filtered with NOT IN over the (few) deleted threads,
// which SQLite evaluates once per query, not once per row. A turn's events
// are read through its thread's index between the turn's first and last
// seq (turnrange.go).
func eventsQuery(f hub.EventFilter) (q string, args []any, limit int) {
	limit = f.Limit
	if limit <= 0 {
		limit = DefaultEventLimit
	}
	limit = min(limit, MaxEventLimit)
	var b strings.Builder
	b.WriteString(`SELECT e.seq, e.type, e.thread_id, e.turn_id, e.client_id, e.at, e.payload FROM `)
	if f.TurnID != "" {
		b.WriteString(`turns u CROSS JOIN events e INDEXED BY events_thread_seq
		ON e.thread_id = u.thread_id AND e.seq >= u.first_seq AND e.seq <= ` + turnBoundSQL + ` AND e.turn_id = u.id
		WHERE u.id = ? AND`)
		args = append(args, f.TurnID)
	} else {
		b.WriteString(`events e WHERE`)
	}
	b.WriteString(` e.seq > ? AND e.thread_id NOT IN (SELECT id FROM threads WHERE deleted = 1)`)
	args = append(args, f.After)
	if f.ThreadID != "" {
		b.WriteString(` AND e.thread_id = ?`)
		args = append(args, f.ThreadID)
	}
	if !f.All {
		b.WriteString(` AND e.client_id = ?`)
		args = append(args, f.ClientID)
	}
	b.WriteString(` ORDER BY e.seq LIMIT ?`)
	return b.String(), append(args, limit), limit
}

// LastSeq returns the highest committed Seq, 0 for an empty log. It
// includes events of deleted threads: it is a position in the log.
func (db *DB) LastSeq(ctx context.Context) (int64, error) {
	var seq int64
	if err := db.queryRow(ctx, `SELECT COALESCE(MAX(seq), 0) FROM events`).Scan(&seq); err != nil {
		return 0, fmt.Errorf("store: last seq: %w", err)
	}
	return seq, nil
}
