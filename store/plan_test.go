package store

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// TestQueryPlans: the hot queries are index searches, never a full scan of
// a table or a sort in a temporary b-tree.
func TestQueryPlans(t *testing.T) {
	db := MustOpenDB(t)
	cursor := encodeCursor(5, "x")
	type query struct {
		name string
		sql  string
		args []any
	}
	var qs []query
	for _, f := range []hub.ThreadFilter{{ClientID: "c"}, {ClientID: "c", Cursor: cursor}, {All: true, Cursor: cursor}, {ClientID: "c", Cwd: "/x"}} {
		q, args, _, err := threadsQuery(f)
		if err != nil {
			t.Fatal(err)
		}
		qs = append(qs, query{"threads", q, args})
	}
	for _, f := range []hub.EventFilter{{All: true, After: 5}, {ClientID: "c", After: 5}, {All: true, ThreadID: "t"}, {ClientID: "c", ThreadID: "t", TurnID: "u"}} {
		q, args, _ := eventsQuery(f)
		qs = append(qs, query{"events", q, args})
	}
	qs = append(qs,
		query{"turns", turnSelect + ` WHERE t.thread_id = ? AND t.internal = 0 ORDER BY t.started_at, t.rowid`, []any{"t"}},
		query{"running", turnSelect + ` WHERE t.status = 'running' ORDER BY t.started_at, t.rowid`, nil},
		query{"turn", turnSelect + ` WHERE t.id = ?`, []any{"u"}},
		query{"pending", permissionSelect + ` WHERE 1 AND th.client_id = ? AND p.status = ? ORDER BY p.created_at, p.rowid`, []any{"c", "pending"}},
		query{"lastSeq", `SELECT COALESCE(MAX(seq), 0) FROM events`, nil},
	)
	for _, q := range qs {
		rows, err := db.rdb.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+q.sql, q.args...)
		if err != nil {
			t.Fatalf("%s: %v", q.name, err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		text := strings.Join(plan, "; ")
		if strings.Contains(text, "TEMP B-TREE") || (strings.Contains(text, "SCAN ") && !strings.Contains(text, "USING INDEX")) {
			t.Errorf("%s: plan %q", q.name, text)
		}
	}
}
