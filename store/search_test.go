package store

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
	"github.com/switchboard-hub/switchboard/hub"
)

func textEvent(typ, threadID, turnID string, i int, text string) hub.Event {
	e := event(typ, threadID, turnID, i)
	q, _ := json.Marshal(text)
	e.Payload = json.RawMessage(`{"text":` + string(q) + `}`)
	return e
}

func payloadEvent(typ, threadID, turnID string, i int, payload string) hub.Event {
	e := event(typ, threadID, turnID, i)
	e.Payload = json.RawMessage(payload)
	return e
}

func mustSearch(tb testing.TB, db *DB, f hub.SearchFilter) hub.SearchPage {
	tb.Helper()
	p, err := db.Search(context.Background(), f)
	if err != nil {
		tb.Fatalf("Search(%+v): %v", f, err)
	}
	return p
}

func searchAll(q string) hub.SearchFilter {
	return hub.SearchFilter{SearchQuery: hub.SearchQuery{Q: q, Limit: hub.MaxSearchLimit}, All: true}
}

func hitThreads(p hub.SearchPage) []string {
	var ids []string
	for _, h := range p.Hits {
		ids = append(ids, h.ThreadID)
	}
	return ids
}

// Every split of a message into two chunks, each stored by its own
// commit, leaves every word findable once the message is stored; and so
// does a message sent a byte at a time.
func TestSearchWordSplitAtEveryOffset(t *testing.T) {
	db := MustOpenDB(t)
	const msg = "see zanzibarquokka here"
	var want []string
	for k := 1; k < len(msg); k++ {
		id := fmt.Sprintf("t%02d", k)
		want = append(want, id)
		mustCommit(t, db, &hub.Write{Threads: []hub.Thread{thread(id, "c1", k)}, Turns: []hub.Turn{turn("u"+id, id, k)}})
		for _, part := range []string{msg[:k], msg[k:]} {
			mustCommit(t, db, &hub.Write{Events: []hub.Event{textEvent(hub.EventMessageDelta, id, "u"+id, k, part)}})
		}
		mustCommit(t, db, &hub.Write{Events: []hub.Event{payloadEvent(hub.EventTurnCompleted, id, "u"+id, k, `{"stopReason":"end_turn"}`)}})
	}
	// A byte at a time, ended by a tool call rather than the turn's end.
	mustCommit(t, db, &hub.Write{Threads: []hub.Thread{thread("bytes", "c1", 99)}, Turns: []hub.Turn{turn("ub", "bytes", 99)}})
	for i := range len(msg) {
		mustCommit(t, db, &hub.Write{Events: []hub.Event{textEvent(hub.EventMessageDelta, "bytes", "ub", 99, msg[i:i+1])}})
	}
	mustCommit(t, db, &hub.Write{Events: []hub.Event{payloadEvent(hub.EventToolCall, "bytes", "ub", 99, `{"toolCall":{"title":"Read"}}`)}})
	want = append(want, "bytes")

	for _, q := range []string{"zanzibarquokka", `"see zanzibarquokka here"`, "zanzi*"} {
		p := mustSearch(t, db, searchAll(q))
		got := map[string]int{}
		for _, h := range p.Hits {
			got[h.ThreadID]++
			if h.Kind != hub.SearchKindMessage {
				t.Errorf("%q: hit kind %q", q, h.Kind)
			}
		}
		for _, id := range want {
			if got[id] != 1 {
				t.Errorf("%q: thread %s has %d hits, want 1 (split at %s)", q, id, got[id], strings.TrimPrefix(id, "t"))
			}
		}
	}
	// The hit names the message's first chunk and marks the match.
	p := mustSearch(t, db, searchAll("zanzibarquokka"))
	h := p.Hits[len(p.Hits)-1] // oldest: t01
	evs, _ := db.Events(context.Background(), hub.EventFilter{ThreadID: "t01", All: true})
	if h.ThreadID != "t01" || h.Seq != evs[0].Seq || h.TurnID != "ut01" {
		t.Errorf("oldest hit %+v, want thread t01 at seq %d", h, evs[0].Seq)
	}
	var marked string
	for _, s := range h.Snippet {
		if s.Match {
			marked += s.Text
		}
	}
	if marked != "zanzibarquokka" {
		t.Errorf("snippet %+v: marked %q", h.Snippet, marked)
	}
}

