package store

import (
	"context"
	"fmt"
	"time"
)

// CompactResult says what Compact did.
type CompactResult struct {
	// FreePages is the number of free pages left in the database file
	// (0 once an incremental or full vacuum returned them to the OS).
	FreePages int64
	// WALBusy is true when a reader held an old snapshot, so that the WAL
	// could not be checkpointed and truncated in full.
	WALBusy bool
}

// Compact moves what the WAL holds into the database file and truncates
// the WAL to zero bytes, and returns free pages to the OS (an incremental
// vacuum: databases created by this version are in auto_vacuum=INCREMENTAL
// mode; older ones keep their free pages, zeroed, until Vacuum). It runs
// on the writer goroutine between batches, so it is safe while the hub
// runs; it holds up writes for its duration (milliseconds for a WAL of a
// few MB). The writer compacts by itself after every batch that deletes a
// thread.
func (db *DB) Compact(ctx context.Context) (CompactResult, error) {
	var res CompactResult
	err := db.onWriter(ctx, func(ctx context.Context) error {
		var err error
		res, err = db.compact(ctx)
		return err
	})
	return res, err
}

// Vacuum rebuilds the database file (VACUUM), switching it to
// auto_vacuum=INCREMENTAL, then compacts. It rewrites the whole file and
// blocks every other writer meanwhile: for a hub that is not running
// (`switchboard db compact` checks).
func (db *DB) Vacuum(ctx context.Context) (CompactResult, error) {
	var res CompactResult
	err := db.onWriter(ctx, func(ctx context.Context) error {
		for _, q := range []string{"PRAGMA auto_vacuum = INCREMENTAL", "VACUUM"} {
			if _, err := db.conn.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("store: vacuum: %s: %w", q, err)
			}
		}
		var err error
		res, err = db.compact(ctx)
		return err
	})
	return res, err
}

// compactBusyWait bounds how long compact tries again a checkpoint that
// another connection's made busy; compactBusyPause is the pause between.
const (
	compactBusyWait  = time.Second
	compactBusyPause = 5 * time.Millisecond
)

// compact runs on the writer goroutine (or before it starts).
func (db *DB) compact(ctx context.Context) (CompactResult, error) {
	var res CompactResult
	if _, err := db.conn.ExecContext(ctx, "PRAGMA incremental_vacuum"); err != nil {
		return res, fmt.Errorf("store: incremental vacuum: %w", err)
	}
	// A passive checkpoint the checkpointer's connection runs at that
	// moment (checkpoint.go) makes TRUNCATE answer busy at once: SQLite
	// does not wait for the checkpoint lock. It is tried again, a few
	// milliseconds apart, for up to compactBusyWait, so that deleted text
	// leaves the WAL before a deletion is reported (a reader that stays
	// longer still leaves it busy: WALBusy says so).
	var busy, logFrames, checkpointed int64
	for start := time.Now(); ; {
		if err := db.conn.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logFrames, &checkpointed); err != nil {
			return res, fmt.Errorf("store: checkpoint: %w", err)
		}
		if busy == 0 || time.Since(start) >= compactBusyWait {
			break
		}
		time.Sleep(compactBusyPause)
	}
	res.WALBusy = busy != 0
	if err := db.conn.QueryRowContext(ctx, "PRAGMA freelist_count").Scan(&res.FreePages); err != nil {
		return res, fmt.Errorf("store: freelist: %w", err)
	}
	return res, nil
}

// onWriter runs fn on the writer goroutine, between batches, and waits
// for it; like Commit, once queued fn runs even if ctx ends.
func (db *DB) onWriter(ctx context.Context, fn func(context.Context) error) error {
	return db.await(ctx, &op{fn: fn}, "store")
}

// runFn runs a function op on the writer goroutine.
func (db *DB) runFn(o *op) {
	err := db.setSync(context.Background(), false) // what fn commits is synced
	if err == nil {
		err = o.fn(context.Background())
	}
	if o.done != nil {
		o.done(nil, err)
	}
}
