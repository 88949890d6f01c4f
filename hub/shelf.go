package hub

import (
	"context"
	"io"
)

// Shelf is the part of Service that keeps threads for later: listing
// with the archived filter, archiving, export and import.
type Shelf interface {
	// QueryThreads is ListThreads with ThreadQuery's filters; an unknown
	// Archived value is INVALID_ARGUMENT. ListThreads is QueryThreads
	// hiding archived threads.
	QueryThreads(ctx context.Context, c Caller, q ThreadQuery) (ThreadPage, error)
	// SetArchived archives or unarchives one thread and returns it,
	// announced by thread_updated. It cancels nothing: a running turn
	// goes on and its permissions stay pending.
	SetArchived(ctx context.Context, c Caller, id string, archived bool) (Thread, error)
	// ArchiveThreads archives every thread of the caller that
	// ArchiveRequest selects and says how many it archived.
	ArchiveThreads(ctx context.Context, c Caller, req ArchiveRequest) (ArchiveResult, error)
	// ExportThreads writes the export req asks for to w. Everything that
	// can be refused (unknown format, thread not found, no thread in the
	// folder) is refused before the first byte is written; an error
	// after that means w holds a cut export.
	ExportThreads(ctx context.Context, c Caller, req ExportRequest, w io.Writer) error
	// ImportThreads reads a JSON lines export (ExportLine) from r and
	// stores each thread in it as a new thread of the caller: new thread,
	// turn, permission and event ids, new seqs in the original order, the
	// text redacted like live text. A schema newer than ExportSchema, or
	// a malformed line, is INVALID_ARGUMENT and leaves nothing behind
	// (threads already stored by this import are deleted). r is read as
	// it comes (the caller bounds its size). Each thread's folder is
	// req.Cwd when set (checked as CreateThread checks one), else the
	// file's own, which must be an existing absolute folder where one of
	// the caller's threads already is; any other is INVALID_ARGUMENT with
	// details.reason ReasonImportFolder (ImportRequest).
	ImportThreads(ctx context.Context, c Caller, req ImportRequest, r io.Reader) (ImportResult, error)
}