// A long message is findable while it streams: each 4 KiB segment is
// written once, when the text crosses it; the rest when the message ends.
func TestSearchStreamingMessage(t *testing.T) {
	db := MustOpenDB(t)
	mustCommit(t, db, &hub.Write{Threads: []hub.Thread{thread("a", "c1", 1)}, Turns: []hub.Turn{turn("u", "a", 1)}})
	mustCommit(t, db, &hub.Write{Events: []hub.Event{textEvent(hub.EventMessageDelta, "a", "u", 1, "early firstword ")}})
	if p := mustSearch(t, db, searchAll("firstword")); len(p.Hits) != 0 {
		t.Errorf("found before its segment is complete: %d hits", len(p.Hits))
	}
	for i := range 60 {
		mustCommit(t, db, &hub.Write{Events: []hub.Event{textEvent(hub.EventMessageDelta, "a", "u", 2+i, strings.Repeat("filler ", 10)+" ")}})
	}
	if p := mustSearch(t, db, searchAll("firstword")); len(p.Hits) != 1 {
		t.Fatalf("after >4 KiB streamed: %d hits, want 1", len(p.Hits))
	}
	mustCommit(t, db, &hub.Write{Events: []hub.Event{textEvent(hub.EventMessageDelta, "a", "u", 70, " lastword")}})
	if p := mustSearch(t, db, searchAll("lastword")); len(p.Hits) != 0 {
		t.Errorf("the streaming tail found before the message ended: %d hits", len(p.Hits))
	}
	mustCommit(t, db, &hub.Write{Events: []hub.Event{payloadEvent(hub.EventTurnCompleted, "a", "u", 71, `{}`)}})
	for _, q := range []string{"firstword", "lastword", "filler"} {
		if p := mustSearch(t, db, searchAll(q)); len(p.Hits) == 0 || len(p.Hits) > 2 {
			t.Errorf("%s after the end: %d hits, want 1 or 2 (one per segment)", q, len(p.Hits))
		}
	}
	var n, docs int
	if err := db.queryRow(context.Background(), `SELECT COUNT(*) FROM search_docs WHERE streaming = 1`).Scan(&n); err != nil || n != 0 {
		t.Errorf("streaming documents after the end: %d, %v", n, err)
	}
	// Each segment written once: as many text rows as documents.
	if err := db.queryRow(context.Background(), `SELECT (SELECT COUNT(*) FROM search_fts) - (SELECT COUNT(*) FROM search_docs)`).Scan(&docs); err != nil || docs != 0 {
		t.Errorf("text rows minus documents: %d, %v", docs, err)
	}
}

// A message longer than a segment is indexed in segments cut between
// words: every word near the cuts is found, once, whatever the chunking.
func TestSearchLongMessageSegments(t *testing.T) {
	db := MustOpenDB(t)
	var b strings.Builder
	var words []string
	for b.Len() < 3*segmentMax {
		near := false
		for _, cut := range []int{segmentMax, 2 * segmentMax} {
			if b.Len() > cut-2*cutWindow && b.Len() < cut+cutWindow {
				near = true
			}
		}
		if near {
			w := fmt.Sprintf("uniq%06dword", len(words))
			words = append(words, w)
			b.WriteString(w + " ")
		} else {
			b.WriteString("filler ")
		}
	}
	text := b.String()
	for _, size := range []int{5, 7, 64, 1000} {
		id := fmt.Sprintf("t%d", size)
		mustCommit(t, db, &hub.Write{Threads: []hub.Thread{thread(id, "c1", size)}})
		for i := 0; i < len(text); i += size {
			mustCommit(t, db, &hub.Write{Events: []hub.Event{textEvent(hub.EventMessageDelta, id, "u", i, text[i:min(i+size, len(text))])}})
		}
		mustCommit(t, db, &hub.Write{Events: []hub.Event{payloadEvent(hub.EventTurnCompleted, id, "u", 0, `{}`)}})
		var docs int
		if err := db.queryRow(context.Background(), `SELECT COUNT(*) FROM search_docs WHERE thread_id = ?`, id).Scan(&docs); err != nil || docs < 3 {
			t.Errorf("chunks of %d: %d documents, %v; want segments", size, docs, err)
		}
	}
	for _, w := range words {
		p := mustSearch(t, db, searchAll(w))
		if len(p.Hits) != 4 {
			t.Errorf("%s: %d hits, want one per thread (4)", w, len(p.Hits))
		}
	}
}

