package store

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
	"modernc.org/sqlite"
)

// op is one queued Write and whom to tell about it.
type op struct {
	w *hub.Write
	// fn, for an op without w, runs on the writer's connection between
	// batches, outside any transaction (compact.go).
	fn   func(ctx context.Context) error
	done func(*hub.Write, error) // nil: nobody to tell
	size int
	err  error // set by the writer goroutine
	into *op   // the op that stores w's delta (coalesce.go)
}

// Commit applies w and returns once it is committed (w.Events then carry
// their Seq and ClientID) or failed. ctx bounds the wait to enqueue and the
// wait for the result; but once w is queued it is applied even if ctx ends,
// so a ctx error does not mean w was not committed, and the writer may
// still be setting w.Events[i].Seq: after a ctx error the caller must not
// touch w again.
//
// Errors: a *hub.Error for a refused Write (Decide: CONFLICT, NOT_FOUND;
// INVALID_ARGUMENT), an INTERNAL *hub.Error when SQLite failed, ErrClosed
// after Close, or ctx's error.
func (db *DB) Commit(ctx context.Context, w *hub.Write) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return db.await(ctx, &op{w: w}, "store: commit")
}

// await queues o and waits for its result: Commit's and onWriter's. ctx
// bounds both waits, but once queued o runs even if ctx ends; ctx's
// error is returned as "<what>: <err>".
func (db *DB) await(ctx context.Context, o *op, what string) error {
	res := make(chan error, 1)
	o.done = func(_ *hub.Write, err error) { res <- err }
	if err := db.enqueue(ctx, o); err != nil {
		return err
	}
	select {
	case err := <-res:
		return err
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", what, ctx.Err())
	}
}

// CommitAsync queues w and returns; it blocks only while the queue is full.
// done (which may be nil) is called on the writer goroutine after w's batch
// committed or failed, in submission order; it must not block or call the
// DB. After Close, done is called at once on the caller's goroutine with
// ErrClosed.
func (db *DB) CommitAsync(w *hub.Write, done func(*hub.Write, error)) {
	if err := db.enqueue(context.Background(), &op{w: w, done: done}); err != nil && done != nil {
		done(w, err)
	}
}

// enqueue sends o to the writer, waiting while the queue is full until ctx
// ends.
func (db *DB) enqueue(ctx context.Context, o *op) error {
	if o.w == nil && o.fn == nil {
		return hub.Errorf(hub.CodeInvalidArgument, "store: nil write")
	}
	if o.w != nil {
		o.size = writeSize(o.w)
	}
	db.mu.RLock()
	defer db.mu.RUnlock()
	if db.closed {
		return ErrClosed
	}
	select {
	case db.queue <- o:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("store: commit: %w", ctx.Err())
	}
}

// groupMin is the batch size from which the writer commits without
// waiting out its group-commit window.
const groupMin = 8

// run is the writer goroutine: it takes whatever is queued (at least one
// Write, at most maxBatch Writes or about maxBytes), applies the batch in
// one transaction, reports, and repeats until the queue is closed and
// drained.
func (db *DB) run() {
	defer close(db.stopped)
	batch := make([]*op, 0, db.maxBatch)
	var next *op // received while filling a batch, for the next round
	for {
		o := next
		next = nil
		if o == nil {
			var ok bool
			if o, ok = <-db.queue; !ok {
				return
			}
		}
		if o.fn != nil {
			db.runFn(o)
			continue
		}
		batch = append(batch[:0], o)
		size := o.size
		// The group-commit window (DECISIONS.md 0012): a batch smaller
		// than groupMin waits for more Writes until window after its first
		// was taken, so that a slow stream of events (a few thousand a
		// second from several turns) shares its commits — and their
		// fsyncs — instead of paying one each. A busy queue fills the
		// batch without waiting.
		var timer <-chan time.Time
		deadline := time.Now().Add(db.window)
	fill:
		for len(batch) < db.maxBatch && size < db.maxBytes {
			select {
			case o, ok := <-db.queue:
				if !ok {
					break fill // run returns at the next receive
				}
				if o.fn != nil {
					next = o
					break fill
				}
				batch = append(batch, o)
				size += o.size
				continue
			default:
			}
			if db.window <= 0 || len(batch) >= groupMin || batch[0].w.Copies {
				break
			}
			if timer == nil {
				d := time.Until(deadline)
				if d <= 0 {
					break
				}
				db.windowTimer.Reset(d)
				timer = db.windowTimer.C
			}
			select {
			case o, ok := <-db.queue:
				if !ok {
					break fill
				}
				if o.fn != nil {
					next = o
					break fill
				}
				batch = append(batch, o)
				size += o.size
			case <-timer:
				timer = nil
				break fill
			}
		}
		if timer != nil {
			db.windowTimer.Stop() // Go ≥ 1.23: no stale tick is received after Stop
		}
		if db.batchHook != nil {
			db.batchHook(len(batch))
		}
		coalesce(batch)
		db.commitBatch(batch)
		if db.afterBatch != nil {
			db.afterBatch()
		}
		joinedErrs(batch)
		db.committed()
		if deletes(batch) {
			// Deleted text leaves the files before the deletion is
			// reported, not at some later checkpoint (docs/SECURITY.md
			// "Secrets at rest").
			if _, err := db.compact(context.Background()); err != nil {
				db.log.Warn("compacting after a deletion failed", "err", err)
			}
		}
		for _, o := range batch {
			if o.done != nil {
				o.done(o.w, o.err)
			}
		}
		clear(batch)
	}
}

