package store

import (
	"context"
	"fmt"

	"github.com/switchboard-hub/switchboard/hub"
)

const upsertProcSQL = `INSERT INTO agent_processes (pid, start_time, thread_id, agent) VALUES (?, ?, ?, ?)
	ON CONFLICT (pid) DO UPDATE SET
		start_time = excluded.start_time, thread_id = excluded.thread_id, agent = excluded.agent`

// upsertProc records p (a pid seen again replaces the old record: the pid
// was reused).
func upsertProc(ctx context.Context, st *stmts, p *hub.AgentProcess) error {
	if p.PID <= 0 {
		return invalid("store: agent process without pid")
	}
	if _, err := st.upsertProc.ExecContext(ctx, p.PID, encTime(p.StartTime), p.ThreadID, p.Agent); err != nil {
		return fmt.Errorf("store: record agent process %d: %w", p.PID, err)
	}
	return nil
}

// AgentProcesses lists every recorded agent process by pid, whatever the
// state of its thread (restart recovery must stop them all).
func (db *DB) AgentProcesses(ctx context.Context) ([]hub.AgentProcess, error) {
	rows, err := db.query(ctx, `SELECT pid, start_time, thread_id, agent FROM agent_processes ORDER BY pid`)
	if err != nil {
		return nil, fmt.Errorf("store: agent processes: %w", err)
	}
	defer rows.Close()
	var ps []hub.AgentProcess
	for rows.Next() {
		var p hub.AgentProcess
		var start int64
		if err := rows.Scan(&p.PID, &start, &p.ThreadID, &p.Agent); err != nil {
			return nil, fmt.Errorf("store: agent processes: %w", err)
		}
		p.StartTime = decTime(start)
		ps = append(ps, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: agent processes: %w", err)
	}
	return ps, nil
}
