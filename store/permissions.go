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

const upsertPermissionSQL = `INSERT INTO permissions
	(id, thread_id, turn_id, status, tool_call, options, deadline, decided_by, option_id, decided_at, created_at)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (id) DO UPDATE SET
		thread_id = excluded.thread_id, turn_id = excluded.turn_id, status = excluded.status,
		tool_call = excluded.tool_call, options = excluded.options, deadline = excluded.deadline,
		decided_by = excluded.decided_by, option_id = excluded.option_id,
		decided_at = excluded.decided_at, created_at = excluded.created_at`

// decideSQL is the single-use decision: it changes a pending permission
// and nothing else.
const decideSQL = `UPDATE permissions SET status = ?, decided_by = ?, option_id = ?, decided_at = ?
	WHERE id = ? AND status = 'pending'`

// permissionSelect reads permissions joined to their (visible) thread,
// permissions the outer loop (CROSS JOIN).
const permissionSelect = `SELECT p.id, p.thread_id, p.turn_id, p.status, p.tool_call, p.options,
	p.deadline, p.decided_by, p.option_id, p.decided_at, p.created_at
	FROM permissions p CROSS JOIN threads th ON th.id = p.thread_id AND th.deleted = 0`

// upsertPermission stores p; its thread must exist (a foreign key). Options
// are stored as JSON: nil reads back nil, empty reads back empty.
func upsertPermission(ctx context.Context, st *stmts, p *hub.Permission) error {
	if p.ID == "" || p.ThreadID == "" {
		return invalid("store: permission without id or thread id")
	}
	opts, err := json.Marshal(p.Options)
	if err != nil {
		return fmt.Errorf("store: permission %s options: %w", p.ID, err)
	}
	_, err = st.upsertPermission.ExecContext(ctx, p.ID, p.ThreadID, p.TurnID, p.Status, encJSON(p.ToolCall),
		string(opts), encTime(p.Deadline), p.DecidedBy, p.OptionID, encTimePtr(p.DecidedAt), encTime(p.CreatedAt))
	if err != nil {
		return fmt.Errorf("store: upsert permission %s: %w", p.ID, err)
	}
	return nil
}

// decide records d's decision (Status, DecidedBy, OptionID, DecidedAt) if
// the permission d.ID is still pending: CONFLICT if it is not, NOT_FOUND if
// there is none, INVALID_ARGUMENT if d does not decide anything.
func decide(ctx context.Context, st *stmts, d *hub.Permission) error {
	if d.ID == "" || d.Status == "" || d.Status == hub.PermissionPending {
		return invalid("store: a decision needs a permission id and a final status")
	}
	res, err := st.decide.ExecContext(ctx, d.Status, d.DecidedBy, d.OptionID, encTimePtr(d.DecidedAt), d.ID)
	if err != nil {
		return fmt.Errorf("store: decide permission %s: %w", d.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return err
	}
	var status string
	err = st.permissionStatus.QueryRowContext(ctx, d.ID).Scan(&status)
	if errors.Is(err, sql.ErrNoRows) {
		return hub.Errorf(hub.CodeNotFound, "permission %s not found", d.ID)
	}
	if err != nil {
		return fmt.Errorf("store: decide permission %s: %w", d.ID, err)
	}
	e := hub.Errorf(hub.CodeConflict, "permission %s is already %s", d.ID, status)
	e.Details = map[string]any{"permissionId": d.ID, "status": status}
	return e
}

func scanPermission(s interface{ Scan(...any) error }) (hub.Permission, error) {
	var p hub.Permission
	var toolCall, opts []byte
	var deadline, created int64
	var decided sql.NullInt64
	err := s.Scan(&p.ID, &p.ThreadID, &p.TurnID, &p.Status, &toolCall, &opts, &deadline,
		&p.DecidedBy, &p.OptionID, &decided, &created)
	if err != nil {
		return p, err
	}
	if err := json.Unmarshal(opts, &p.Options); err != nil {
		return p, fmt.Errorf("permission %s options: %w", p.ID, err)
	}
	p.ToolCall, p.Deadline, p.DecidedAt, p.CreatedAt = decJSON(toolCall), decTime(deadline), decTimePtr(decided), decTime(created)
	return p, nil
}

// GetPermission returns the permission id; NOT_FOUND if it does not exist
// or its thread was deleted.
func (db *DB) GetPermission(ctx context.Context, id string) (hub.Permission, error) {
	p, err := scanPermission(db.queryRow(ctx, permissionSelect+` WHERE p.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return hub.Permission{}, hub.Errorf(hub.CodeNotFound, "permission %s not found", id)
	}
	if err != nil {
		return hub.Permission{}, fmt.Errorf("store: get permission: %w", err)
	}
	return p, nil
}

// ListPermissions returns the permissions f selects, oldest first (by
// CreatedAt, then insertion): those of f.ClientID's threads unless f.All
// (none when ClientID is "" and All is false), optionally of one thread and
// one status. Permissions of deleted threads are never listed.
func (db *DB) ListPermissions(ctx context.Context, f hub.PermissionFilter) ([]hub.Permission, error) {
	if !f.All && f.ClientID == "" {
		return nil, nil
	}
	var q strings.Builder
	q.WriteString(permissionSelect + ` WHERE 1`)
	var args []any
	if !f.All {
		q.WriteString(` AND th.client_id = ?`)
		args = append(args, f.ClientID)
	}
	if f.ThreadID != "" {
		q.WriteString(` AND p.thread_id = ?`)
		args = append(args, f.ThreadID)
	}
	if f.Status != "" {
		q.WriteString(` AND p.status = ?`)
		args = append(args, f.Status)
	}
	q.WriteString(` ORDER BY p.created_at, p.rowid`)
	rows, err := db.query(ctx, q.String(), args...)
	if err != nil {
		return nil, fmt.Errorf("store: list permissions: %w", err)
	}
	defer rows.Close()
	var ps []hub.Permission
	for rows.Next() {
		p, err := scanPermission(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list permissions: %w", err)
		}
		ps = append(ps, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list permissions: %w", err)
	}
	return ps, nil
}
