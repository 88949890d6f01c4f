package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-hub/switchboard/hub"
)

// Elicitations (hub.Elicitation) are stored as their JSON (body) beside
// the columns lists filter on; migration 0011.

const upsertElicitationSQL = `INSERT INTO elicitations (id, thread_id, status, agent, decided_by, created_at, body)
	VALUES (?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (id) DO UPDATE SET thread_id = excluded.thread_id, status = excluded.status,
		agent = excluded.agent, decided_by = excluded.decided_by, created_at = excluded.created_at, body = excluded.body`

// answerElicitationSQL is the single-use answer: it changes a pending
// elicitation and nothing else.
const answerElicitationSQL = `UPDATE elicitations SET status = ?, decided_by = ?, body = ?
	WHERE id = ? AND status = 'pending'`

const elicitationSelect = `SELECT e.body FROM elicitations e
	CROSS JOIN threads th ON th.id = e.thread_id AND th.deleted = 0`

func upsertElicitation(ctx context.Context, st *stmts, e *hub.Elicitation) error {
	if e.ID == "" || e.ThreadID == "" || e.Status == "" {
		return invalid("store: elicitation without id, thread id or status")
	}
	body, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("store: elicitation %s: %w", e.ID, err)
	}
	if _, err := st.upsertElicitation.ExecContext(ctx, e.ID, e.ThreadID, e.Status, e.Agent, e.DecidedBy,
		encTime(e.CreatedAt), string(body)); err != nil {
		return fmt.Errorf("store: upsert elicitation %s: %w", e.ID, err)
	}
	return nil
}

// answerElicitation records a's end if the elicitation a.ID is still
// pending: CONFLICT if it is not, NOT_FOUND if there is none.
func answerElicitation(ctx context.Context, st *stmts, a *hub.Elicitation) error {
	if a.ID == "" || a.Status == "" || a.Status == hub.ElicitationPending {
		return invalid("store: an answer needs an elicitation id and a final status")
	}
	body, err := json.Marshal(a)
	if err != nil {
		return fmt.Errorf("store: elicitation %s: %w", a.ID, err)
	}
	res, err := st.answerElicitation.ExecContext(ctx, a.Status, a.DecidedBy, string(body), a.ID)
	if err != nil {
		return fmt.Errorf("store: answer elicitation %s: %w", a.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return err
	}
	return notPending(ctx, st.elicitationStatus, "elicitation", a.ID)
}

// GetElicitation implements hub.ElicitationStore; NOT_FOUND if it does not
// exist or its thread was deleted.
func (db *DB) GetElicitation(ctx context.Context, id string) (hub.Elicitation, error) {
	var body []byte
	err := db.queryRow(ctx, elicitationSelect+` WHERE e.id = ?`, id).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return hub.Elicitation{}, hub.Errorf(hub.CodeNotFound, "elicitation %s not found", id)
	}
	if err != nil {
		return hub.Elicitation{}, fmt.Errorf("store: get elicitation: %w", err)
	}
	var e hub.Elicitation
	if err := json.Unmarshal(body, &e); err != nil {
		return hub.Elicitation{}, fmt.Errorf("store: elicitation %s: %w", id, err)
	}
	return e, nil
}

// QueryElicitations implements hub.ElicitationStore: newest first, paged by
// keyset on (created_at, id), as QueryPermissions.
func (db *DB) QueryElicitations(ctx context.Context, f hub.ElicitationFilter) ([]hub.Elicitation, string, error) {
	if !f.All && f.ClientID == "" {
		return nil, "", nil
	}
	limit := f.Limit
	if limit <= 0 || limit > hub.MaxPermissionPage {
		limit = hub.MaxPermissionPage
	}
	var q strings.Builder
	q.WriteString(elicitationSelect + ` WHERE 1`)
	var args []any
	add := func(cond string, a ...any) { q.WriteString(cond); args = append(args, a...) }
	if !f.All {
		add(` AND th.client_id = ?`, f.ClientID)
	}
	if f.ThreadID != "" {
		add(` AND e.thread_id = ?`, f.ThreadID)
	}
	if f.Status != "" {
		add(` AND e.status = ?`, f.Status)
	}
	if f.Agent != "" {
		add(` AND e.agent = ?`, f.Agent)
	}
	if f.DecidedBy != "" {
		add(` AND substr(e.decided_by, 1, ?) = ?`, len(f.DecidedBy), f.DecidedBy)
	}
	if !f.From.IsZero() {
		add(` AND e.created_at >= ?`, encTime(f.From))
	}
	if !f.To.IsZero() {
		add(` AND e.created_at <= ?`, encTime(f.To))
	}
	if f.Cursor != "" {
		at, id, err := decodeCursor(f.Cursor)
		if err != nil {
			return nil, "", err
		}
		add(` AND (e.created_at, e.id) < (?, ?)`, at, id)
	}
	add(` ORDER BY e.created_at DESC, e.id DESC LIMIT ?`, limit+1)
	rows, err := db.query(ctx, q.String(), args...)
	if err != nil {
		return nil, "", fmt.Errorf("store: list elicitations: %w", err)
	}
	defer rows.Close()
	var out []hub.Elicitation
	for rows.Next() {
		var body []byte
		if err := rows.Scan(&body); err != nil {
			return nil, "", fmt.Errorf("store: list elicitations: %w", err)
		}
		var e hub.Elicitation
		if err := json.Unmarshal(body, &e); err != nil {
			return nil, "", fmt.Errorf("store: list elicitations: %w", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, "", fmt.Errorf("store: list elicitations: %w", err)
	}
	next := ""
	if len(out) > limit {
		out = out[:limit]
		last := out[limit-1]
		next = encodeCursor(encTime(last.CreatedAt), last.ID)
	}
	return out, next, nil
}
