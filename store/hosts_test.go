package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// TestHostSeq: the newest copy's host seq of exactly the host named — not
// a host whose name ends the same ("mybox" is not "box"), with a host's own
// "@" in its ids (split at the last one), this hub's own events (no
// hostSeq) and a copy without one (a tombstone) left out — through the
// index of migration 0019/0020. With it, the host log its copy came from.
func TestHostSeq(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	for _, h := range []string{"box", "mybox"} {
		if got, log, err := db.HostSeq(ctx, h); err != nil || got != 0 || log != "" {
			t.Fatalf("HostSeq(%s) on an empty log = %d, %q, %v; want 0", h, got, log, err)
		}
	}
	ev := func(thread string, payload string) hub.Event {
		e := delta(0)
		e.ThreadID = thread
		if payload != "" {
			e.Payload = []byte(payload)
		}
		return e
	}
	mustCommit(t, db, &hub.Write{Events: []hub.Event{
		ev("th1@box", `{"hostSeq":7}`),
		ev("x@other@box", `{"hostSeq":9}`), // box's, an id box made up
		ev("th2@mybox", `{"hostSeq":40}`),
		ev("t1", `{"hostSeq":99}`), // this hub's own id: no host
		ev("th1@box", `{"text":"no seq"}`),
		ev("th3@box@mybox", `{"hostSeq":41,"hostLog":"b1"}`),
	}})
	for _, c := range []struct {
		host string
		want int64
		log  string // the newest copy's host log ("" before ADR 0053)
	}{{"box", 9, ""}, {"mybox", 41, "b1"}, {"other", 0, ""}, {"ox", 0, ""}} {
		if got, log, err := db.HostSeq(ctx, c.host); err != nil || got != c.want || log != c.log {
			t.Errorf("HostSeq(%s) = %d, %q, %v; want %d, %q", c.host, got, log, err, c.want, c.log)
		}
	}

	// The query is one search of the index, not a scan of the log.
	var plan []string
	rows, err := db.rdb.QueryContext(ctx, "EXPLAIN QUERY PLAN "+hostSeqQuery, "box")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	rows.Close()
	if p := strings.Join(plan, "; "); !strings.Contains(p, "SEARCH events USING INDEX events_host_seq") || strings.Contains(p, "TEMP B-TREE") {
		t.Errorf("HostSeq's plan %q, want a search of events_host_seq", p)
	}
}

// TestLogID: a database has one log id from its creation, the same at
// every Open of the file, and another database has another.
func TestLogID(t *testing.T) {
	dir := t.TempDir()
	open := func(name string) string {
		db, err := Open(filepath.Join(dir, name), Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		return db.LogID()
	}
	first := open("a.db")
	if len(first) != 32 || strings.Trim(first, "0123456789abcdef") != "" {
		t.Fatalf("log id %q, want 32 hex digits", first)
	}
	if again := open("a.db"); again != first {
		t.Fatalf("the same file's log id changed: %q then %q", first, again)
	}
	if other := open("b.db"); other == first {
		t.Fatalf("two databases share the log id %q", first)
	}
}
