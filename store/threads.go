package store

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/switchboard-hub/switchboard/hub"
	"modernc.org/sqlite"
)

// Thread page sizes (hub.ThreadFilter.Limit).
const (
	DefaultThreadLimit = 50
	MaxThreadLimit     = 500
)

// upsertThreadSQL writes a thread. Client capabilities are set at creation
// and never cleared: an upsert without them keeps the stored ones.
const upsertThreadSQL = `INSERT INTO threads
	(id, agent, cwd, title, client_id, status, summary, agent_session_id, deleted, created_at, updated_at, client_capabilities, archived, worktree, imported_session, imported_history, additional_directories, instructions)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (id) DO UPDATE SET
		agent = excluded.agent, cwd = excluded.cwd, title = excluded.title,
		client_id = excluded.client_id, status = excluded.status, summary = excluded.summary,
		agent_session_id = excluded.agent_session_id, deleted = excluded.deleted,
		created_at = excluded.created_at, updated_at = excluded.updated_at,
		client_capabilities = COALESCE(excluded.client_capabilities, client_capabilities),
		archived = excluded.archived,
		worktree = COALESCE(excluded.worktree, worktree),
		additional_directories = COALESCE(excluded.additional_directories, additional_directories),
		instructions = COALESCE(excluded.instructions, instructions),
		imported_session = CASE WHEN excluded.deleted = 1 THEN NULL ELSE COALESCE(excluded.imported_session, imported_session) END,
		imported_history = CASE WHEN excluded.deleted = 1 THEN NULL ELSE COALESCE(excluded.imported_history, imported_history) END`

const threadColumns = `id, agent, cwd, title, client_id, status, summary, agent_session_id, created_at, updated_at, modes, config_options, client_capabilities, available_commands, compacted_at, archived, worktree, imported_session, imported_history, limited_until, additional_directories, queue_paused, instructions,
	(SELECT COUNT(*) FROM prompt_queue q WHERE q.thread_id = threads.id)`

// setSessionStateSQL sets a thread's modes, config options and available
// commands; a NULL argument keeps the stored value
// (hub.Write.SessionStates).
const setSessionStateSQL = `UPDATE threads SET
	modes = COALESCE(?, modes), config_options = COALESCE(?, config_options),
	available_commands = COALESCE(?, available_commands)
	WHERE id = ?`

func setSessionState(ctx context.Context, st *stmts, s *hub.SessionState) error {
	if s.ThreadID == "" {
		return invalid("store: session state without thread id")
	}
	if _, err := st.setSessionState.ExecContext(ctx, encJSON(s.Modes), encJSON(s.ConfigOptions), encJSON(s.AvailableCommands), s.ThreadID); err != nil {
		return fmt.Errorf("store: set session state of thread %s: %w", s.ThreadID, err)
	}
	return nil
}

// changeThreadSQL changes some fields of a live thread; a NULL argument
// keeps the stored value, and updated_at never goes back
// (hub.Write.ThreadChanges).
const changeThreadSQL = `UPDATE threads SET
	title = COALESCE(?, title), status = COALESCE(?, status), summary = COALESCE(?, summary),
	agent_session_id = COALESCE(?, agent_session_id), compacted_at = COALESCE(?, compacted_at),
	archived = COALESCE(?, archived), worktree = COALESCE(?, worktree),
	imported_history = COALESCE(?, imported_history),
	limited_until = CASE WHEN ? IS NULL THEN limited_until ELSE NULLIF(?, 0) END,
	queue_paused = COALESCE(?, queue_paused),
	instructions = COALESCE(?, instructions),
	updated_at = MAX(updated_at, ?)
	WHERE id = ? AND deleted = 0`

// changedThreadSQL reads a thread back on the writer's connection.
const changedThreadSQL = `SELECT ` + threadColumns + ` FROM threads WHERE id = ?`