// Prompts, thoughts, tool calls (title, command, paths) and titles are
// indexed; a title change replaces the title's document.
func TestSearchKinds(t *testing.T) {
	db := MustOpenDB(t)
	mustCommit(t, db, &hub.Write{Threads: []hub.Thread{thread("a", "c1", 1)}, Turns: []hub.Turn{turn("u", "a", 1)}, Events: []hub.Event{
		payloadEvent(hub.EventThreadUpdated, "a", "", 1, `{"thread":{"id":"a","title":"Grand Plan"}}`),
		payloadEvent(hub.EventTurnStarted, "a", "u", 2, `{"input":"please refactor the wombat"}`),
		textEvent(hub.EventThoughtDelta, "a", "u", 3, "pondering kangaroo"),
		payloadEvent(hub.EventToolCall, "a", "u", 4, `{"toolCall":{"toolCallId":"1","title":"Run tests","rawInput":{"command":["go","test","./platypus/..."]},"locations":[{"path":"/src/echidna.go"}]}}`),
		payloadEvent(hub.EventThreadUpdated, "a", "", 5, `{"thread":{"id":"a","title":"Grand Plan","status":"running"}}`),
		payloadEvent(hub.EventTurnCompleted, "a", "u", 6, `{}`),
	}})
	for q, kind := range map[string]string{
		"wombat": hub.SearchKindPrompt, "kangaroo": hub.SearchKindThought, "platypus": hub.SearchKindTool,
		"echidna": hub.SearchKindTool, `"run tests"`: hub.SearchKindTool, "grand": hub.SearchKindTitle,
	} {
		p := mustSearch(t, db, searchAll(q))
		if len(p.Hits) != 1 || p.Hits[0].Kind != kind || p.Hits[0].ThreadTitle != "title a" {
			t.Errorf("%s: %+v, want one %s hit", q, p.Hits, kind)
		}
	}
	internal := turn("ui", "a", 8)
	internal.Internal = true
	mustCommit(t, db, &hub.Write{Turns: []hub.Turn{internal}, Events: []hub.Event{
		payloadEvent(hub.EventTurnStarted, "a", "ui", 8, `{"input":"summarize the conversation"}`),
		textEvent(hub.EventMessageDelta, "a", "ui", 9, "a summary of the wombat"),
		payloadEvent(hub.EventTurnCompleted, "a", "ui", 10, `{}`),
	}})
	if p := mustSearch(t, db, searchAll("summarize OR summary")); len(p.Hits) != 0 {
		t.Errorf("an internal turn is found: %+v", p.Hits)
	}
	mustCommit(t, db, &hub.Write{Events: []hub.Event{payloadEvent(hub.EventThreadUpdated, "a", "", 7, `{"thread":{"id":"a","title":"Small Plan"}}`)}})
	if p := mustSearch(t, db, searchAll("grand")); len(p.Hits) != 0 {
		t.Errorf("the old title is still found: %+v", p.Hits)
	}
	if p := mustSearch(t, db, searchAll("small")); len(p.Hits) != 1 {
		t.Errorf("the new title: %+v", p.Hits)
	}
}

