package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/switchboard-hub/switchboard/hub"
)

// A turn's events are read through their thread's index (events_thread_seq)
// between turns.first_seq and turns.last_seq (migration 0013, ADR 0026).
// The writer keeps the two so that, for every stored event E of turn T:
//
//   - first_seq(T) is 0 (not known: read from the thread's start) or at
//     most E.seq;
//   - when T is not running and last_seq(T) > 0, E.seq is at most
//     last_seq(T). A running turn's last_seq is no bound: readers read it
//     to the thread's end (turnBoundSQL).
//
// and first_seq is 0 only while the turn has no stored event.
//
// So a streaming chunk costs no update of its turn's row: while the writer
// has seen the turn start, it keeps the turn's last seq in memory and
// writes it in the Write that ends the turn. An event of a turn it is not
// following (a terminal's output after its turn ended; a turn that was
// running when the hub stopped, ended by recovery) widens the row's range
// itself. Each update is in the transaction of the event it follows, so a
// failed Write takes back both; the writer then forgets what it held in
// memory (reset), and the turns it followed are widened event by event
// from then on. A failed range update fails the whole batch (rangeErr):
// it runs after the statement it follows, which a Write of one event does
// not guard with a savepoint, so it must not fail that Write alone.

// turnBoundSQL is the highest seq a turn's events may have, for turn
// alias u.
const turnBoundSQL = `CASE WHEN u.status <> 'running' AND u.last_seq > 0 THEN u.last_seq ELSE 9223372036854775807 END`

// turnRanges is the writer's memory of the running turns' ranges. Owned by
// the writer goroutine.
type turnRanges struct {
	st      *turnRangeStmts
	running map[string]*turnRange
}

// turnRange is what the writer knows of a running turn.
type turnRange struct {
	firstSet bool  // its first_seq is written
	last     int64 // its highest seq so far (0: none)
}

type turnRangeStmts struct {
	setFirst, setLast, widen *sql.Stmt
}

func (s *turnRangeStmts) prepare(ctx context.Context, conn *sql.Conn, all *[]*sql.Stmt) error {
	for _, p := range []struct {
		dst **sql.Stmt
		sql string
	}{
		{&s.setFirst, `UPDATE turns SET first_seq = ?1 WHERE id = ?2 AND first_seq = 0`},
		{&s.setLast, `UPDATE turns SET last_seq = max(last_seq, ?1) WHERE id = ?2`},
		{&s.widen, `UPDATE turns SET first_seq = CASE WHEN first_seq = 0 OR first_seq > ?1 THEN ?1 ELSE first_seq END,
			last_seq = max(last_seq, ?1) WHERE id = ?2`},
	} {
		st, err := conn.PrepareContext(ctx, p.sql)
		if err != nil {
			return fmt.Errorf("store: prepare %q: %w", p.sql, err)
		}
		*p.dst = st
		*all = append(*all, st)
	}
	return nil
}

func newTurnRanges(st *turnRangeStmts) *turnRanges {
	return &turnRanges{st: st, running: map[string]*turnRange{}}
}

// turn notes t, just upserted: a running turn is followed from now on; an
// ended one is returned, for end once the Write's events are stored.
func (r *turnRanges) turn(t *hub.Turn) (ended bool) {
	if t.Status != hub.TurnRunning {
		return r.running[t.ID] != nil
	}
	if r.running[t.ID] == nil {
		r.running[t.ID] = &turnRange{}
	}
	return false
}

// event takes e, just stored with its Seq, into its turn's range.
func (r *turnRanges) event(ctx context.Context, e *hub.Event) error {
	if e.TurnID == "" || e.Seq == 0 {
		return nil
	}
	tr := r.running[e.TurnID]
	if tr == nil {
		if _, err := r.st.widen.ExecContext(ctx, e.Seq, e.TurnID); err != nil {
			return rangeErr(err)
		}
		return nil
	}
	if !tr.firstSet {
		if _, err := r.st.setFirst.ExecContext(ctx, e.Seq, e.TurnID); err != nil {
			return rangeErr(err)
		}
		tr.firstSet = true
	}
	tr.last = max(tr.last, e.Seq)
	return nil
}

// reset forgets the running turns (after a failed Write: what was noted
// may have been rolled back).
func (r *turnRanges) reset() { clear(r.running) }

// end writes the last seq of turn id, which ended in this Write, and stops
// following it.
func (r *turnRanges) end(ctx context.Context, id string) error {
	tr := r.running[id]
	delete(r.running, id)
	if tr == nil || tr.last == 0 {
		return nil
	}
	if _, err := r.st.setLast.ExecContext(ctx, tr.last, id); err != nil {
		return rangeErr(err)
	}
	return nil
}

// rangeErr reports a failed range update as an error that is never
// statement-level (statementLevel), so that the batch is rolled back.
func rangeErr(err error) error {
	return fmt.Errorf("store: turn range: %v", err)
}
