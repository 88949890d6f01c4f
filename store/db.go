// Package store implements hub.Store on SQLite (modernc.org/sqlite, no cgo).
//
// One *DB owns two database/sql pools on the same file:
//
//   - the writer: one connection (MaxOpenConns 1), held for the DB's
//     lifetime by a single writer goroutine that applies every Write with
//     group commit (writeloop.go) through the statements prepared on that
//     connection (writestmts.go). Nothing else writes.
//   - the read pool: a few query_only connections that serve every read
//     through prepared statements cached by query text (read.go). WAL
//     mode lets them read the last commit while the writer writes; a
//     Write is visible to reads once its Commit returned or its
//     CommitAsync callback ran.
//   - the search pool: query_only connections of their own for Search
//     (search.go), so that slow full-text queries, however many, never
//     take a connection from history, events and the rest.
//
// The reads and writes of each noun are in its file (threads.go, turns.go,
// permissions.go, events.go, procs.go); writestmts.go prepares the
// writer's statements and applies a Write's parts in order; delete.go
// deletes a thread's text and compact.go moves it out of the files
// (checkpoint, vacuum).
//
// PRAGMAs are set in the DSNs, never with Exec: a cancelled query can make
// database/sql discard its connection, and a fresh one gets its settings
// from the DSN again. The schema is in migrations/ (migrate.go); how times
// and JSON are stored is in codec.go.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-hub/switchboard/hub"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

var _ hub.Store = (*DB)(nil)

// ErrClosed is returned by Commit (and passed to CommitAsync's done) after
// Close.
var ErrClosed = errors.New("store: closed")

// Default sizes; see Options.
const (
	DefaultQueueSize     = 4096
	DefaultMaxBatch      = 500
	DefaultMaxBatchBytes = 4 << 20
	DefaultReadConns     = 4
	DefaultSearchConns   = 2
	DefaultGroupWindow   = time.Millisecond
)

// The DSN parameters. writeParams is the one docs/ARCHITECTURE.md pins ("Pinned facts"), plus
// auto_vacuum=INCREMENTAL (takes effect for a database it creates; Vacuum
// converts an older one) and secure_delete, so that deleted text is
// overwritten with zeros instead of lingering in free space
// (hub.Write.DeleteThreads, compact.go); the read pool adds query_only so
// that a read connection can never write.
const (
	writeParams = "_pragma=auto_vacuum(2)&_pragma=secure_delete(1)&_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=foreign_keys(1)&_txlock=immediate"
	readParams  = "_pragma=busy_timeout(10000)&_pragma=query_only(1)"
	// The writer of a running hub never checkpoints inside a commit: the
	// checkpointer does, on its own connection (checkpoint.go).
	noAutoCheckpoint = "&_pragma=wal_autocheckpoint(0)"
	checkpointParams = "_pragma=busy_timeout(10000)&_pragma=wal_autocheckpoint(0)"
)

// Options configure Open. Zero values select the defaults.
type Options struct {
	Logger *slog.Logger
	// QueueSize bounds the writer's queue, in Writes (default 4096). A full
	// queue blocks CommitAsync and Commit: backpressure.
	QueueSize int
	// MaxBatch and MaxBatchBytes bound one group commit (defaults 500
	// Writes, 4 MiB of estimated row data). A single Write is never split.
	MaxBatch      int
	MaxBatchBytes int
	// GroupWindow is how long the writer may wait, after taking a Write
	// from an otherwise empty queue, for more Writes to commit with it
	// (default DefaultGroupWindow; negative: never wait). Nothing is
	// visible or published before its commit, so it only delays.
	GroupWindow time.Duration
	// ReadConns is the size of the read pool (default 4).
	ReadConns int
	// SearchConns is the size of the search pool (default 2): at most
	// that many searches run at once, the others wait (within their
	// context's deadline) without touching the read pool.
	SearchConns int
	// SearchOff stops indexing for search (config search.enabled false):
	// Search still answers from what the index holds, and the next Open
	// with search on rebuilds the index in the background.
	SearchOff bool
	// Maintenance opens the database for a one-off job beside (or instead
	// of) a running hub (`switchboard db compact`): it writes nothing of
	// its own — no search indexing, no change to the index's state, no
	// background work — but what it is asked to.
	Maintenance bool
}