// A client finds only its threads; scope=all finds all; the filters
// narrow; pages follow the cursor newest first.
func TestSearchTenancyFiltersPages(t *testing.T) {
	db := MustOpenDB(t)
	a, b, sub := thread("a", "c1", 1), thread("b", "c2", 2), thread("sub", "c1", 3)
	b.Agent, sub.Cwd = "codex", "/src/c1/deeper"
	other := thread("other", "c1", 4)
	other.Cwd = "/src/c10"
	mustCommit(t, db, &hub.Write{Threads: []hub.Thread{a, b, sub, other}})
	for i, id := range []string{"a", "b", "sub", "other"} {
		mustCommit(t, db, &hub.Write{Events: []hub.Event{payloadEvent(hub.EventTurnStarted, id, "u"+id, 10*i, `{"input":"shared secretword"}`)}})
	}
	p := mustSearch(t, db, hub.SearchFilter{SearchQuery: hub.SearchQuery{Q: "secretword"}, ClientID: "c1"})
	if got := strings.Join(hitThreads(p), ","); got != "other,sub,a" {
		t.Errorf("c1 sees %s, want other,sub,a (newest first)", got)
	}
	if p := mustSearch(t, db, hub.SearchFilter{SearchQuery: hub.SearchQuery{Q: "secretword"}, ClientID: "c3"}); len(p.Hits) != 0 {
		t.Errorf("c3 sees %v", hitThreads(p))
	}
	if p := mustSearch(t, db, hub.SearchFilter{SearchQuery: hub.SearchQuery{Q: "secretword"}}); len(p.Hits) != 0 {
		t.Errorf("no client sees %v", hitThreads(p))
	}
	if p := mustSearch(t, db, searchAll("secretword")); len(p.Hits) != 4 {
		t.Errorf("scope all sees %v", hitThreads(p))
	}
	// The owner tokens are not text: searching one finds nothing, and a
	// query cannot reach the owner column.
	for _, q := range []string{ownerToken("c1"), `owner : "` + ownerToken("c1") + `"`, `{owner} : ` + ownerToken("c1")} {
		if p := mustSearch(t, db, searchAll(q)); len(p.Hits) != 0 {
			t.Errorf("%s: %v", q, hitThreads(p))
		}
		if p := mustSearch(t, db, hub.SearchFilter{SearchQuery: hub.SearchQuery{Q: q}, ClientID: "c2"}); len(p.Hits) != 0 {
			t.Errorf("c2, %s: %v", q, hitThreads(p))
		}
	}
	for _, c := range []struct {
		q    hub.SearchQuery
		want string
	}{
		{hub.SearchQuery{Agent: "codex"}, "b"},
		{hub.SearchQuery{Folder: "/src/c1"}, "sub,a"},
		{hub.SearchQuery{Folder: "/src/c1/"}, "sub,a"},
		{hub.SearchQuery{From: at(10), To: at(21)}, "sub,b"},
	} {
		c.q.Q = "secretword"
		p := mustSearch(t, db, hub.SearchFilter{SearchQuery: c.q, All: true})
		if got := strings.Join(hitThreads(p), ","); got != c.want {
			t.Errorf("%+v: %s, want %s", c.q, got, c.want)
		}
	}
	var got []string
	f := searchAll("secretword")
	f.Limit = 3
	for range 3 {
		p := mustSearch(t, db, f)
		got = append(got, hitThreads(p)...)
		if p.NextCursor == "" {
			break
		}
		f.Cursor = p.NextCursor
	}
	if strings.Join(got, ",") != "other,sub,b,a" {
		t.Errorf("pages: %v", got)
	}
}

func TestSearchBadQuery(t *testing.T) {
	db := MustOpenDB(t)
	for _, q := range []string{"", "  ", "a AND (", `"unterminated`, "nosuchcol:word", "NEAR(", "*"} {
		_, err := db.Search(context.Background(), searchAll(q))
		if hub.ErrorCode(err) != hub.CodeInvalidArgument {
			t.Errorf("%q: %v, want INVALID_ARGUMENT", q, err)
		} else if q != "" && q != "  " && !strings.Contains(err.Error(), "search: invalid query") {
			t.Errorf("%q: %v", q, err)
		}
	}
	f := searchAll("word")
	f.Cursor = "x1"
	_, err := db.Search(context.Background(), f)
	wantCode(t, err, hub.CodeInvalidArgument)
}

