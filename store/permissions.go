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
	(id, thread_id, turn_id, status, tool_call, options, deadline, decided_by, option_id, decided_at, created_at, agent, escalated_at, kind, request)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (id) DO UPDATE SET
		thread_id = excluded.thread_id, turn_id = excluded.turn_id, status = excluded.status,
		tool_call = excluded.tool_call, options = excluded.options, deadline = excluded.deadline,
		decided_by = excluded.decided_by, option_id = excluded.option_id,
		decided_at = excluded.decided_at, created_at = excluded.created_at,
		agent = excluded.agent, escalated_at = excluded.escalated_at,
		kind = excluded.kind, request = excluded.request`

// decideSQL is the single-use decision: it changes a pending permission
// and nothing else.
const decideSQL = `UPDATE permissions SET status = ?, decided_by = ?, option_id = ?, decided_at = ?
	WHERE id = ? AND status = 'pending'`

// permissionSelect reads permissions joined to their (visible) thread,
// permissions the outer loop (CROSS JOIN).
const permissionSelect = `SELECT p.id, p.thread_id, p.turn_id, p.status, p.tool_call, p.options,
	p.deadline, p.decided_by, p.option_id, p.decided_at, p.created_at, p.agent, p.escalated_at,
	p.kind, p.request
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
	var req any // NULL without a description
	if p.Request != nil {
		b, err := json.Marshal(p.Request)
		if err != nil {
			return fmt.Errorf("store: permission %s request: %w", p.ID, err)
		}
		req = string(b)
	}
	_, err = st.upsertPermission.ExecContext(ctx, p.ID, p.ThreadID, p.TurnID, p.Status, encJSON(p.ToolCall),
		string(opts), encTime(p.Deadline), p.DecidedBy, p.OptionID, encTimePtr(p.DecidedAt), encTime(p.CreatedAt),
		p.Agent, encTimePtr(p.EscalatedAt), p.Kind, req)
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
	return notPending(ctx, st.permissionStatus, "permission", d.ID)
}

// notPending says why an update of the pending row id (a permission or
// an elicitation, whose status statusOf reads) changed nothing: NOT_FOUND
// when there is no such row, else CONFLICT naming the status it ended
// with (details: <kind>Id, status).
func notPending(ctx context.Context, statusOf *sql.Stmt, kind, id string) error {
	var status string
	err := statusOf.QueryRowContext(ctx, id).Scan(&status)
	if errors.Is(err, sql.ErrNoRows) {
		return hub.Errorf(hub.CodeNotFound, "%s %s not found", kind, id)
	}
	if err != nil {
		return fmt.Errorf("store: %s %s: %w", kind, id, err)
	}
	e := hub.Errorf(hub.CodeConflict, "%s %s is already %s", kind, id, status)
	e.Details = map[string]any{kind + "Id": id, "status": status}
	return e
}

func scanPermission(s interface{ Scan(...any) error }) (hub.Permission, error) {
	var p hub.Permission
	var toolCall, opts, req []byte
	var deadline, created int64
	var decided, escalated sql.NullInt64
	err := s.Scan(&p.ID, &p.ThreadID, &p.TurnID, &p.Status, &toolCall, &opts, &deadline,
		&p.DecidedBy, &p.OptionID, &decided, &created, &p.Agent, &escalated, &p.Kind, &req)
	if err != nil {
		return p, err
	}
	if req != nil {
		p.Request = new(hub.PermissionRequest)
		if err := json.Unmarshal(req, p.Request); err != nil {
			return p, fmt.Errorf("permission %s request: %w", p.ID, err)
		}
	}
	if err := json.Unmarshal(opts, &p.Options); err != nil {
		return p, fmt.Errorf("permission %s options: %w", p.ID, err)
	}
	p.ToolCall, p.Deadline, p.DecidedAt, p.CreatedAt = decJSON(toolCall), decTime(deadline), decTimePtr(decided), decTime(created)
	p.EscalatedAt = decTimePtr(escalated)
	p.Host = hub.HostOf(p.ID)
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
	where, args := permissionWhere(f)
	return db.queryPermissions(ctx, permissionSelect+where+` ORDER BY p.created_at, p.rowid`, args...)
}

// QueryPermissions implements hub.Store: f's filters, newest first, paged
// by keyset on (created_at, id).
func (db *DB) QueryPermissions(ctx context.Context, f hub.PermissionFilter) ([]hub.Permission, string, error) {
	if !f.All && f.ClientID == "" {
		return nil, "", nil
	}
	limit := f.Limit
	if limit <= 0 || limit > hub.MaxPermissionPage {
		limit = hub.MaxPermissionPage
	}
	where, args := permissionWhere(f)
	if f.Cursor != "" {
		at, id, err := decodeCursor(f.Cursor)
		if err != nil {
			return nil, "", err
		}
		where += ` AND (p.created_at, p.id) < (?, ?)`
		args = append(args, at, id)
	}
	ps, err := db.queryPermissions(ctx, permissionSelect+where+` ORDER BY p.created_at DESC, p.id DESC LIMIT ?`, append(args, limit+1)...)
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(ps) > limit {
		ps = ps[:limit]
		last := ps[limit-1]
		next = encodeCursor(encTime(last.CreatedAt), last.ID)
	}
	return ps, next, nil
}

// permissionWhere is the WHERE clause (and its arguments) of f's filters.
func permissionWhere(f hub.PermissionFilter) (string, []any) {
	var q strings.Builder
	q.WriteString(` WHERE 1`)
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
	if f.Agent != "" {
		q.WriteString(` AND p.agent = ?`)
		args = append(args, f.Agent)
	}
	if f.DecidedBy != "" {
		// A prefix, compared as bytes (LIKE would read % and _).
		q.WriteString(` AND substr(p.decided_by, 1, ?) = ?`)
		args = append(args, len(f.DecidedBy), f.DecidedBy)
	}
	if !f.From.IsZero() {
		q.WriteString(` AND p.created_at >= ?`)
		args = append(args, encTime(f.From))
	}
	if !f.To.IsZero() {
		q.WriteString(` AND p.created_at <= ?`)
		args = append(args, encTime(f.To))
	}
	return q.String(), args
}

func (db *DB) queryPermissions(ctx context.Context, q string, args ...any) ([]hub.Permission, error) {
	rows, err := db.query(ctx, q, args...)
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

// escalate records d.EscalatedAt on the permission d.ID if it is still
// pending: CONFLICT if it is not, NOT_FOUND if there is none.
func escalate(ctx context.Context, st *stmts, d *hub.Permission) error {
	if d.ID == "" || d.EscalatedAt == nil {
		return invalid("store: an escalation needs a permission id and a time")
	}
	res, err := st.escalate.ExecContext(ctx, encTimePtr(d.EscalatedAt), d.ID)
	if err != nil {
		return fmt.Errorf("store: escalate permission %s: %w", d.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return err
	}
	return notPending(ctx, st.permissionStatus, "permission", d.ID)
}