// commitBatch applies each Write of batch inside its own savepoint of one
// transaction and commits. A Write that fails is rolled back alone and
// keeps its error; if the transaction as a whole fails (BEGIN, a savepoint
// SQLite can no longer roll back to, COMMIT), it is rolled back and every
// Write of the batch fails with an INTERNAL error. A failed Write's events
// get Seq 0 back.
//
// A Write of a single modifying statement (the hot path: one event) skips
// the savepoint: SQLite already makes one statement atomic. If it fails
// with an error that leaves the transaction intact (refused before any
// change, or a constraint violation) it fails alone; on any other error
// the transaction may be gone, and the batch is aborted.
func (db *DB) commitBatch(batch []*op) {
	ctx := context.Background() // never interrupted: a half-written batch is not an option
	st := db.st
	if err := db.syncFor(ctx, batch); err != nil {
		db.failBatch(batch, "synchronous", err)
		return
	}
	if _, err := st.begin.ExecContext(ctx); err != nil {
		db.failBatch(batch, "begin", err)
		return
	}
	clear(db.clients)
	for _, o := range batch {
		if c := o.w.Chain; c != nil && c.Broken() {
			o.err = hub.ErrChainBroken // nothing of it applied
			continue
		}
		savepoint := modifications(o.w) > 1
		if savepoint {
			if _, err := st.savepoint.ExecContext(ctx); err != nil {
				db.abortBatch(ctx, batch, "savepoint", err)
				return
			}
		}
		if err := db.apply(ctx, o.w); err != nil {
			o.err = err
			if diskFull(err) {
				o.err = DiskFullError("write", err)
			}
			resetSeqs(o.w)
			db.ix.reset()
			db.ranges.reset()
			clear(db.clients)
			if o.w.Chain != nil {
				o.w.Chain.Break()
			}
			db.log.Debug("write refused", "err", err)
			if !savepoint && !statementLevel(err) {
				db.abortBatch(ctx, batch, "write", err)
				return
			}
			if savepoint {
				if _, err := st.rollbackTo.ExecContext(ctx); err != nil {
					db.abortBatch(ctx, batch, "rollback to savepoint", err)
					return
				}
			}
		}
		if savepoint {
			if _, err := st.release.ExecContext(ctx); err != nil {
				db.abortBatch(ctx, batch, "release savepoint", err)
				return
			}
		}
	}
	if _, err := st.commit.ExecContext(ctx); err != nil {
		db.abortBatch(ctx, batch, "commit", err)
	}
}

// modifications counts the statements that apply(w) runs to change rows.
func modifications(w *hub.Write) int {
	n := len(w.Threads) + len(w.Turns) + len(w.Permissions) + len(w.Events) + len(w.AgentProcs) + len(w.ForgetProcs) + len(w.SessionStates) +
		2*len(w.Usage) + len(w.Overrides)
	for i := range w.ThreadChanges {
		n++
		if w.ThreadChanges[i].Announce {
			n++
		}
	}
	n += len(w.Rules) + len(w.DeleteRules) + len(w.Elicitations) + len(w.Dequeue) + len(w.Queued)
	if w.AnswerElicitation != nil {
		n++
	}
	if w.Decide != nil {
		n++
	}
	if w.Escalate != nil {
		n++
	}
	return n
}

// statementLevel reports whether err, from a single statement, left the
// transaction as it was: a *hub.Error (the Write was refused before it
// changed anything: validation, a decision's CONFLICT or NOT_FOUND) or a
// constraint violation (SQLite rolls back that statement only).
func statementLevel(err error) bool {
	var herr *hub.Error
	var serr *sqlite.Error
	switch {
	case errors.As(err, &herr):
		return true
	case errors.As(err, &serr):
		return serr.Code()&0xff == sqliteConstraint
	}
	return false
}

// sqliteConstraint is SQLITE_CONSTRAINT, the primary result code of every
// constraint violation.
const sqliteConstraint = 19

// abortBatch rolls the open transaction back (a failed COMMIT can leave it
// open) and fails the batch.
func (db *DB) abortBatch(ctx context.Context, batch []*op, stage string, err error) {
	if _, rerr := db.st.rollback.ExecContext(ctx); rerr != nil {
		db.log.Debug("rollback after failure", "err", rerr) // usually: SQLite already rolled back
	}
	db.failBatch(batch, stage, err)
}