// Deleting a thread deletes its documents, their text and their terms
// from the files (FTS5 secure-delete; SQLite's secure_delete; compaction).
func TestSearchDeleteThread(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "switchboard.db")
	db := mustOpenAt(t, path, Options{})
	word := "vanishingterm" + strings.Repeat("q", 40)
	mustCommit(t, db, &hub.Write{Threads: []hub.Thread{thread("gone", "c1", 1), thread("kept", "c1", 2)}})
	mustCommit(t, db, &hub.Write{Events: []hub.Event{
		payloadEvent(hub.EventTurnStarted, "gone", "u", 1, `{"input":"`+word+` in a prompt"}`),
		textEvent(hub.EventMessageDelta, "gone", "u", 2, "the "+word[:10]),
		textEvent(hub.EventMessageDelta, "gone", "u", 3, word[10:]+" again"),
		payloadEvent(hub.EventTurnCompleted, "gone", "u", 4, `{}`),
		payloadEvent(hub.EventTurnStarted, "kept", "k", 5, `{"input":"keep me"}`),
	}})
	if p := mustSearch(t, db, searchAll(word)); len(p.Hits) != 2 {
		t.Fatalf("before: %d hits", len(p.Hits))
	}
	if len(rawFilesHold(t, path, word)) == 0 {
		t.Fatal("the term is not in the files before the deletion: the test proves nothing")
	}
	mustCommit(t, db, &hub.Write{DeleteThreads: []string{"gone"}})
	if p := mustSearch(t, db, searchAll(word)); len(p.Hits) != 0 {
		t.Errorf("after: %+v", p.Hits)
	}
	var n int
	if err := db.queryRow(ctx, `SELECT COUNT(*) FROM search_docs WHERE thread_id = 'gone'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("documents left: %d, %v", n, err)
	}
	if f := rawFilesHold(t, path, word); len(f) > 0 {
		t.Errorf("after the deletion, the term is still in %v", f)
	}
	if p := mustSearch(t, db, searchAll("keep")); len(p.Hits) != 1 {
		t.Errorf("the other thread: %+v", p.Hits)
	}
}

// Search includes archived threads, marked (issue 21); unarchiving
// clears the mark.
func TestSearchMarksArchived(t *testing.T) {
	db := mustOpenAt(t, filepath.Join(t.TempDir(), "switchboard.db"), Options{})
	mustCommit(t, db, &hub.Write{Threads: []hub.Thread{thread("shelved", "c1", 1), thread("live", "c1", 2)}})
	mustCommit(t, db, &hub.Write{Events: []hub.Event{
		payloadEvent(hub.EventTurnStarted, "shelved", "u", 1, `{"input":"shelfword in a prompt"}`),
		payloadEvent(hub.EventTurnStarted, "live", "k", 2, `{"input":"shelfword again"}`),
	}})
	archived := func() map[string]bool {
		m := map[string]bool{}
		for _, h := range mustSearch(t, db, searchAll("shelfword")).Hits {
			m[h.ThreadID] = h.Archived
		}
		return m
	}
	if got := archived(); len(got) != 2 || got["shelved"] || got["live"] {
		t.Fatalf("before archiving: %v", got)
	}
	yes, no := true, false
	mustCommit(t, db, &hub.Write{ThreadChanges: []hub.ThreadChange{{ThreadID: "shelved", Archived: &yes}}})
	if got := archived(); len(got) != 2 || !got["shelved"] || got["live"] {
		t.Errorf("archived: %v (want both threads, shelved marked)", got)
	}
	mustCommit(t, db, &hub.Write{ThreadChanges: []hub.ThreadChange{{ThreadID: "shelved", Archived: &no}}})
	if got := archived(); got["shelved"] {
		t.Errorf("unarchived: %v", got)
	}
}

// What a stop left streaming is rebuilt from the events at the next open;
// the index survives a restart.
func TestSearchRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "switchboard.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustCommit(t, db, &hub.Write{Threads: []hub.Thread{thread("a", "c1", 1)}, Events: []hub.Event{
		payloadEvent(hub.EventTurnStarted, "a", "u", 1, `{"input":"durable prompt"}`),
		textEvent(hub.EventMessageDelta, "a", "u", 2, "cut sho"),
		textEvent(hub.EventMessageDelta, "a", "u", 3, "rtened tail"),
	}})
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = mustOpenAt(t, path, Options{})
	waitIndexed(t, db)
	for _, q := range []string{"durable", "shortened", "tail"} {
		if p := mustSearch(t, db, searchAll(q)); len(p.Hits) != 1 {
			t.Errorf("%s after restart: %+v", q, p.Hits)
		}
	}
	// The message went on? No: a restart ends turns; the next chunk is a
	// new message.
	mustCommit(t, db, &hub.Write{Events: []hub.Event{textEvent(hub.EventMessageDelta, "a", "u2", 4, "fresh words")}})
	mustCommit(t, db, &hub.Write{Events: []hub.Event{payloadEvent(hub.EventTurnCompleted, "a", "u2", 5, `{}`)}})
	if p := mustSearch(t, db, searchAll("fresh")); len(p.Hits) != 1 {
		t.Errorf("fresh: %+v", p.Hits)
	}
}

func waitIndexed(tb testing.TB, db *DB) {
	tb.Helper()
	testkit.Eventually(tb, 60*time.Second, "background indexing to finish", db.IndexingDone)
}

// A database written with search off (as one written before the index
// existed) is indexed in the background at the next open with search on,
// and an interrupted backfill resumes where it stopped.
func TestSearchBackfillResumes(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "switchboard.db")
	db, err := Open(path, Options{SearchOff: true})
	if err != nil {
		t.Fatal(err)
	}
	const threads = 30
	for i := range threads {
		id := fmt.Sprintf("t%02d", i)
		mustCommit(t, db, &hub.Write{Threads: []hub.Thread{thread(id, "c1", i)}, Events: []hub.Event{
			payloadEvent(hub.EventTurnStarted, id, "u"+id, i, `{"input":"old history"}`),
			textEvent(hub.EventMessageDelta, id, "u"+id, i, "backfilled ans"),
			textEvent(hub.EventMessageDelta, id, "u"+id, i, "wer "+id),
			payloadEvent(hub.EventTurnCompleted, id, "u"+id, i, `{}`),
		}})
	}
	if p := mustSearch(t, db, searchAll("answer")); len(p.Hits) != 0 {
		t.Fatalf("search off indexed %d", len(p.Hits))
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	waitIndexed(t, db)
	if p := mustSearch(t, db, searchAll("answer")); len(p.Hits) != threads || p.Indexing {
		t.Fatalf("after the backfill: %d hits (indexing %v), want %d", len(p.Hits), p.Indexing, threads)
	}
	// Pretend it stopped after thread t09: t05's documents, before that
	// point, are not indexed again; t20's, after it, are.
	var rowid int64
	if err := db.queryRow(ctx, `SELECT rowid FROM threads WHERE id = 't09'`).Scan(&rowid); err != nil {
		t.Fatal(err)
	}
	err = db.onWriter(ctx, func(ctx context.Context) error {
		return db.inTx(ctx, func(ctx context.Context) error {
			for _, q := range []string{
				`DELETE FROM search_fts WHERE rowid IN (SELECT seq FROM search_docs WHERE thread_id IN ('t05', 't20'))`,
				`DELETE FROM search_docs WHERE thread_id IN ('t05', 't20')`,
				fmt.Sprintf(`UPDATE search_state SET backfill_below = (SELECT MAX(seq) + 1 FROM events), next_thread = %d`, rowid),
			} {
				if _, err := db.conn.ExecContext(ctx, q); err != nil {
					return err
				}
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = mustOpenAt(t, path, Options{})
	waitIndexed(t, db)
	p := mustSearch(t, db, searchAll("answer"))
	got := map[string]bool{}
	for _, id := range hitThreads(p) {
		got[id] = true
	}
	if len(p.Hits) != threads-1 || got["t05"] || !got["t20"] {
		t.Errorf("after resuming: %d hits, t05 %v (want false), t20 %v (want true)", len(p.Hits), got["t05"], got["t20"])
	}
}

func TestChunkText(t *testing.T) {
	for _, c := range []struct{ payload, want string }{
		{`{"text":"plain words "}`, "plain words "},
		{`{"text":"quote \" and \\ and \u00e9"}`, `quote " and \ and é`},
		{`{"text":""}`, ""},
		{`{"other":1,"text":"late"}`, "late"},
		{`{"text":"x"} `, "x"},
		{`not json`, ""},
		{``, ""},
	} {
		if got := chunkText([]byte(c.payload)); got != c.want {
			t.Errorf("%s: %q, want %q", c.payload, got, c.want)
		}
	}
}

