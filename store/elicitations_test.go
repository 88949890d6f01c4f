package store

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

func elicitation(id, threadID string, i int) hub.Elicitation {
	return hub.Elicitation{ID: id, ThreadID: threadID, TurnID: "u", Mode: hub.ElicitationForm, Message: "m " + id,
		RequestedSchema: &hub.ElicitationSchema{Type: "object", Properties: hub.ElicitationProperties{{Name: "b", Type: "string"}, {Name: "a", Type: "boolean"}}},
		Status:          hub.ElicitationPending, Deadline: at(i + 100), CreatedAt: at(i), Agent: "fake"}
}

// TestElicitations: stored and read back whole (the fields' order kept),
// answered once (CONFLICT after, NOT_FOUND for none), listed by filter
// and page, hidden and deleted with their thread.
func TestElicitations(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	w := &hub.Write{Threads: []hub.Thread{thread("t1", "c1", 1), thread("t2", "c2", 1)}}
	for i := range 5 {
		th := "t1"
		if i == 4 {
			th = "t2"
		}
		w.Elicitations = append(w.Elicitations, elicitation(fmt.Sprintf("e%d", i), th, i))
	}
	mustCommit(t, db, w)
	got, err := db.GetElicitation(ctx, "e0")
	if err != nil || !reflect.DeepEqual(got, w.Elicitations[0]) {
		t.Fatalf("GetElicitation: %v\n got %+v\nwant %+v", err, got, w.Elicitations[0])
	}
	_, err = db.GetElicitation(ctx, "nope")
	wantCode(t, err, hub.CodeNotFound)

	done := got
	d := at(50)
	done.Status, done.DecidedBy, done.DecidedAt = hub.ElicitationAccepted, "window", &d
	mustCommit(t, db, &hub.Write{AnswerElicitation: &done})
	again := done
	again.Status = hub.ElicitationDeclined
	wantCode(t, db.Commit(ctx, &hub.Write{AnswerElicitation: &again}), hub.CodeConflict)
	missing := again
	missing.ID = "nope"
	wantCode(t, db.Commit(ctx, &hub.Write{AnswerElicitation: &missing}), hub.CodeNotFound)
	if got, _ := db.GetElicitation(ctx, "e0"); got.Status != hub.ElicitationAccepted || got.DecidedBy != "window" {
		t.Errorf("answered: %+v", got)
	}

	ids := func(f hub.ElicitationFilter) ([]string, string) {
		t.Helper()
		els, next, err := db.QueryElicitations(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range els {
			out = append(out, e.ID)
		}
		return out, next
	}
	for name, tc := range map[string]struct {
		f    hub.ElicitationFilter
		want []string
	}{
		"client":    {hub.ElicitationFilter{ClientID: "c1"}, []string{"e3", "e2", "e1", "e0"}},
		"pending":   {hub.ElicitationFilter{ClientID: "c1", Status: hub.ElicitationPending}, []string{"e3", "e2", "e1"}},
		"decidedBy": {hub.ElicitationFilter{All: true, DecidedBy: "win"}, []string{"e0"}},
		"all":       {hub.ElicitationFilter{All: true}, []string{"e4", "e3", "e2", "e1", "e0"}},
		"none":      {hub.ElicitationFilter{}, nil},
		"thread":    {hub.ElicitationFilter{All: true, ThreadID: "t2"}, []string{"e4"}},
		"from":      {hub.ElicitationFilter{All: true, From: at(3)}, []string{"e4", "e3"}},
	} {
		if got, _ := ids(tc.f); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", name, got, tc.want)
		}
	}
	page, next := ids(hub.ElicitationFilter{All: true, Limit: 2})
	page2, next2 := ids(hub.ElicitationFilter{All: true, Limit: 2, Cursor: next})
	page3, next3 := ids(hub.ElicitationFilter{All: true, Limit: 2, Cursor: next2})
	if !reflect.DeepEqual(append(append(page, page2...), page3...), []string{"e4", "e3", "e2", "e1", "e0"}) || next3 != "" {
		t.Errorf("pages %v %v %v (%q)", page, page2, page3, next3)
	}
	_, _, err = db.QueryElicitations(ctx, hub.ElicitationFilter{All: true, Cursor: "!!"})
	wantCode(t, err, hub.CodeInvalidArgument)

	mustCommit(t, db, &hub.Write{DeleteThreads: []string{"t1"}})
	if got, _ := ids(hub.ElicitationFilter{All: true}); !reflect.DeepEqual(got, []string{"e4"}) {
		t.Errorf("after deleting t1: %v", got)
	}
	var n int
	if err := db.queryRow(ctx, `SELECT count(*) FROM elicitations WHERE thread_id = 't1'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d rows of a deleted thread left (%v)", n, err)
	}
}
