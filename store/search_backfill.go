package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// Indexing what was stored before the index existed (or while search was
// off), and repairing what a stop left half-indexed.
//
// openSearch runs in Open before the writer starts. With search off it
// marks the index stale (backfill_below -1): the next Open with search on
// empties it and indexes everything again. With search on, the events
// this run stores (seq >= liveFrom) are indexed as they are stored, and a
// goroutine (backfill) does the rest in the background, in steps of a few
// thousand events, each a transaction on the writer goroutine between
// batches: first the documents a previous run left streaming (it stopped
// mid-message, so their text may lack its last part; no message goes on
// across a restart, since a restart ends every turn) are rebuilt from
// their events below liveFrom; then the threads of events below
// backfill_below are indexed, in rowid order, the progress (next_thread)
// committed with each step, so that a restarted hub resumes where it
// stopped. Until both are done, Search answers Indexing.

// backfillStepEvents bounds the events one backfill step indexes (a
// thread is never split: one larger than this is a step of its own).
const backfillStepEvents = 5000

// backfillLogEvery spaces the backfill's progress lines.
const backfillLogEvery = 5 * time.Second

// IndexingDone reports whether the background indexing of older events
// has finished (hub.SearchPage.Indexing is its negation).
func (db *DB) IndexingDone() bool { return !db.indexing.Load() }

// openSearch prepares the index on the writer's connection (before the
// writer goroutine runs) and reports whether background work is due.
func (db *DB) openSearch(ctx context.Context) (background bool, err error) {
	db.ix = newIndexer(&db.st.search)
	if db.maint {
		return false, nil
	}
	var below int64
	if err := db.conn.QueryRowContext(ctx, `SELECT backfill_below FROM search_state WHERE id = 1`).Scan(&below); err != nil {
		return false, fmt.Errorf("store: search state: %w", err)
	}
	if !db.searchOn {
		if below != -1 {
			if _, err := db.conn.ExecContext(ctx, `UPDATE search_state SET backfill_below = -1, next_thread = 0`); err != nil {
				return false, fmt.Errorf("store: search state: %w", err)
			}
			db.log.Info("search is off: its index will be rebuilt when it is turned on")
		}
		return false, nil
	}
	if below == -1 {
		if err := db.inTx(ctx, db.emptyIndex); err != nil {
			return false, err
		}
		below = 1 // anything but 0
	}
	if err := db.conn.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) + 1 FROM events`).Scan(&db.liveFrom); err != nil {
		return false, fmt.Errorf("store: search state: %w", err)
	}
	var streaming bool
	if err := db.conn.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM search_docs WHERE streaming = 1)`).Scan(&streaming); err != nil {
		return false, fmt.Errorf("store: search state: %w", err)
	}
	background = below != 0 || streaming
	db.indexing.Store(background)
	return background, nil
}

// emptyIndex drops every document and schedules a backfill of the whole
// log. FTS5's secure-delete is off for the bulk delete (it would rewrite
// each term's segments per row); the rebuild then writes an empty index
// and SQLite's secure_delete zeroes the freed pages.
func (db *DB) emptyIndex(ctx context.Context) error {
	for _, q := range []string{
		`DELETE FROM search_docs`,
		`INSERT INTO search_fts (search_fts, rank) VALUES ('secure-delete', 0)`,
		`DELETE FROM search_fts`,
		`INSERT INTO search_fts (search_fts) VALUES ('rebuild')`,
		`INSERT INTO search_fts (search_fts, rank) VALUES ('secure-delete', 1)`,
		`UPDATE search_state SET backfill_below = (SELECT COALESCE(MAX(seq), 0) + 1 FROM events), next_thread = 0`,
	} {
		if _, err := db.conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("store: empty search index: %w", err)
		}
	}
	db.log.Info("search index emptied: rebuilding it from the event log")
	return nil
}