// Text an agent wrote cannot pose as a match in a snippet.
func TestSearchSnippetMarksUnforgeable(t *testing.T) {
	db := MustOpenDB(t)
	fake := "\ue000fake\ue001 \ue001\ue000"
	mustCommit(t, db, &hub.Write{Threads: []hub.Thread{thread("a", "c1", 1)}, Events: []hub.Event{
		payloadEvent(hub.EventTurnStarted, "a", "u", 1, `{"input":"real `+fake+` words"}`),
	}})
	p := mustSearch(t, db, searchAll("real"))
	if len(p.Hits) != 1 {
		t.Fatalf("%+v", p.Hits)
	}
	var matched, all string
	for _, s := range p.Hits[0].Snippet {
		all += s.Text
		if s.Match {
			matched += s.Text
		}
	}
	if matched != "real" || all != "real "+fake+" words" {
		t.Errorf("snippet %+v: matched %q", p.Hits[0].Snippet, matched)
	}
}

// A maintenance open (db compact) leaves the index's state and its
// streaming documents alone, even with a hub's stale index pending.
func TestSearchMaintenanceOpen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "switchboard.db")
	db, err := Open(path, Options{SearchOff: true})
	if err != nil {
		t.Fatal(err)
	}
	mustCommit(t, db, &hub.Write{Threads: []hub.Thread{thread("a", "c1", 1)}, Events: []hub.Event{
		payloadEvent(hub.EventTurnStarted, "a", "u", 1, `{"input":"kept as it was"}`),
	}})
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	m := mustOpenAt(t, path, Options{Maintenance: true})
	if _, err := m.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	var below int64
	if err := m.queryRow(ctx, `SELECT backfill_below FROM search_state`).Scan(&below); err != nil || below != -1 {
		t.Errorf("backfill_below %d, %v: want -1 (stale) left as it was", below, err)
	}
	if !m.IndexingDone() {
		t.Error("a maintenance open runs background work")
	}
}