// changeThread applies c, sets c.Thread to the thread as it left it and,
// when c.Announce, returns the thread_updated event that says so.
func changeThread(ctx context.Context, st *stmts, c *hub.ThreadChange) (*hub.Event, error) {
	if c.ThreadID == "" {
		return nil, invalid("store: thread change without thread id")
	}
	var status any
	if c.Status != "" {
		status = c.Status
	}
	wt, err := encWorktree(c.Worktree)
	if err != nil {
		return nil, fmt.Errorf("store: change thread %s: %w", c.ThreadID, err)
	}
	instr, err := encInstructions(c.Instructions)
	if err != nil {
		return nil, fmt.Errorf("store: change thread %s: %w", c.ThreadID, err)
	}
	res, err := st.changeThread.ExecContext(ctx, strPtr(c.Title), status, strPtr(c.Summary),
		strPtr(c.AgentSessionID), encTimePtr(c.CompactedAt), boolPtr(c.Archived), wt, strPtr(c.ImportedHistory), encTimePtr(c.LimitedUntil), encTimePtr(c.LimitedUntil), strPtr(c.QueuePaused), instr, encTime(c.UpdatedAt), c.ThreadID)
	var n int64
	if err == nil {
		n, err = res.RowsAffected()
	}
	if err != nil {
		return nil, fmt.Errorf("store: change thread %s: %w", c.ThreadID, err)
	}
	if n == 0 {
		return nil, hub.Errorf(hub.CodeNotFound, "thread %s not found", c.ThreadID)
	}
	t, err := scanThread(st.changedThread.QueryRowContext(ctx, c.ThreadID))
	if err != nil {
		return nil, fmt.Errorf("store: change thread %s: %w", c.ThreadID, err)
	}
	c.Thread = t
	if !c.Announce {
		return nil, nil
	}
	at := c.UpdatedAt
	if at.IsZero() {
		at = t.UpdatedAt
	}
	if len(c.Overlaps) > 0 && !t.Archived && !t.Deleted && (t.Worktree == nil || !t.Worktree.Discarded) {
		t.Overlaps = c.Overlaps
	}
	ev, err := hub.NewEvent(hub.EventThreadUpdated, t, "", at, map[string]any{"thread": t})
	if err != nil {
		return nil, err
	}
	return &ev, nil
}

