package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-hub/switchboard/hub"
)

// The search index (migration 0007): one document per message or thought,
// prompt, tool call and thread title, written by the writer goroutine in
// the transaction that stores its events, so that what is indexed is what
// is stored (after the engine's redaction) and nothing else.
//
// A message or thought is the run of its thread's message_delta (or
// thought_delta) events of one turn, ended by any other event of the
// agent's (another text, a tool call, a plan, usage, …) or of the turn
// (turn_completed, the next turn_started). thread_updated, permission,
// client request and terminal output events pass without ending it, as
// they do in the engine's redaction stream.
//
// Its text is indexed in segments, each written once and never rewritten
// (DECISIONS.md 0012): when the streaming text reaches segmentMax, the
// segment ends after its last whitespace within cutWindow bytes of its end
// and is written in the transaction that stores the chunk that crossed the
// limit; the rest (the start of a word) begins the next segment, whose id
// is that chunk's seq. The last segment is written in the transaction that
// stores the event ending the message — the same one that stores its last
// chunk when redaction held text back. So a streaming message is findable
// up to its last 4 KiB, a word split across chunks is found once its
// segment is stored, and a word is never split between segments unless it
// is longer than cutWindow. Rewriting a growing document instead (delete,
// then insert the longer text, as this index did first) cost most of the
// hub's CPU under a streaming load: FTS5's secure-delete rewrites index
// pages at every delete.
const (
	segmentMax = 4 << 10
	cutWindow  = 256
)

// Document kinds (hub.SearchHit.Kind).
const (
	kindPrompt  = "prompt"
	kindMessage = "message"
	kindThought = "thought"
	kindTool    = "tool"
	kindTitle   = "title"
)

const searchStmtsSQLUpsertDoc = `INSERT INTO search_docs (seq, thread_id, turn_id, kind, at, streaming)
	VALUES (?1, ?2, ?3, ?4, ?5, ?6)
	ON CONFLICT (seq) DO UPDATE SET streaming = excluded.streaming`

// searchStmts are the index's statements on the writer's connection.
type searchStmts struct {
	upsertDoc, deleteDoc    *sql.Stmt
	insertText, deleteText  *sql.Stmt
	titleDoc, threadDeleted *sql.Stmt
}

func (s *searchStmts) prepare(ctx context.Context, conn *sql.Conn, all *[]*sql.Stmt) error {
	for _, p := range []struct {
		dst **sql.Stmt
		sql string
	}{
		{&s.upsertDoc, searchStmtsSQLUpsertDoc},
		{&s.deleteDoc, `DELETE FROM search_docs WHERE seq = ?`},
		{&s.insertText, `INSERT INTO search_fts (rowid, text, owner) VALUES (?, ?, ?)`},
		{&s.deleteText, `DELETE FROM search_fts WHERE rowid = ?`},
		{&s.titleDoc, `SELECT d.seq, f.text FROM search_docs d JOIN search_fts f ON f.rowid = d.seq
			WHERE d.thread_id = ? AND d.kind = 'title'`},
		{&s.threadDeleted, `SELECT deleted FROM threads WHERE id = ?`},
	} {
		st, err := conn.PrepareContext(ctx, p.sql)
		if err != nil {
			return fmt.Errorf("store: prepare %q: %w", p.sql, err)
		}
		*p.dst = st
		*all = append(*all, st)
	}
	return nil
}

// indexer turns stored events into documents. The writer's (db.ix) lives
// as long as the DB; backfill and recovery use their own. Owned by the
// goroutine that applies Writes.
type indexer struct {
	st   *searchStmts
	open map[string]*openDoc // a thread's streaming message or thought
}

// openDoc is a message or thought still streaming.
type openDoc struct {
	seq   int64
	owner string // ownerToken of the thread's client
	kind  string
	turn  string
	text  strings.Builder
}

func newIndexer(st *searchStmts) *indexer {
	return &indexer{st: st, open: map[string]*openDoc{}}
}

// reset forgets the streaming messages (after a failed Write: what they
// hold may not have been stored). Their documents keep what was written
// and stay marked streaming, to be rebuilt at the next open.
func (ix *indexer) reset() { clear(ix.open) }

// forget drops a thread's streaming message (the thread was deleted).
func (ix *indexer) forget(threadID string) { delete(ix.open, threadID) }

