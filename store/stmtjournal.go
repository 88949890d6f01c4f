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
// memory up to its compiled default, 64 KiB (sixteen pages), then creates
// a temporary file (stat and access of the temp directories, open, unlink)
// and writes every further page to it twice. A Write of a few dozen events
// (a host's copies after a moment's backlog, an editor's burst) crossed
// that on the hot path, and on a busy machine the file's creation alone
// held the writer for milliseconds. At this size a journal stays in
// memory for any Write within a batch's bounds (DefaultMaxBatchBytes), and
// only a Write larger than that (deleting a long thread) still spills:
// the memory is bounded either way.
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
