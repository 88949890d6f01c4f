package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/switchboard-hub/switchboard/hub"
)

// stmts are the writer's prepared statements, bound to its connection. Only
// the writer goroutine uses them.
type stmts struct {
	begin, commit, rollback        *sql.Stmt
	savepoint, release, rollbackTo *sql.Stmt
	upsertThread, upsertTurn       *sql.Stmt
	upsertPermission, decide       *sql.Stmt
	permissionStatus               *sql.Stmt
	insertEvent, threadClient      *sql.Stmt
	upsertProc, deleteProc         *sql.Stmt
	setSessionState                *sql.Stmt
	changeThread, changedThread    *sql.Stmt
	escalate, insertRule           *sql.Stmt
	deleteRule                     *sql.Stmt
	upsertElicitation              *sql.Stmt
	answerElicitation              *sql.Stmt
	elicitationStatus              *sql.Stmt
	dequeue, upsertQueued          *sql.Stmt
	deleteThread                   []*sql.Stmt // deleteThreadSQL, in order
	search                         searchStmts
	turnRange                      turnRangeStmts
	all                            []*sql.Stmt
}

func prepareStmts(ctx context.Context, conn *sql.Conn) (*stmts, error) {
	s := &stmts{}
	for _, p := range []struct {
		dst **sql.Stmt
		sql string
	}{
		{&s.begin, "BEGIN IMMEDIATE"},
		{&s.commit, "COMMIT"},
		{&s.rollback, "ROLLBACK"},
		{&s.savepoint, "SAVEPOINT w"},
		{&s.release, "RELEASE w"},
		{&s.rollbackTo, "ROLLBACK TO w"},
		{&s.upsertThread, upsertThreadSQL},
		{&s.upsertTurn, upsertTurnSQL},
		{&s.upsertPermission, upsertPermissionSQL},
		{&s.decide, decideSQL},
		{&s.permissionStatus, "SELECT status FROM permissions WHERE id = ?"},
		{&s.insertEvent, insertEventSQL},
		{&s.threadClient, "SELECT client_id FROM threads WHERE id = ?"},
		{&s.upsertProc, upsertProcSQL},
		{&s.deleteProc, "DELETE FROM agent_processes WHERE pid = ?"},
		{&s.setSessionState, setSessionStateSQL},
		{&s.changeThread, changeThreadSQL},
		{&s.changedThread, changedThreadSQL},
		{&s.escalate, escalateSQL},
		{&s.insertRule, insertRuleSQL},
		{&s.deleteRule, "DELETE FROM remembered_rules WHERE id = ?"},
		{&s.upsertElicitation, upsertElicitationSQL},
		{&s.answerElicitation, answerElicitationSQL},
		{&s.elicitationStatus, "SELECT status FROM elicitations WHERE id = ?"},
		{&s.dequeue, dequeueSQL},
		{&s.upsertQueued, upsertQueuedSQL},
	} {
		st, err := conn.PrepareContext(ctx, p.sql)
		if err != nil {
			_ = s.close()
			return nil, fmt.Errorf("store: prepare %q: %w", p.sql, err)
		}
		*p.dst = st
		s.all = append(s.all, st)
	}
	if err := s.search.prepare(ctx, conn, &s.all); err != nil {
		_ = s.close()
		return nil, err
	}
	if err := s.turnRange.prepare(ctx, conn, &s.all); err != nil {
		_ = s.close()
		return nil, err
	}
	for _, q := range deleteThreadSQL {
		st, err := conn.PrepareContext(ctx, q)
		if err != nil {
			_ = s.close()
			return nil, fmt.Errorf("store: prepare %q: %w", q, err)
		}
		s.deleteThread = append(s.deleteThread, st)
		s.all = append(s.all, st)
	}
	return s, nil
}

func (s *stmts) close() error {
	var errs []error
	for _, st := range s.all {
		errs = append(errs, st.Close())
	}
	return errors.Join(errs...)
}

