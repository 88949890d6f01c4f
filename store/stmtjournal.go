package store

import (
	"fmt"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// stmtJournalSpill is how large a savepoint's journal grows in memory
// before SQLite moves it to a temporary file.
//
// The writer applies each Write of a batch inside a savepoint
// (writeloop.go), so that a refused Write rolls back alone. SQLite keeps a
// savepoint's journal — the pages the Write changed, as they were — in
// memory up to its compiled default, 64 KiB (sixteen pages), then makes a
// temporary file (stat and access of the temporary folders, an unnamed
// O_TMPFILE open) and writes every further page to it. A Write passes
// 64 KiB when it changes pages stored before its transaction: FTS5 writes
// its pending segment at each savepoint and may merge segments there, into
// freed pages; a deletion rewrites a thread's pages. Traces of the hub
// caught it on the copies' path, where making the file alone held the
// writer for milliseconds on a busy machine (ADR 0057). At this size a
// journal stays in memory for any Write within a batch's bounds
// (DefaultMaxBatchBytes); only a larger one (deleting a long thread) still
// spills, so the memory is bounded either way.
const stmtJournalSpill = DefaultMaxBatchBytes

// stmtJournalErr is why stmtJournalSpill could not be set (logged by Open).
var stmtJournalErr = setStmtJournalSpill(stmtJournalSpill)

// setStmtJournalSpill sets SQLITE_CONFIG_STMTJRNL_SPILL, process-wide. It
// must run before SQLite initializes (the first connection), which is why
// it runs at package initialization.
func setStmtJournalSpill(n int) error {
	tls := libc.NewTLS()
	defer tls.Close()
	args := libc.Xmalloc(tls, 8)
	if args == 0 {
		return fmt.Errorf("store: statement journal: out of memory")
	}
	defer libc.Xfree(tls, args)
	if rc := sqlite3.Xsqlite3_config(tls, sqlite3.SQLITE_CONFIG_STMTJRNL_SPILL, libc.VaList(args, int32(n))); rc != sqlite3.SQLITE_OK {
		return fmt.Errorf("store: statement journal: sqlite3_config returned %d", rc)
	}
	return nil
}