// strPtr is a nullable text argument: nil is NULL.
func strPtr(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func boolPtr(b *bool) any {
	if b == nil {
		return nil
	}
	return boolInt(*b)
}

func upsertThread(ctx context.Context, st *stmts, t *hub.Thread) error {
	if t.ID == "" {
		return invalid("store: thread without id")
	}
	var caps []byte
	if t.ClientCapabilities != nil {
		var err error
		if caps, err = json.Marshal(t.ClientCapabilities); err != nil {
			return fmt.Errorf("store: upsert thread %s: %w", t.ID, err)
		}
	}
	wt, err := encWorktree(t.Worktree)
	if err != nil {
		return fmt.Errorf("store: upsert thread %s: %w", t.ID, err)
	}
	var dirs []byte
	if len(t.AdditionalDirectories) > 0 {
		if dirs, err = json.Marshal(t.AdditionalDirectories); err != nil {
			return fmt.Errorf("store: upsert thread %s: %w", t.ID, err)
		}
	}
	instr, err := encInstructions(t.Instructions)
	if err != nil {
		return fmt.Errorf("store: upsert thread %s: %w", t.ID, err)
	}
	var impSession, impHistory any
	if t.Imported != nil {
		impSession, impHistory = t.Imported.SessionID, t.Imported.History
	}
	_, err = st.upsertThread.ExecContext(ctx, t.ID, t.Agent, t.Cwd, t.Title, t.ClientID, t.Status,
		t.Summary, t.AgentSessionID, boolInt(t.Deleted), encTime(t.CreatedAt), encTime(t.UpdatedAt), encJSON(caps), boolInt(t.Archived), wt, impSession, impHistory, encJSON(dirs), instr)
	if isUniqueViolation(err) {
		return &hub.Error{Code: hub.CodeConflict, Message: fmt.Sprintf("agent %s's session %s is bound to another thread", t.Agent, t.Imported.SessionID),
			Details: map[string]any{"reason": hub.ReasonSessionAlreadyImported}, Err: err}
	}
	if err != nil {
		return fmt.Errorf("store: upsert thread %s: %w", t.ID, err)
	}
	return nil
}

func scanThread(s interface{ Scan(...any) error }) (hub.Thread, error) {
	var t hub.Thread
	var created, updated int64
	var modes, config, caps, commands, wt, dirs, instr []byte
	var compacted, limited sql.NullInt64
	var archived int64
	var impSession, impHistory sql.NullString
	err := s.Scan(&t.ID, &t.Agent, &t.Cwd, &t.Title, &t.ClientID, &t.Status, &t.Summary,
		&t.AgentSessionID, &created, &updated, &modes, &config, &caps, &commands, &compacted, &archived, &wt, &impSession, &impHistory, &limited, &dirs, &t.QueuePaused, &instr, &t.Queued)
	t.Archived = archived != 0
	t.Host = hub.HostOf(t.ID)
	if impSession.Valid {
		t.Imported = &hub.ImportedSession{SessionID: impSession.String, History: impHistory.String}
	}
	if err == nil && len(wt) > 0 {
		t.Worktree = new(hub.Worktree)
		if jerr := json.Unmarshal(wt, t.Worktree); jerr != nil {
			return t, fmt.Errorf("store: thread %s: worktree: %w", t.ID, jerr)
		}
	}
	t.CreatedAt, t.UpdatedAt, t.CompactedAt = decTime(created), decTime(updated), decTimePtr(compacted)
	if limited.Valid && limited.Int64 != 0 {
		t.LimitedUntil = decTimePtr(limited)
	}
	t.Modes, t.ConfigOptions, t.AvailableCommands = decJSON(modes), decJSON(config), decJSON(commands)
	if err == nil && len(dirs) > 0 {
		if jerr := json.Unmarshal(dirs, &t.AdditionalDirectories); jerr != nil {
			return t, fmt.Errorf("store: thread %s: additional directories: %w", t.ID, jerr)
		}
	}
	if err == nil && len(instr) > 0 {
		t.Instructions = new(hub.ThreadInstructions)
		if jerr := json.Unmarshal(instr, t.Instructions); jerr != nil {
			return t, fmt.Errorf("store: thread %s: instructions: %w", t.ID, jerr)
		}
	}
	if err == nil && len(caps) > 0 {
		t.ClientCapabilities = new(hub.ClientCapabilities)
		if jerr := json.Unmarshal(caps, t.ClientCapabilities); jerr != nil {
			return t, fmt.Errorf("store: thread %s: client capabilities: %w", t.ID, jerr)
		}
	}
	return t, err
}

// GetThread returns the thread id; NOT_FOUND if it does not exist or was
// deleted.
func (db *DB) GetThread(ctx context.Context, id string) (hub.Thread, error) {
	row := db.queryRow(ctx, `SELECT `+threadColumns+` FROM threads WHERE id = ? AND deleted = 0`, id)
	t, err := scanThread(row)
	if errors.Is(err, sql.ErrNoRows) {
		return hub.Thread{}, hub.Errorf(hub.CodeNotFound, "thread %s not found", id)
	}
	if err != nil {
		return hub.Thread{}, fmt.Errorf("store: get thread: %w", err)
	}
	return t, nil
}

// ListThreads returns a page of f.ClientID's threads (every client's with
// f.All; none when ClientID is "" and All is false), newest first by
// (UpdatedAt, ID), optionally only those in f.Cwd, and the cursor of the
// next page ("" on the last); only those with status f.Status when set,
// of agent f.Agent when set, updated before f.UpdatedBefore when set, and
// archived or not as f.Archived says (every one for ArchivedAny).
// Paging is by keyset, so pages never repeat a
// thread; one updated while a client pages moves ahead of the cursor and
// shows up on a fresh first page instead. Limit defaults to 50 and is
// capped at 500. A malformed cursor is INVALID_ARGUMENT.
func (db *DB) ListThreads(ctx context.Context, f hub.ThreadFilter) ([]hub.Thread, string, error) {
	if !f.All && f.ClientID == "" {
		return nil, "", nil
	}
	q, args, limit, err := threadsQuery(f)
	if err != nil {
		return nil, "", err
	}
	rows, err := db.query(ctx, q, args...)
	if err != nil {
		return nil, "", fmt.Errorf("store: list threads: %w", err)
	}
	defer rows.Close()
	threads := make([]hub.Thread, 0, min(limit+1, 64))
	for rows.Next() {
		t, err := scanThread(rows)
		if err != nil {
			return nil, "", fmt.Errorf("store: list threads: %w", err)
		}
		threads = append(threads, t)
	}
	if err := rows.Err(); err != nil {
		return nil, "", fmt.Errorf("store: list threads: %w", err)
	}
	next := ""
	if len(threads) > limit {
		threads = threads[:limit]
		last := threads[limit-1]
		next = encodeCursor(encTime(last.UpdatedAt), last.ID)
	}
	return threads, next, nil
}

// threadsQuery builds ListThreads' query for f (ClientID or All set): it
// asks for limit+1 rows, to know whether there is a next page.
func threadsQuery(f hub.ThreadFilter) (q string, args []any, limit int, err error) {
	limit = f.Limit
	if limit <= 0 {
		limit = DefaultThreadLimit
	}
	limit = min(limit, MaxThreadLimit)
	var b strings.Builder
	b.WriteString(`SELECT ` + threadColumns + ` FROM threads WHERE deleted = 0`)
	if !f.All {
		b.WriteString(` AND client_id = ?`)
		args = append(args, f.ClientID)
	}
	if f.Cwd != "" {
		b.WriteString(` AND cwd = ?`)
		args = append(args, f.Cwd)
	}
	if f.Status != "" {
		b.WriteString(` AND status = ?`)
		args = append(args, f.Status)
	}
	switch f.Archived {
	case hub.ArchivedAny, hub.ArchivedAll:
	case hub.ArchivedHide:
		b.WriteString(` AND archived = 0`)
	case hub.ArchivedOnly:
		b.WriteString(` AND archived = 1`)
	default:
		return "", nil, 0, invalid("archived must be true, false or all")
	}
	if f.Agent != "" {
		b.WriteString(` AND agent = ?`)
		args = append(args, f.Agent)
	}
	if !f.UpdatedBefore.IsZero() {
		b.WriteString(` AND updated_at < ?`)
		args = append(args, encTime(f.UpdatedBefore))
	}
	if f.Cursor != "" {
		at, id, err := decodeCursor(f.Cursor)
		if err != nil {
			return "", nil, 0, err
		}
		b.WriteString(` AND (updated_at, id) < (?, ?)`)
		args = append(args, at, id)
	}
	b.WriteString(` ORDER BY updated_at DESC, id DESC LIMIT ?`)
	return b.String(), append(args, limit+1), limit, nil
}

// A cursor is base64url("<updated_at nanos>:<id>") of the last thread of a
// page. Clients must treat it as opaque.
func encodeCursor(at int64, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(at, 10) + ":" + id))
}

