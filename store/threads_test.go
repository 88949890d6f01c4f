package store

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

func TestThreadRoundTrip(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	full := thread("t1", "c1", 1)
	full.Summary, full.AgentSessionID, full.Status = "we did things", "sess-9", hub.ThreadRunning
	zero := hub.Thread{ID: "t2", ClientID: "c1"} // zero times, empty strings
	mustCommit(t, db, writeThreads(full, zero))
	for _, want := range []hub.Thread{full, zero} {
		got, err := db.GetThread(ctx, want.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("GetThread(%s):\n got %+v\nwant %+v", want.ID, got, want)
		}
	}
	// Upsert by id replaces every field.
	full.Title, full.Status, full.UpdatedAt = "renamed", hub.ThreadIdle, at(50)
	mustCommit(t, db, writeThreads(full))
	if got, _ := db.GetThread(ctx, "t1"); !reflect.DeepEqual(got, full) {
		t.Errorf("after upsert:\n got %+v\nwant %+v", got, full)
	}
	_, err := db.GetThread(ctx, "nope")
	wantCode(t, err, hub.CodeNotFound)
}

// listAll pages through f's threads with the given page size.
func listAll(t *testing.T, db *DB, f hub.ThreadFilter) (ids []string, pages int) {
	t.Helper()
	for {
		page, next, err := db.ListThreads(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, th := range page {
			ids = append(ids, th.ID)
		}
		if next == "" {
			return ids, pages
		}
		if len(page) != f.Limit {
			t.Fatalf("page %d: %d threads and a next cursor, want %d", pages, len(page), f.Limit)
		}
		f.Cursor = next
		if pages > 1000 {
			t.Fatal("paging does not end")
		}
	}
}

func TestListThreadsPaging(t *testing.T) {
	db := MustOpenDB(t)
	// 120 threads, 3 clients; updated_at in groups of 4 (ties), ids not in
	// time order.
	w := &hub.Write{}
	want := map[string][]string{}
	for i := range 120 {
		client := fmt.Sprintf("c%d", i%3)
		th := thread(fmt.Sprintf("t%03d", (i*37)%120), client, i/4)
		w.Threads = append(w.Threads, th)
	}
	mustCommit(t, db, w)
	// Expected order: UpdatedAt desc, then ID desc.
	sorted := append([]hub.Thread(nil), w.Threads...)
	for i := range sorted {
		for j := i + 1; j < len(sorted); j++ {
			a, b := sorted[i], sorted[j]
			if b.UpdatedAt.After(a.UpdatedAt) || (b.UpdatedAt.Equal(a.UpdatedAt) && b.ID > a.ID) {
				sorted[i], sorted[j] = b, a
			}
		}
	}
	for _, th := range sorted {
		want[th.ClientID] = append(want[th.ClientID], th.ID)
		want["*"] = append(want["*"], th.ID)
	}
	for _, limit := range []int{1, 7, 40, 50, 500} {
		for _, client := range []string{"c0", "c1", "c2", "*"} {
			f := hub.ThreadFilter{ClientID: client, All: client == "*", Limit: limit}
			got, pages := listAll(t, db, f)
			if !reflect.DeepEqual(got, want[client]) {
				t.Errorf("limit %d client %s: got %v\nwant %v", limit, client, got, want[client])
			}
			if wantPages := max(1, (len(want[client])+limit-1)/limit); pages != wantPages {
				t.Errorf("limit %d client %s: %d pages, want %d", limit, client, pages, wantPages)
			}
		}
	}
	// Default limit 50, max 500.
	page, next, _ := db.ListThreads(context.Background(), hub.ThreadFilter{All: true})
	if len(page) != 50 || next == "" {
		t.Errorf("default page: %d threads, next %q", len(page), next)
	}
	page, _, _ = db.ListThreads(context.Background(), hub.ThreadFilter{All: true, Limit: 100000})
	if len(page) != 120 {
		t.Errorf("huge limit: %d threads", len(page))
	}
}

func TestListThreadsFilters(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	a, b, c := thread("a", "c1", 1), thread("b", "c1", 2), thread("c", "c2", 3)
	b.Cwd = "/elsewhere"
	mustCommit(t, db, writeThreads(a, b, c))
	for name, tc := range map[string]struct {
		f    hub.ThreadFilter
		want []string
	}{
		"client":         {hub.ThreadFilter{ClientID: "c1"}, []string{"b", "a"}},
		"other client":   {hub.ThreadFilter{ClientID: "c2"}, []string{"c"}},
		"unknown":        {hub.ThreadFilter{ClientID: "c9"}, nil},
		"no client":      {hub.ThreadFilter{}, nil},
		"all":            {hub.ThreadFilter{All: true}, []string{"c", "b", "a"}},
		"all ignores id": {hub.ThreadFilter{All: true, ClientID: "c2"}, []string{"c", "b", "a"}},
		"cwd":            {hub.ThreadFilter{ClientID: "c1", Cwd: "/elsewhere"}, []string{"b"}},
		"cwd all":        {hub.ThreadFilter{All: true, Cwd: "/src/c1"}, []string{"a"}},
	} {
		t.Run(name, func(t *testing.T) {
			page, next, err := db.ListThreads(ctx, tc.f)
			if err != nil || next != "" {
				t.Fatalf("err %v, next %q", err, next)
			}
			var got []string
			for _, th := range page {
				got = append(got, th.ID)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	for _, bad := range []string{"%%%", "bm90LWEtY3Vyc29y" /* "not-a-cursor" */} {
		_, _, err := db.ListThreads(ctx, hub.ThreadFilter{All: true, Cursor: bad})
		wantCode(t, err, hub.CodeInvalidArgument)
	}
}

// Session state is set only through Write.SessionStates: a nil field keeps
// the stored value, and thread upserts never change it.
func TestThreadSessionState(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	th := thread("t1", "c1", 1)
	mustCommit(t, db, writeThreads(th))
	if got, _ := db.GetThread(ctx, "t1"); got.Modes != nil || got.ConfigOptions != nil {
		t.Fatalf("new thread has session state: %s %s", got.Modes, got.ConfigOptions)
	}
	modes := `{"currentModeId":"default","availableModes":[{"id":"default","name":"Default"}]}`
	opts := `[{"id":"model","currentValue":"a"}]`
	mustCommit(t, db, &hub.Write{SessionStates: []hub.SessionState{{ThreadID: "t1", Modes: []byte(modes), ConfigOptions: []byte(opts)}}})
	opts2 := `[{"id":"model","currentValue":"b"}]`
	mustCommit(t, db, &hub.Write{SessionStates: []hub.SessionState{{ThreadID: "t1", ConfigOptions: []byte(opts2)}}})
	cmds := `[{"name":"init","description":"Write AGENTS.md"}]`
	mustCommit(t, db, &hub.Write{SessionStates: []hub.SessionState{{ThreadID: "t1", AvailableCommands: []byte(cmds)}}})
	// An upsert from an older read (no session state) keeps it.
	th.Title = "renamed"
	mustCommit(t, db, writeThreads(th))
	got, err := db.GetThread(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Modes) != modes || string(got.ConfigOptions) != opts2 || string(got.AvailableCommands) != cmds || got.Title != "renamed" {
		t.Errorf("got modes %s, config %s, commands %s, title %q", got.Modes, got.ConfigOptions, got.AvailableCommands, got.Title)
	}
	ts, _, err := db.ListThreads(ctx, hub.ThreadFilter{All: true})
	if err != nil || len(ts) != 1 || string(ts[0].Modes) != modes {
		t.Errorf("ListThreads: %+v %v", ts, err)
	}
}

// Compaction's fields are written field-wise through ThreadChanges: the
// summary, the agent session id (cleared) and compactedAt, which a thread
// upsert never changes.
func TestThreadCompactionState(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	th := thread("t1", "c1", 1)
	th.AgentSessionID = "sess-1"
	mustCommit(t, db, writeThreads(th))
	if got, _ := db.GetThread(ctx, "t1"); got.CompactedAt != nil || got.Summary != "" {
		t.Fatalf("new thread: compactedAt %v summary %q", got.CompactedAt, got.Summary)
	}
	summary, none := "We fixed the build.", ""
	at := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	mustCommit(t, db, &hub.Write{ThreadChanges: []hub.ThreadChange{{ThreadID: "t1", Summary: &summary, AgentSessionID: &none}}})
	mustCommit(t, db, &hub.Write{ThreadChanges: []hub.ThreadChange{{ThreadID: "t1", CompactedAt: &at}}})
	got, err := db.GetThread(ctx, "t1")
	if err != nil || got.Summary != summary || got.AgentSessionID != "" || got.CompactedAt == nil || !got.CompactedAt.Equal(at) {
		t.Fatalf("after compaction: %+v %v", got, err)
	}
	got.Title = "renamed"
	mustCommit(t, db, writeThreads(got))
	if again, _ := db.GetThread(ctx, "t1"); again.CompactedAt == nil || !again.CompactedAt.Equal(at) || again.Summary != summary {
		t.Fatalf("an upsert changed compaction state: %+v", again)
	}
}

// Client capabilities are stored with the thread and kept by an upsert
// that lacks them (they are set once, at creation).
func TestThreadClientCapabilities(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	th := thread("t1", "c1", 1)
	th.ClientCapabilities = &hub.ClientCapabilities{FS: hub.FSCapabilities{ReadTextFile: true}, Terminal: true}
	mustCommit(t, db, writeThreads(th, thread("t2", "c1", 2)))
	th.ClientCapabilities, th.Title = nil, "renamed"
	mustCommit(t, db, writeThreads(th))
	got, err := db.GetThread(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	if c := got.ClientCapabilities; c == nil || !c.FS.ReadTextFile || c.FS.WriteTextFile || !c.Terminal || got.Title != "renamed" {
		t.Errorf("t1: %+v", got)
	}
	if got, _ := db.GetThread(ctx, "t2"); got.ClientCapabilities != nil {
		t.Errorf("t2 has capabilities: %+v", got.ClientCapabilities)
	}
}
