package store

import (
	"context"
	"fmt"

	"github.com/switchboard-hub/switchboard/hub"
)

// Remembered rules (hub.RememberedRule): a decision a person asked the hub
// to remember, oldest first by rowid.

const escalateSQL = `UPDATE permissions SET escalated_at = ? WHERE id = ? AND status = 'pending'`

const insertRuleSQL = `INSERT INTO remembered_rules
	(id, scope, thread_id, cwd, agent, kind, command, decision, title, created_at, created_by, permission_id, client_id, runs_in, env_key)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

const ruleSelect = `SELECT id, scope, thread_id, cwd, agent, kind, command, decision, title,
	created_at, created_by, permission_id, client_id, runs_in, env_key FROM remembered_rules`

func insertRule(ctx context.Context, st *stmts, r *hub.RememberedRule) error {
	if r.ID == "" || r.Scope == "" || r.Decision == "" {
		return invalid("store: a remembered rule needs an id, a scope and a decision")
	}
	_, err := st.insertRule.ExecContext(ctx, r.ID, r.Scope, r.ThreadID, r.Cwd, r.Agent, r.Kind, r.Command,
		r.Decision, r.Title, encTime(r.CreatedAt), r.CreatedBy, r.PermissionID, r.ClientID, r.RunsIn, r.EnvKey)
	if err != nil {
		return fmt.Errorf("store: insert rule %s: %w", r.ID, err)
	}
	return nil
}

func deleteRule(ctx context.Context, st *stmts, id string) error {
	res, err := st.deleteRule.ExecContext(ctx, id)
	if err != nil {
		return fmt.Errorf("store: delete rule %s: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return err
	}
	return hub.Errorf(hub.CodeNotFound, "rule %s not found", id)
}

// ListRules implements hub.Store.
func (db *DB) ListRules(ctx context.Context) ([]hub.RememberedRule, error) {
	rows, err := db.query(ctx, ruleSelect+` ORDER BY rowid`)
	if err != nil {
		return nil, fmt.Errorf("store: list rules: %w", err)
	}
	defer rows.Close()
	var out []hub.RememberedRule
	for rows.Next() {
		var r hub.RememberedRule
		var created int64
		if err := rows.Scan(&r.ID, &r.Scope, &r.ThreadID, &r.Cwd, &r.Agent, &r.Kind, &r.Command, &r.Decision,
			&r.Title, &created, &r.CreatedBy, &r.PermissionID, &r.ClientID, &r.RunsIn, &r.EnvKey); err != nil {
			return nil, fmt.Errorf("store: list rules: %w", err)
		}
		r.CreatedAt = decTime(created)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list rules: %w", err)
	}
	return out, nil
}