// apply makes w's changes on the writer's connection, inside the
// transaction (and, for a Write of more than one statement, the savepoint)
// that commitBatch opened: Decide first, then Escalate, AnswerElicitation, threads, Dequeue, queued prompts, deleted
// threads, session states, thread changes (their announcements appended to
// w.Events), turns, permissions, elicitations, rules added, rules deleted, events, agent
// processes recorded, then forgotten. Each event is taken into its turn's
// range (turnrange.go) and indexed for search (search_index.go) as it is
// inserted.
func (db *DB) apply(ctx context.Context, w *hub.Write) error {
	st := db.st
	if w.Decide != nil {
		if err := decide(ctx, st, w.Decide); err != nil {
			return err
		}
	}
	if w.Escalate != nil {
		if err := escalate(ctx, st, w.Escalate); err != nil {
			return err
		}
	}
	if w.AnswerElicitation != nil {
		if err := answerElicitation(ctx, st, w.AnswerElicitation); err != nil {
			return err
		}
	}
	if len(w.Threads) > 0 || len(w.DeleteThreads) > 0 {
		clear(db.clients) // an owner may change
	}
	for i := range w.Threads {
		if err := upsertThread(ctx, st, &w.Threads[i]); err != nil {
			return err
		}
	}
	// After the threads: a moved queue's prompts join a thread this
	// Write creates (queuemove.go); before the thread changes, which
	// announce the queues' lengths.
	if err := applyQueue(ctx, st, w); err != nil { // queue.go
		return err
	}
	for _, id := range w.DeleteThreads {
		if err := deleteThread(ctx, st, id); err != nil {
			return err
		}
		db.ix.forget(id)
	}
	for i := range w.SessionStates {
		if err := setSessionState(ctx, st, &w.SessionStates[i]); err != nil {
			return err
		}
	}
	var announced []hub.Event
	for i := range w.ThreadChanges {
		ev, err := changeThread(ctx, st, &w.ThreadChanges[i])
		if err != nil {
			return err
		}
		if ev != nil {
			announced = append(announced, *ev)
		}
	}
	w.Events = append(w.Events, announced...)
	var ended []string // turns this Write ends (turnrange.go)
	for i := range w.Turns {
		if err := upsertTurn(ctx, st, &w.Turns[i]); err != nil {
			return err
		}
		if db.ranges.turn(&w.Turns[i]) {
			ended = append(ended, w.Turns[i].ID)
		}
	}
	for i := range w.Permissions {
		if err := upsertPermission(ctx, st, &w.Permissions[i]); err != nil {
			return err
		}
	}
	for i := range w.Elicitations {
		if err := upsertElicitation(ctx, st, &w.Elicitations[i]); err != nil {
			return err
		}
	}
	for i := range w.Rules {
		if err := insertRule(ctx, st, &w.Rules[i]); err != nil {
			return err
		}
	}
	for _, id := range w.DeleteRules {
		if err := deleteRule(ctx, st, id); err != nil {
			return err
		}
	}
	for i := range w.Events {
		if err := insertEvent(ctx, st, db.clients, &w.Events[i]); err != nil {
			return err
		}
		if err := db.ranges.event(ctx, &w.Events[i]); err != nil {
			return err
		}
		if db.searchOn {
			if err := db.ix.event(ctx, &w.Events[i]); err != nil {
				return err
			}
		}
	}
	for _, id := range ended {
		if err := db.ranges.end(ctx, id); err != nil {
			return err
		}
	}
	for i := range w.AgentProcs {
		if err := upsertProc(ctx, st, &w.AgentProcs[i]); err != nil {
			return err
		}
	}
	for _, pid := range w.ForgetProcs {
		if _, err := st.deleteProc.ExecContext(ctx, pid); err != nil {
			return fmt.Errorf("store: forget agent process %d: %w", pid, err)
		}
	}
	return db.applyUsage(ctx, w) // usage.go
}

func invalid(format string, args ...any) error {
	return hub.Errorf(hub.CodeInvalidArgument, format, args...)
}