// DB is the SQLite hub.Store. Its methods are safe for concurrent use,
// except that CommitAsync callbacks must not call it (they run on the
// writer goroutine).
type DB struct {
	path string
	log  *slog.Logger

	wdb  *sql.DB   // the writer's pool: one connection
	conn *sql.Conn // that connection; owned by the writer goroutine after Open
	st   *stmts    // prepared on conn; used only by the writer goroutine
	rdb  *sql.DB   // the read pool
	sdb  *sql.DB   // the search pool (Search only)
	// rstmts caches the read pool's prepared statements by query text.
	rstmts sync.Map

	maxBatch, maxBytes int
	// window is the group-commit window (Options.GroupWindow);
	// windowTimer, the writer's timer for it.
	window      time.Duration
	windowTimer *time.Timer

	// mu guards closed and the send side of queue: senders hold it shared
	// while sending, Close holds it exclusively to close the queue.
	mu      sync.RWMutex
	closed  bool
	queue   chan *op
	stopped chan struct{} // closed when the writer goroutine has returned

	// searchOn: index events for search (search_index.go); ix, the
	// writer's indexer, is owned by the writer goroutine; indexing is set
	// while the background backfill runs (search_backfill.go).
	searchOn bool
	ix       *indexer
	// logID is the event log's identity (LogID), read once at Open.
	logID string
	// ranges, the running turns' ranges (turnrange.go), is owned by the
	// writer goroutine.
	ranges *turnRanges
	// relaxed is the writer connection's synchronous mode (setSync):
	// NORMAL when true, FULL when false, unknown when nil (FULL is the
	// connection's own, from writeParams). Owned by the writer goroutine.
	relaxed *bool
	// clients caches, for one batch, the owner of each thread whose event
	// was stored without a ClientID (insertEvent). Cleared at each batch,
	// after a refused Write and whenever a Write changes threads.
	clients  map[string]string
	indexing atomic.Bool
	// ckpt checkpoints the WAL beside the writer (nil in maintenance).
	ckpt     *checkpointer
	liveFrom int64 // the first seq this run indexes as it stores it
	maint    bool  // Options.Maintenance
	marks    snippetMarks

	// batchHook, when set (tests only, before the first Write), is called
	// on the writer goroutine with the size of each batch before it is
	// applied.
	batchHook func(n int)
	// afterBatch, when set (tests only, before the first Write), is
	// called on the writer goroutine after each batch's commit.
	afterBatch func()

	closeOnce sync.Once
	closeErr  error
}

// Open opens (creating if needed) the database at path, applies pending
// migrations, and starts the writer goroutine. A database whose schema is
// newer than this build knows is refused with an error wrapping
// ErrSchemaTooNew.
//
// File modes do not depend on the umask: folders Open creates are chmod'ed
// to 0700 (existing ones are left as they are); the database file is
// created 0600 and chmod'ed to 0600 on every Open; SQLite creates the -wal
// and -shm files with the database file's mode, and Open chmods them to
// 0600 as well once they exist.
func Open(path string, opts Options) (*DB, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if stmtJournalErr != nil {
		log.Warn("a Write's savepoint journal spills to a temporary file past 64 KiB", "err", stmtJournalErr)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("store: open: %w", err)
	}
	if err := prepareFiles(abs); err != nil {
		return nil, err
	}
	db := &DB{
		path:     abs,
		log:      log,
		maxBatch: orDefault(opts.MaxBatch, DefaultMaxBatch),
		maxBytes: orDefault(opts.MaxBatchBytes, DefaultMaxBatchBytes),
		window:   opts.GroupWindow,
		queue:    make(chan *op, orDefault(opts.QueueSize, DefaultQueueSize)),
		stopped:  make(chan struct{}),
		searchOn: !opts.SearchOff && !opts.Maintenance,
		maint:    opts.Maintenance,
		marks:    newSnippetMarks(),
		clients:  map[string]string{},
	}
	if db.window == 0 {
		db.window = DefaultGroupWindow
	}
	db.windowTimer = time.NewTimer(time.Hour)
	db.windowTimer.Stop()
	backfill, err := db.open(orDefault(opts.ReadConns, DefaultReadConns), orDefault(opts.SearchConns, DefaultSearchConns))
	if err != nil {
		db.closeDBs()
		return nil, err
	}
	if !db.maint {
		if err := db.startCheckpointer(); err != nil {
			db.closeDBs()
			return nil, err
		}
	}
	go db.run()
	if backfill {
		go db.backfill()
	}
	return db, nil
}

