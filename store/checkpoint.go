package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// The WAL is checkpointed off the writer (DECISIONS.md 0012). SQLite's
// automatic checkpoint runs inside the COMMIT that crosses 1000 WAL pages,
// on the committing connection: it copies the pages into the database file
// and fsyncs it, and every event waiting behind that commit waits for it
// (tens of milliseconds, the tail of a stream's latency). So the writer's
// connection has wal_autocheckpoint(0), and a checkpointer goroutine on a
// connection of its own runs PRAGMA wal_checkpoint(PASSIVE) after commits,
// at most every checkpointEvery: PASSIVE takes no lock the writer waits
// for, so the writer goes on committing while pages are copied.
//
// A passive checkpoint that runs while the writer keeps appending cannot
// let the log restart from its beginning, so under a load that never
// pauses the WAL would grow without bound. When it holds more than
// walHighFrames frames after a checkpoint, the checkpointer asks the
// writer to run one itself between two batches (as autocheckpoint did,
// once per walHighFrames instead of once per 1000 pages), after which the
// next commit restarts the log. Durability is unchanged: a commit is
// durable once its WAL frames are synced (synchronous=FULL); checkpoints
// only move committed pages into the database file.
const (
	checkpointEvery = 200 * time.Millisecond
	walHighFrames   = 4 << 10 // 16 MiB of 4 KiB pages
)

type checkpointer struct {
	db   *sql.DB       // one connection, beside the writer's
	kick chan struct{} // a commit happened (capacity 1, never blocks the writer)
	stop chan struct{}
	done chan struct{}
}

// startCheckpointer opens the checkpointer's connection and starts it.
func (db *DB) startCheckpointer() error {
	cdb, err := sql.Open("sqlite", dsn(db.path, checkpointParams))
	if err != nil {
		return fmt.Errorf("store: open checkpointer: %w", err)
	}
	cdb.SetMaxOpenConns(1)
	cdb.SetMaxIdleConns(1)
	if err := cdb.PingContext(context.Background()); err != nil {
		cdb.Close()
		return fmt.Errorf("store: open checkpointer: %w", err)
	}
	db.ckpt = &checkpointer{db: cdb, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go db.checkpointLoop(db.ckpt)
	return nil
}

// committed tells the checkpointer that the writer committed; called by
// the writer goroutine after each batch.
func (db *DB) committed() {
	if db.ckpt == nil {
		return
	}
	select {
	case db.ckpt.kick <- struct{}{}:
	default:
	}
}

func (db *DB) checkpointLoop(c *checkpointer) {
	defer close(c.done)
	for {
		select {
		case <-c.kick:
		case <-c.stop:
			return
		}
		var busy, frames, done int64
		err := c.db.QueryRowContext(context.Background(), "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &done)
		switch {
		case err != nil:
			db.log.Warn("checkpoint failed", "err", err)
		case frames > walHighFrames:
			// The log did not get a chance to restart: the writer
			// checkpoints between two batches; nobody waits for it.
			db.log.Debug("WAL past its bound: the writer checkpoints", "frames", frames)
			o := &op{fn: func(ctx context.Context) error {
				_, err := db.conn.ExecContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)")
				return err
			}}
			if err := db.enqueue(context.Background(), o); err != nil {
				return // closed
			}
		}
		select {
		case <-time.After(checkpointEvery):
		case <-c.stop:
			return
		}
	}
}

// stopCheckpointer stops the goroutine and closes its connection; the
// writer must have stopped (nothing kicks it any more).
func (db *DB) stopCheckpointer() error {
	if db.ckpt == nil {
		return nil
	}
	close(db.ckpt.stop)
	<-db.ckpt.done
	return db.ckpt.db.Close()
}
