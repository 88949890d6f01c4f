package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/switchboard-hub/switchboard/hub"
	"modernc.org/sqlite"
)

// searchSQL finds the documents that match ?1, newest first; ?2 and ?3
// are the snippet's match markers (DB.marks). CROSS JOIN keeps search_fts
// the outer loop, so that FTS5 walks its matches in rowid order from the
// newest and the query stops after LIMIT rows instead of sorting every
// match.
const searchSQL = `SELECT d.seq, d.thread_id, d.turn_id, d.kind, d.at, t.title, t.agent, t.cwd, t.archived,
	snippet(search_fts, 0, ?2, ?3, '…', 24)
	FROM search_fts CROSS JOIN search_docs d CROSS JOIN threads t
	WHERE search_fts MATCH ?1 AND d.seq = search_fts.rowid AND t.id = d.thread_id AND t.deleted = 0
	AND NOT EXISTS (SELECT 1 FROM turns u WHERE u.id = d.turn_id AND u.internal = 1)`

// snippetMarks are the strings snippet() puts around each match, split
// into hub.SnippetPart by splitSnippet: private-use characters around a
// random nonce drawn at Open, so that no text an agent wrote can pose as
// a match.
type snippetMarks struct{ open, close string }

func newSnippetMarks() snippetMarks {
	var b [8]byte
	_, _ = rand.Read(b[:])
	n := hex.EncodeToString(b[:])
	return snippetMarks{open: "\ue000" + n + "\ue001", close: "\ue001" + n + "\ue000"}
}

// Search runs on the search pool (Options.SearchConns), never on the read
// pool; ctx's deadline interrupts it (the engine sets one).
//
// Search returns up to f.Limit documents matching f.Q, newest first, of
// f.ClientID's threads (every thread with f.All; none with neither),
// never of a deleted thread nor of an internal turn (a compaction's
// prompt and summary, which history hides too). Errors: INVALID_ARGUMENT for an empty or
// malformed query (FTS5 syntax, an unknown column) or a malformed cursor.
func (db *DB) Search(ctx context.Context, f hub.SearchFilter) (hub.SearchPage, error) {
	page := hub.SearchPage{Hits: []hub.SearchHit{}, Indexing: db.indexing.Load()}
	if strings.TrimSpace(f.Q) == "" {
		return page, hub.Errorf(hub.CodeInvalidArgument, "search: q is required")
	}
	if !f.All && f.ClientID == "" {
		return page, nil
	}
	// The query is parsed first on its own: the search below can end
	// before FTS5 looks at it (no thread to join), and a malformed query
	// must fail alike whatever the data.
	var n int
	if err := db.sdb.QueryRowContext(ctx, `SELECT COUNT(*) FROM search_fts WHERE search_fts MATCH ? AND rowid = 0`, f.Q).Scan(&n); err != nil {
		return page, searchErr(err)
	}
	limit := f.Limit
	if limit <= 0 {
		limit = hub.DefaultSearchLimit
	}
	limit = min(limit, hub.MaxSearchLimit)
	var b strings.Builder
	b.WriteString(searchSQL)
	// The user's query (well-formed: parsed above) searches the text
	// column only; a client's, only its documents, by their owner token.
	match := "text : (" + f.Q + ")"
	if !f.All {
		match = `owner : "` + ownerToken(f.ClientID) + `" AND ` + match
	}
	args := []any{match, db.marks.open, db.marks.close}
	arg := func(cond string, v any) {
		args = append(args, v)
		b.WriteString(" AND " + strings.ReplaceAll(cond, "?", "?"+strconv.Itoa(len(args))))
	}
	if f.Cursor != "" {
		before, err := strconv.ParseInt(f.Cursor, 10, 64)
		if err != nil || before <= 0 {
			return page, hub.Errorf(hub.CodeInvalidArgument, "search: malformed cursor")
		}
		arg("search_fts.rowid < ?", before)
	}
	if !f.All {
		arg("t.client_id = ?", f.ClientID) // as well as the owner token
	}
	if f.Agent != "" {
		arg("t.agent = ?", f.Agent)
	}
	if folder := strings.TrimRight(f.Folder, `/\`); folder != "" {
		// The folder itself or anything under it: '0' follows '/'.
		arg("(t.cwd = ? OR (t.cwd > ? || '/' AND t.cwd < ? || '0'))", folder)
	}
	if !f.From.IsZero() {
		arg("d.at >= ?", encTime(f.From))
	}
	if !f.To.IsZero() {
		arg("d.at < ?", encTime(f.To))
	}
	b.WriteString(" ORDER BY search_fts.rowid DESC LIMIT ?" + strconv.Itoa(len(args)+1))
	args = append(args, limit)

	rows, err := db.sdb.QueryContext(ctx, b.String(), args...)
	if err != nil {
		return page, searchErr(err)
	}
	defer rows.Close()
	for rows.Next() {
		var h hub.SearchHit
		var at int64
		var snippet string
		if err := rows.Scan(&h.Seq, &h.ThreadID, &h.TurnID, &h.Kind, &at, &h.ThreadTitle, &h.Agent, &h.Cwd, &h.Archived, &snippet); err != nil {
			return page, searchErr(err)
		}
		h.At, h.Snippet = decTime(at), db.marks.split(snippet)
		page.Hits = append(page.Hits, h)
	}
	if err := rows.Err(); err != nil {
		return page, searchErr(err)
	}
	if len(page.Hits) == limit {
		page.NextCursor = strconv.FormatInt(page.Hits[limit-1].Seq, 10)
	}
	return page, nil
}

// searchErr makes a SQLite error of the search query a hub error: the
// query itself is fixed and tested, so SQLITE_ERROR (FTS5's syntax errors,
// "no such column" for a col: filter) is the user's query at fault.
func searchErr(err error) error {
	var serr *sqlite.Error
	if errors.As(err, &serr) && serr.Code()&0xff == 1 {
		msg := strings.TrimPrefix(serr.Error(), "SQL logic error: ")
		msg = strings.TrimSuffix(msg, " (1)")
		return &hub.Error{Code: hub.CodeInvalidArgument, Message: "search: invalid query: " + msg, Err: err}
	}
	return fmt.Errorf("store: search: %w", err)
}

// split cuts snippet() output at the marks.
func (m snippetMarks) split(s string) []hub.SnippetPart {
	parts := []hub.SnippetPart{}
	for s != "" {
		i := strings.Index(s, m.open)
		if i < 0 {
			parts = append(parts, hub.SnippetPart{Text: s})
			break
		}
		if i > 0 {
			parts = append(parts, hub.SnippetPart{Text: s[:i]})
		}
		s = s[i+len(m.open):]
		j := strings.Index(s, m.close)
		if j < 0 {
			j = len(s)
		}
		if j > 0 {
			parts = append(parts, hub.SnippetPart{Text: s[:j], Match: true})
		}
		s = strings.TrimPrefix(s[j:], m.close)
	}
	return parts
}