// event indexes e, just stored with e.Seq set.
func (ix *indexer) event(ctx context.Context, e *hub.Event) error {
	if e.ThreadID == "" || e.Seq == 0 {
		return nil
	}
	kind := textKind(e.Type)
	d := ix.open[e.ThreadID]
	if d != nil && (kind != "" || endsMessage(e.Type)) && (d.kind != kind || d.turn != e.TurnID) {
		if err := ix.finish(ctx, e.ThreadID, d); err != nil {
			return err
		}
		d = nil
	}
	if kind != "" {
		return ix.chunk(ctx, e, kind, d)
	}
	kind, text := docText(e)
	if text == "" {
		return nil
	}
	if ok, err := ix.live(ctx, e.ThreadID); err != nil || !ok {
		return err
	}
	if kind == kindTitle {
		return ix.title(ctx, e, text)
	}
	return ix.write(ctx, e.Seq, e, kind, text, false, false)
}

// chunk appends a text event to its thread's streaming document (d, or a
// new one starting at e).
func (ix *indexer) chunk(ctx context.Context, e *hub.Event, kind string, d *openDoc) error {
	text := chunkText(e.Payload)
	if text == "" {
		return nil
	}
	if d == nil {
		if ok, err := ix.live(ctx, e.ThreadID); err != nil || !ok {
			return err
		}
		d = &openDoc{seq: e.Seq, owner: ownerToken(e.ClientID), kind: kind, turn: e.TurnID}
		if _, err := ix.st.upsertDoc.ExecContext(ctx, d.seq, e.ThreadID, e.TurnID, kind, encTime(e.At), 1); err != nil {
			return fmt.Errorf("store: index: %w", err)
		}
		ix.open[e.ThreadID] = d
	}
	d.text.WriteString(text)
	if d.text.Len() >= segmentMax && e.Seq != d.seq {
		return ix.cut(ctx, e, d)
	}
	return nil
}

// cut ends d's segment at its last whitespace near its end and starts the
// next one, at e, with the rest.
func (ix *indexer) cut(ctx context.Context, e *hub.Event, d *openDoc) error {
	text := d.text.String()
	at := len(text)
	if i := strings.LastIndexAny(text[len(text)-min(cutWindow, len(text)):], " \t\r\n"); i >= 0 {
		at = len(text) - min(cutWindow, len(text)) + i + 1
	}
	d.text.Reset()
	d.text.WriteString(text[:at])
	if err := ix.finish(ctx, e.ThreadID, d); err != nil {
		return err
	}
	next := &openDoc{seq: e.Seq, owner: d.owner, kind: d.kind, turn: d.turn}
	next.text.WriteString(text[at:])
	if _, err := ix.st.upsertDoc.ExecContext(ctx, next.seq, e.ThreadID, e.TurnID, next.kind, encTime(e.At), 1); err != nil {
		return fmt.Errorf("store: index: %w", err)
	}
	ix.open[e.ThreadID] = next
	return nil
}

// finish writes d, its text in full, and marks it complete.
func (ix *indexer) finish(ctx context.Context, threadID string, d *openDoc) error {
	delete(ix.open, threadID)
	if _, err := ix.st.insertText.ExecContext(ctx, d.seq, d.text.String(), d.owner); err != nil {
		return fmt.Errorf("store: index: %w", err)
	}
	if _, err := ix.st.upsertDoc.ExecContext(ctx, d.seq, threadID, d.turn, d.kind, 0, 0); err != nil {
		return fmt.Errorf("store: index: %w", err)
	}
	return nil
}

// finishAll completes every streaming document (the end of a backfill or
// a recovery).
func (ix *indexer) finishAll(ctx context.Context) error {
	for id, d := range ix.open {
		if err := ix.finish(ctx, id, d); err != nil {
			return err
		}
	}
	return nil
}

// title replaces the thread's title document when its title changed.
func (ix *indexer) title(ctx context.Context, e *hub.Event, title string) error {
	var seq int64
	var old string
	err := ix.st.titleDoc.QueryRowContext(ctx, e.ThreadID).Scan(&seq, &old)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return fmt.Errorf("store: index title: %w", err)
	case old == title || seq > e.Seq:
		return nil // unchanged, or a backfill reading an older title
	default:
		if err := ix.drop(ctx, seq); err != nil {
			return err
		}
	}
	return ix.write(ctx, e.Seq, e, kindTitle, title, false, true)
}

// write stores a complete document. replace deletes an existing row of
// the same seq first (a rebuild).
func (ix *indexer) write(ctx context.Context, seq int64, e *hub.Event, kind, text string, streaming, replace bool) error {
	if replace {
		if _, err := ix.st.deleteText.ExecContext(ctx, seq); err != nil {
			return fmt.Errorf("store: index: %w", err)
		}
	}
	if _, err := ix.st.upsertDoc.ExecContext(ctx, seq, e.ThreadID, e.TurnID, kind, encTime(e.At), boolInt(streaming)); err != nil {
		return fmt.Errorf("store: index: %w", err)
	}
	if _, err := ix.st.insertText.ExecContext(ctx, seq, text, ownerToken(e.ClientID)); err != nil {
		return fmt.Errorf("store: index: %w", err)
	}
	return nil
}