func (db *DB) open(readConns, searchConns int) (backfill bool, err error) {
	ctx := context.Background()
	params := writeParams
	if !db.maint {
		params += noAutoCheckpoint
	}
	db.wdb, err = sql.Open("sqlite", dsn(db.path, params))
	if err != nil {
		return false, fmt.Errorf("store: open: %w", err)
	}
	db.wdb.SetMaxOpenConns(1)
	db.wdb.SetMaxIdleConns(1)
	if db.conn, err = db.wdb.Conn(ctx); err != nil {
		return false, fmt.Errorf("store: open: %w", err)
	}
	version, err := migrate(ctx, db.conn, migrations, db.log)
	if err != nil {
		return false, err
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := os.Chmod(db.path+suffix, 0o600); err != nil && !errors.Is(err, os.ErrNotExist) {
			return false, fmt.Errorf("store: open: %w", err)
		}
	}
	if err := db.conn.QueryRowContext(ctx, `SELECT value FROM hub_meta WHERE key = 'log_id'`).Scan(&db.logID); err != nil {
		return false, fmt.Errorf("store: open: the log's id: %w", err)
	}
	if db.st, err = prepareStmts(ctx, db.conn); err != nil {
		return false, err
	}
	db.ranges = newTurnRanges(&db.st.turnRange)
	if backfill, err = db.openSearch(ctx); err != nil {
		return false, err
	}
	db.rdb, err = sql.Open("sqlite", dsn(db.path, readParams))
	if err != nil {
		return false, fmt.Errorf("store: open: %w", err)
	}
	db.rdb.SetMaxOpenConns(readConns)
	db.rdb.SetMaxIdleConns(readConns)
	if err := db.rdb.PingContext(ctx); err != nil {
		return false, fmt.Errorf("store: open read pool: %w", err)
	}
	if db.sdb, err = sql.Open("sqlite", dsn(db.path, readParams)); err != nil {
		return false, fmt.Errorf("store: open: %w", err)
	}
	db.sdb.SetMaxOpenConns(searchConns)
	db.sdb.SetMaxIdleConns(searchConns)
	db.log.Info("database opened", "path", db.path, "schemaVersion", version)
	return backfill, nil
}

// LogID is the event log's identity: 32 hex digits made once with the
// database (migration 0024) and never changed, so seqs are comparable only
// between reads of one LogID. A data dir made anew has another; a copy of
// the database file (a backup restored) has the same.
func (db *DB) LogID() string { return db.logID }

// Path is the database file's absolute path.
func (db *DB) Path() string { return db.path }

// Close stops accepting Writes, applies every Write already queued (their
// callbacks run), stops the writer and closes the database. It is
// idempotent; later calls return the first call's result.
func (db *DB) Close() error {
	db.closeOnce.Do(func() {
		db.mu.Lock()
		db.closed = true
		close(db.queue)
		db.mu.Unlock()
		<-db.stopped
		db.closeErr = errors.Join(db.stopCheckpointer(), db.closeDBs())
		db.log.Info("database closed", "path", db.path)
	})
	return db.closeErr
}

// mkdirAll0700 creates dir and its missing parents with mode 0700, chmod'ed
// so that the umask cannot loosen or tighten it. Existing folders are left
// as they are.
func mkdirAll0700(dir string) error {
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := mkdirAll0700(filepath.Dir(dir)); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return err
	}
	return os.Chmod(dir, 0o700)
}

// closeDBs closes whatever open managed to open.
func (db *DB) closeDBs() error {
	var errs []error
	if db.st != nil {
		errs = append(errs, db.st.close())
	}
	if db.conn != nil {
		errs = append(errs, db.conn.Close())
	}
	if db.wdb != nil {
		errs = append(errs, db.wdb.Close())
	}
	if db.rdb != nil {
		errs = append(errs, db.closeReadStmts(), db.rdb.Close())
	}
	if db.sdb != nil {
		errs = append(errs, db.sdb.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("store: close: %w", err)
	}
	return nil
}

// prepareFiles creates the folder (0700) and the database file (0600) and
// sets their modes whatever the umask.
func prepareFiles(path string) error {
	if err := mkdirAll0700(filepath.Dir(path)); err != nil {
		return fmt.Errorf("store: create folder: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("store: create database file: %w", err)
	}
	err = f.Chmod(0o600)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("store: database file mode: %w", err)
	}
	return nil
}

// dsn builds a SQLite URI for path with the given query. '%', '?' and '#'
// in the path are escaped, since SQLite decodes %HH in URIs and the driver
// splits the query off at the first '?'.
func dsn(path, params string) string {
	p := filepath.ToSlash(path)
	if runtime.GOOS == "windows" && !strings.HasPrefix(p, "/") {
		p = "/" + p // file:/C:/… is the URI form of a drive path
	}
	p = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(p)
	return "file:" + p + "?" + params
}

func orDefault(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}