// recoverStep rebuilds, from their events below liveFrom, the documents
// of a few threads a previous run left streaming (and the later documents
// of those threads); done when none is left.
func (db *DB) recoverStep(ctx context.Context) (threads int, done bool, err error) {
	rows, err := db.conn.QueryContext(ctx, `SELECT thread_id, MIN(seq) FROM search_docs
		WHERE streaming = 1 AND seq < ? GROUP BY thread_id LIMIT 50`, db.liveFrom)
	if err != nil {
		return 0, false, fmt.Errorf("store: search recovery: %w", err)
	}
	type start struct {
		id  string
		seq int64
	}
	var todo []start
	for rows.Next() {
		var s start
		if err := rows.Scan(&s.id, &s.seq); err != nil {
			rows.Close()
			return 0, false, fmt.Errorf("store: search recovery: %w", err)
		}
		todo = append(todo, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, false, fmt.Errorf("store: search recovery: %w", err)
	}
	for _, s := range todo {
		if _, err := db.reindexThread(ctx, s.id, s.seq, db.liveFrom); err != nil {
			return 0, false, err
		}
	}
	return len(todo), len(todo) == 0, nil
}

// reindexThread indexes a thread's events with from <= seq < below (below
// 0: no bound), in place of the documents that start there, and returns
// how many events it read.
func (db *DB) reindexThread(ctx context.Context, threadID string, from, below int64) (int, error) {
	ix := newIndexer(&db.st.search)
	if below <= 0 {
		below = 1 << 62
	}
	// What starts in the range is rebuilt whole: a document the events do
	// not make again (a message the writer split after a failed write)
	// must not stay behind, still marked streaming.
	for _, q := range []string{
		`DELETE FROM search_fts WHERE rowid IN (SELECT seq FROM search_docs WHERE thread_id = ?1 AND seq >= ?2 AND seq < ?3)`,
		`DELETE FROM search_docs WHERE thread_id = ?1 AND seq >= ?2 AND seq < ?3`,
	} {
		if _, err := db.conn.ExecContext(ctx, q, threadID, from, below); err != nil {
			return 0, fmt.Errorf("store: index thread %s: %w", threadID, err)
		}
	}
	n := 0
	for {
		evs, err := db.threadEventsOnWriter(ctx, threadID, from, below, 2000)
		if err != nil {
			return n, err
		}
		for i := range evs {
			if err := ix.event(ctx, &evs[i]); err != nil {
				return n, err
			}
		}
		n += len(evs)
		if len(evs) < 2000 {
			break
		}
		from = evs[len(evs)-1].Seq + 1
	}
	return n, ix.finishAll(ctx)
}

// threadEventsOnWriter reads up to limit of a thread's events with from
// <= seq < below on the writer's connection (inside its transaction).
func (db *DB) threadEventsOnWriter(ctx context.Context, threadID string, from, below int64, limit int) ([]hub.Event, error) {
	rows, err := db.conn.QueryContext(ctx, `SELECT seq, type, turn_id, client_id, at, payload FROM events
		WHERE thread_id = ? AND seq >= ? AND seq < ? ORDER BY seq LIMIT ?`, threadID, from, below, limit)
	if err != nil {
		return nil, fmt.Errorf("store: index thread %s: %w", threadID, err)
	}
	defer rows.Close()
	var evs []hub.Event
	for rows.Next() {
		e := hub.Event{ThreadID: threadID}
		var at int64
		var payload []byte
		if err := rows.Scan(&e.Seq, &e.Type, &e.TurnID, &e.ClientID, &at, &payload); err != nil {
			return nil, fmt.Errorf("store: index thread %s: %w", threadID, err)
		}
		e.At, e.Payload = decTime(at), decJSON(payload)
		evs = append(evs, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: index thread %s: %w", threadID, err)
	}
	return evs, nil
}

// inTx runs fn in one transaction on the writer's connection (before the
// writer goroutine runs, or on it).
func (db *DB) inTx(ctx context.Context, fn func(context.Context) error) error {
	if _, err := db.st.begin.ExecContext(ctx); err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	if err := fn(ctx); err != nil {
		_, _ = db.st.rollback.ExecContext(ctx)
		return err
	}
	if _, err := db.st.commit.ExecContext(ctx); err != nil {
		_, _ = db.st.rollback.ExecContext(ctx)
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

// backfill does the index's background work in steps on the writer
// goroutine until none is left or the DB closes.
func (db *DB) backfill() {
	ctx := context.Background()
	start := time.Now()
	step := func(name string, fn func(context.Context) (int, bool, error)) bool {
		var total int
		lastLog := time.Now()
		for {
			var n int
			var done bool
			err := db.onWriter(ctx, func(ctx context.Context) error {
				return db.inTx(ctx, func(ctx context.Context) error {
					var err error
					n, done, err = fn(ctx)
					return err
				})
			})
			if errors.Is(err, ErrClosed) {
				db.log.Info("search index: background indexing paused until the next start", "step", name)
				return false
			}
			if err != nil {
				db.log.Warn("search index: background indexing stopped", "step", name, "err", err)
				return false
			}
			total += n
			if done {
				if total > 0 {
					db.log.Info("search index: "+name+" done", "threads", total)
				}
				return true
			}
			if time.Since(lastLog) >= backfillLogEvery {
				lastLog = time.Now()
				db.log.Info("search index: "+name, "threadsDone", total)
			}
		}
	}
	if !step("rebuilding messages cut short by the last stop", db.recoverStep) {
		return
	}
	var threads int64
	_ = db.rdb.QueryRowContext(ctx, `SELECT COUNT(*) FROM threads WHERE deleted = 0`).Scan(&threads)
	db.log.Info("search index: indexing older history in the background", "threads", threads)
	if !step("indexing older history", db.backfillStep) {
		return
	}
	db.indexing.Store(false)
	db.log.Info("search index: up to date", "took", time.Since(start).Round(time.Millisecond))
}

// backfillStep indexes the next threads, up to about backfillStepEvents
// events, and commits its progress with them.
func (db *DB) backfillStep(ctx context.Context) (threads int, finished bool, err error) {
	var below, next int64
	if err := db.conn.QueryRowContext(ctx, `SELECT backfill_below, next_thread FROM search_state WHERE id = 1`).Scan(&below, &next); err != nil {
		return 0, false, fmt.Errorf("store: search state: %w", err)
	}
	if below <= 0 {
		return 0, true, nil
	}
	events := 0
	for events < backfillStepEvents {
		var rowid int64
		var id string
		err := db.conn.QueryRowContext(ctx, `SELECT rowid, id FROM threads WHERE rowid > ? AND deleted = 0 ORDER BY rowid LIMIT 1`, next).Scan(&rowid, &id)
		if err == sql.ErrNoRows {
			_, err := db.conn.ExecContext(ctx, `UPDATE search_state SET backfill_below = 0, next_thread = 0`)
			return threads, err == nil, err
		}
		if err != nil {
			return threads, false, fmt.Errorf("store: search backfill: %w", err)
		}
		n, err := db.reindexThread(ctx, id, 0, below)
		if err != nil {
			return threads, false, err
		}
		events += n
		threads++
		next = rowid
	}
	if _, err := db.conn.ExecContext(ctx, `UPDATE search_state SET next_thread = ?`, next); err != nil {
		return threads, false, fmt.Errorf("store: search state: %w", err)
	}
	return threads, false, nil
}
