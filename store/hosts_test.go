package store

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// TestHostSeq: the newest copy's host seq of exactly the host named — not
// a host whose name ends the same ("mybox" is not "box"), with a host's own
// "@" in its ids (split at the last one), this hub's own events (no
// hostSeq) and a copy without one (a tombstone) left out — through the
// index of migration 0019/0020.
func TestHostSeq(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	for _, h := range []string{"box", "mybox"} {
		if got, err := db.HostSeq(ctx, h); err != nil || got != 0 {
			t.Fatalf("HostSeq(%s) on an empty log = %d, %v; want 0", h, got, err)
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
		ev("th3@box@mybox", `{"hostSeq":41}`),
	}})
	for _, c := range []struct {
		host string
		want int64
	}{{"box", 9}, {"mybox", 41}, {"other", 0}, {"ox", 0}} {
		if got, err := db.HostSeq(ctx, c.host); err != nil || got != c.want {
			t.Errorf("HostSeq(%s) = %d, %v; want %d", c.host, got, err, c.want)
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