// failBatch gives every Write of batch that has no error of its own an
// INTERNAL error for err, and takes back the Seqs it was given.
func (db *DB) failBatch(batch []*op, stage string, err error) {
	db.log.Error("batch failed", "stage", stage, "writes", len(batch), "err", err)
	db.ix.reset()
	db.ranges.reset()
	clear(db.clients)
	herr := &hub.Error{Code: hub.CodeInternal, Message: "store: " + stage + " failed", Err: err}
	if diskFull(err) {
		herr = DiskFullError(stage, err)
	}
	for _, o := range batch {
		resetSeqs(o.w)
		if o.err == nil {
			o.err = herr
		}
		if o.w.Chain != nil {
			o.w.Chain.Break()
		}
	}
}

// syncFor sets the writer's synchronous mode for batch: NORMAL when every
// Write of it is Copies (its commit does not sync the WAL; ADR 0055),
// FULL otherwise (every commit synced).
func (db *DB) syncFor(ctx context.Context, batch []*op) error {
	copies := true
	for _, o := range batch {
		copies = copies && o.w.Copies
	}
	return db.setSync(ctx, copies)
}

// setSync sets the writer connection's synchronous mode: NORMAL when
// relaxed, else FULL. It runs the pragma only when the mode differs from
// the last one set; after an error the mode is unknown, and the next call
// sets it again. On the writer goroutine (or before it runs) only.
func (db *DB) setSync(ctx context.Context, relaxed bool) error {
	if db.relaxed != nil && *db.relaxed == relaxed {
		return nil
	}
	db.relaxed = nil
	// Not a prepared statement: SQLite applies a PRAGMA's setting when it
	// compiles it, so running a prepared one again changes nothing.
	mode := "FULL"
	if relaxed {
		mode = "NORMAL"
	}
	if _, err := db.conn.ExecContext(ctx, "PRAGMA synchronous="+mode); err != nil {
		return fmt.Errorf("store: synchronous: %w", err)
	}
	db.relaxed = &relaxed
	return nil
}

func resetSeqs(w *hub.Write) {
	for i := range w.Events {
		w.Events[i].Seq = 0
	}
}

// writeSize estimates the bytes w adds to a batch.
func writeSize(w *hub.Write) int {
	n := 64 * (1 + len(w.AgentProcs) + len(w.ForgetProcs))
	for i := range w.Threads {
		t := &w.Threads[i]
		n += 128 + len(t.Title) + len(t.Cwd) + len(t.Summary)
	}
	for i := range w.ThreadChanges {
		c := &w.ThreadChanges[i]
		n += 128 + len(derefStr(c.Title)) + len(derefStr(c.Summary))
		if c.Announce {
			n += 512 // the event: the thread, modes and options included
		}
	}
	for i := range w.SessionStates {
		st := &w.SessionStates[i]
		n += 64 + len(st.Modes) + len(st.ConfigOptions) + len(st.AvailableCommands)
	}
	for i := range w.Turns {
		t := &w.Turns[i]
		n += 128 + len(t.Input) + len(t.Content) + len(t.Output) + len(t.Error)
	}
	for i := range w.Permissions {
		n += 128 + len(w.Permissions[i].ToolCall) + 64*len(w.Permissions[i].Options)
	}
	for i := range w.Events {
		n += 64 + len(w.Events[i].Payload)
	}
	for i := range w.Elicitations {
		n += 512 + len(w.Elicitations[i].Message) + len(w.Elicitations[i].URL)
	}
	for i := range w.Queued {
		n += 128 + len(w.Queued[i].Input) + 64*len(w.Queued[i].Content)
	}
	n += 4096*len(w.DeleteThreads) + 128*(len(w.Usage)+len(w.Overrides)+len(w.Dequeue))
	return n
}

func derefStr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// sqliteFull is SQLITE_FULL, the primary result code of a write the disk
// had no room for.
const sqliteFull = 13

// diskFull reports whether err says the data dir's disk is full.
func diskFull(err error) bool {
	var serr *sqlite.Error
	return errors.Is(err, syscall.ENOSPC) || errors.As(err, &serr) && serr.Code()&0xff == sqliteFull
}

// DiskFullError is the store's error for a write that failed at stage
// because the disk is full (err the cause): INTERNAL, details.reason
// hub.ReasonDiskFull, hub.ErrDiskFull in its chain.
func DiskFullError(stage string, err error) *hub.Error {
	return &hub.Error{Code: hub.CodeInternal, Message: "store: " + stage + " failed: the data dir's disk is full",
		Details: map[string]any{"reason": hub.ReasonDiskFull}, Err: fmt.Errorf("%w: %w", hub.ErrDiskFull, err)}
}