func decodeCursor(c string) (int64, string, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err == nil {
		at, id, ok := strings.Cut(string(b), ":")
		n, perr := strconv.ParseInt(at, 10, 64)
		if ok && perr == nil {
			return n, id, nil
		}
	}
	return 0, "", invalid("invalid cursor")
}

// encWorktree is a thread's worktree as stored (JSON without the computed
// ahead/behind/dirty/merged; NULL for none).
func encWorktree(w *hub.Worktree) (any, error) {
	if w == nil {
		return nil, nil
	}
	c := *w
	c.Ahead, c.Behind, c.Dirty, c.Merged = nil, nil, nil, nil
	b, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

// isUniqueViolation reports whether err is a constraint violation
// (SQLITE_CONSTRAINT): for a thread, its imported session already bound.
func isUniqueViolation(err error) bool {
	var serr *sqlite.Error
	return errors.As(err, &serr) && serr.Code()&0xff == sqliteConstraint
}

// maxSessionLookup bounds the ids of one ThreadsBySession query (a page
// of an agent's sessions is capped below it by the engine).
const maxSessionLookup = 500

// ThreadsBySession implements hub.Store: agent's live threads imported
// from one of ids or whose last agent session is one of them.
func (db *DB) ThreadsBySession(ctx context.Context, agent string, ids []string) ([]hub.Thread, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	if len(ids) > maxSessionLookup {
		return nil, invalid("store: too many session ids")
	}
	marks := strings.TrimSuffix(strings.Repeat("?,", len(ids)), ",")
	args := []any{agent}
	for _, id := range ids {
		args = append(args, id)
	}
	args = append(args, agent)
	for _, id := range ids {
		args = append(args, id)
	}
	q := `SELECT ` + threadColumns + ` FROM threads WHERE agent = ? AND deleted = 0 AND imported_session IN (` + marks + `)
	UNION SELECT ` + threadColumns + ` FROM threads WHERE agent = ? AND deleted = 0 AND agent_session_id != '' AND agent_session_id IN (` + marks + `)`
	rows, err := db.query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: threads by session: %w", err)
	}
	defer rows.Close()
	var out []hub.Thread
	for rows.Next() {
		t, err := scanThread(rows)
		if err != nil {
			return nil, fmt.Errorf("store: threads by session: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// encInstructions is a thread's instructions as stored (JSON; nil, which
// keeps the stored value, when there are none).
func encInstructions(in *hub.ThreadInstructions) (any, error) {
	if in == nil {
		return nil, nil
	}
	b, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	return string(b), nil
}