// After a failed write the writer forgets its streaming messages, so the
// rest of one starts a new document; the next open rebuilds the message
// whole from the events, leaves nothing marked streaming, and finishes.
func TestSearchRebuildAfterWriterReset(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "switchboard.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustCommit(t, db, &hub.Write{Threads: []hub.Thread{thread("a", "c1", 1)}})
	mustCommit(t, db, &hub.Write{Events: []hub.Event{textEvent(hub.EventMessageDelta, "a", "u", 1, "the kangaroo")}})
	// A Write that fails (an event without a type) resets the indexer.
	if err := db.Commit(ctx, &hub.Write{Events: []hub.Event{{ThreadID: "a"}}}); hub.ErrorCode(err) != hub.CodeInvalidArgument {
		t.Fatalf("the failing write: %v", err)
	}
	mustCommit(t, db, &hub.Write{Events: []hub.Event{textEvent(hub.EventMessageDelta, "a", "u", 2, "court judges")}})
	var docs int
	if err := db.queryRow(ctx, `SELECT COUNT(*) FROM search_docs WHERE thread_id = 'a'`).Scan(&docs); err != nil || docs != 2 {
		t.Fatalf("%d documents, %v: want the message split in two by the reset", docs, err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = mustOpenAt(t, path, Options{})
	waitIndexed(t, db)
	if p := mustSearch(t, db, searchAll("kangaroocourt")); len(p.Hits) != 1 {
		t.Errorf("the word across the split after the rebuild: %+v", p.Hits)
	}
	var streaming int
	if err := db.queryRow(ctx, `SELECT COUNT(*) FROM search_docs WHERE streaming = 1`).Scan(&streaming); err != nil || streaming != 0 {
		t.Errorf("%d documents left streaming, %v", streaming, err)
	}
}
