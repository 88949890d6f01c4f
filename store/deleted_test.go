package store

import (
	"context"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// TestDeletedThreadInvisible: once a thread is marked deleted, no read
// shows it, its turns, its permissions or its events.
func TestDeletedThreadInvisible(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	gone, kept := thread("gone", "c1", 1), thread("kept", "c1", 2)
	w := &hub.Write{
		Threads:     []hub.Thread{gone, kept},
		Turns:       []hub.Turn{turn("gu", "gone", 1), turn("ku", "kept", 2)},
		Permissions: []hub.Permission{permission("gp", "gone", "gu", 1), permission("kp", "kept", "ku", 2)},
		Events:      []hub.Event{event(hub.EventMessageDelta, "gone", "gu", 1), event(hub.EventMessageDelta, "kept", "ku", 2)},
	}
	mustCommit(t, db, w)
	gone.Deleted = true
	del := event(hub.EventThreadUpdated, "gone", "", 3)
	mustCommit(t, db, &hub.Write{Threads: []hub.Thread{gone}, Events: []hub.Event{del}})

	_, err := db.GetThread(ctx, "gone")
	wantCode(t, err, hub.CodeNotFound)
	_, err = db.GetTurn(ctx, "gu")
	wantCode(t, err, hub.CodeNotFound)
	_, err = db.GetPermission(ctx, "gp")
	wantCode(t, err, hub.CodeNotFound)

	for _, f := range []hub.ThreadFilter{{ClientID: "c1"}, {All: true}, {All: true, Cwd: gone.Cwd}} {
		ths, _, err := db.ListThreads(ctx, f)
		if err != nil || len(ths) != 1 || ths[0].ID != "kept" {
			t.Errorf("ListThreads(%+v): %+v, %v", f, ths, err)
		}
	}
	if ts, err := db.ListTurns(ctx, "gone", true); err != nil || len(ts) != 0 {
		t.Errorf("ListTurns: %+v, %v", ts, err)
	}
	if ts, err := db.RunningTurns(ctx); err != nil || len(ts) != 1 || ts[0].ID != "ku" {
		t.Errorf("RunningTurns: %+v, %v", ts, err)
	}
	for _, f := range []hub.PermissionFilter{{ClientID: "c1"}, {All: true}, {All: true, ThreadID: "gone"}} {
		ps, err := db.ListPermissions(ctx, f)
		if err != nil || (f.ThreadID == "" && (len(ps) != 1 || ps[0].ID != "kp")) || (f.ThreadID != "" && len(ps) != 0) {
			t.Errorf("ListPermissions(%+v): %+v, %v", f, ps, err)
		}
	}
	for _, f := range []hub.EventFilter{{ClientID: "c1"}, {All: true}, {All: true, ThreadID: "gone"}, {All: true, TurnID: "gu"}} {
		es, err := db.Events(ctx, f)
		for _, e := range es {
			if e.ThreadID == "gone" {
				t.Errorf("Events(%+v): event %d of the deleted thread", f, e.Seq)
			}
		}
		if err != nil {
			t.Error(err)
		}
	}
	// The log's position still counts them.
	if last, _ := db.LastSeq(ctx); last != 3 {
		t.Errorf("LastSeq %d, want 3", last)
	}
}