// drop deletes one document.
func (ix *indexer) drop(ctx context.Context, seq int64) error {
	if _, err := ix.st.deleteText.ExecContext(ctx, seq); err != nil {
		return fmt.Errorf("store: index: %w", err)
	}
	if _, err := ix.st.deleteDoc.ExecContext(ctx, seq); err != nil {
		return fmt.Errorf("store: index: %w", err)
	}
	return nil
}

// live reports whether the thread exists and is not deleted: a deleted
// thread's late events are stored without their payload, so there is
// nothing to index.
func (ix *indexer) live(ctx context.Context, threadID string) (bool, error) {
	var deleted int
	err := ix.st.threadDeleted.QueryRowContext(ctx, threadID).Scan(&deleted)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: index: %w", err)
	}
	return deleted == 0, nil
}

// chunkText is the text of a message_delta or thought_delta payload. The
// engine writes it as {"text":"…"}: when the string has no escape, its
// bytes are the text, read without a JSON decoder (the hot path of a
// streaming turn); anything else is decoded.
func chunkText(payload []byte) string {
	const head, tail = `{"text":"`, `"}`
	if len(payload) >= len(head)+len(tail) && string(payload[:len(head)]) == head && string(payload[len(payload)-len(tail):]) == tail {
		body := payload[len(head) : len(payload)-len(tail)]
		if !bytes.ContainsAny(body, `\"`) {
			return string(body)
		}
	}
	var p struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(payload, &p) != nil {
		return ""
	}
	return p.Text
}

// ownerToken is a client id as one search_fts token (client ids may hold
// '.', '-' and '_', which the tokenizer would split on).
func ownerToken(clientID string) string { return "o" + hex.EncodeToString([]byte(clientID)) }

// textKind is the document kind of a streamed text event, else "".
func textKind(typ string) string {
	switch typ {
	case hub.EventMessageDelta:
		return kindMessage
	case hub.EventThoughtDelta:
		return kindThought
	}
	return ""
}

// endsMessage reports whether an event of this type ends its thread's
// streaming message or thought: every event of the agent's session and of
// turns does; the hub's own notes in between do not.
func endsMessage(typ string) bool {
	switch typ {
	case hub.EventThreadUpdated, hub.EventPermissionRequired, hub.EventPermissionResolved,
		hub.EventClientRequest, hub.EventTerminalOutput, hub.EventConfigError, hub.EventConfigApplied:
		return false
	}
	return true
}

// docText is the document kind and text of an event that is not a
// streamed text: a prompt, a tool call's title, command and paths, a
// thread's title; "" for anything else.
func docText(e *hub.Event) (kind, text string) {
	if len(e.Payload) == 0 {
		return "", ""
	}
	switch e.Type {
	case hub.EventTurnStarted:
		var p struct {
			Input string `json:"input"`
		}
		if json.Unmarshal(e.Payload, &p) == nil {
			return kindPrompt, p.Input
		}
	case hub.EventToolCall, hub.EventToolCallUpdate:
		var p struct {
			ToolCall toolCallText `json:"toolCall"`
		}
		if json.Unmarshal(e.Payload, &p) == nil {
			return kindTool, p.ToolCall.text()
		}
	case hub.EventThreadUpdated:
		var p struct {
			Thread struct {
				Title string `json:"title"`
			} `json:"thread"`
		}
		if json.Unmarshal(e.Payload, &p) == nil {
			return kindTitle, p.Thread.Title
		}
	}
	return "", ""
}

// toolCallText is what a tool call says that people search for (ACP
// ToolCall and ToolCallUpdate): its title, the command or path of its raw
// input, its locations.
type toolCallText struct {
	Title    string          `json:"title"`
	RawInput json.RawMessage `json:"rawInput"`
	Location []struct {
		Path string `json:"path"`
	} `json:"locations"`
}

// rawInputKeys are the rawInput fields indexed when they are strings (or,
// for a command, a list of strings), as agents name them.
var rawInputKeys = []string{"command", "cmd", "path", "file_path", "filePath", "abs_path", "pattern", "url"}

func (t toolCallText) text() string {
	var parts []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			parts = append(parts, s)
		}
	}
	add(t.Title)
	var in map[string]json.RawMessage
	if json.Unmarshal(t.RawInput, &in) == nil {
		for _, k := range rawInputKeys {
			var s string
			var list []string
			if json.Unmarshal(in[k], &s) == nil {
				add(s)
			} else if json.Unmarshal(in[k], &list) == nil {
				add(strings.Join(list, " "))
			}
		}
	}
	for _, l := range t.Location {
		add(l.Path)
	}
	return strings.Join(parts, "\n")
}
