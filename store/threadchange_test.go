package store

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

func ptr(s string) *string { return &s }

// A thread change writes only the fields it sets: a rename made from a
// read of the thread while a turn ran does not write "running" back over
// the turn's end, nor the end's "idle" over a new turn (issue 14, item 1).
func TestThreadChangeIsFieldWise(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	th := thread("t1", "c1", 1)
	th.Summary, th.AgentSessionID = "so far", "sess-1"
	mustCommit(t, db, writeThreads(th))

	// A turn starts; the rename's caller read the thread before that.
	mustCommit(t, db, &hub.Write{ThreadChanges: []hub.ThreadChange{{ThreadID: "t1", Status: hub.ThreadRunning, UpdatedAt: at(10)}}})
	rename := &hub.Write{ThreadChanges: []hub.ThreadChange{{ThreadID: "t1", Title: ptr("renamed"), UpdatedAt: at(5), Announce: true}}}
	mustCommit(t, db, rename)
	got, err := db.GetThread(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != hub.ThreadRunning || got.Title != "renamed" || got.Summary != "so far" || got.AgentSessionID != "sess-1" {
		t.Fatalf("after a rename during a turn: %+v", got)
	}
	if !got.UpdatedAt.Equal(at(10)) {
		t.Errorf("updatedAt %v went back from %v", got.UpdatedAt, at(10))
	}
	// The change's thread and its announcement are the row as committed.
	if c := rename.ThreadChanges[0].Thread; c.Status != hub.ThreadRunning || c.Title != "renamed" {
		t.Errorf("change's thread %+v", c)
	}
	if len(rename.Events) != 1 || rename.Events[0].Seq == 0 || rename.Events[0].Type != hub.EventThreadUpdated ||
		rename.Events[0].ClientID != "c1" || rename.Events[0].ThreadID != "t1" {
		t.Fatalf("announcement %+v", rename.Events)
	}
	var p struct{ Thread hub.Thread }
	if err := json.Unmarshal(rename.Events[0].Payload, &p); err != nil || p.Thread.Status != hub.ThreadRunning || p.Thread.Title != "renamed" {
		t.Fatalf("announced thread %s (%v): want running and renamed", rename.Events[0].Payload, err)
	}
	stored, err := db.Events(ctx, hub.EventFilter{ThreadID: "t1", All: true})
	if err != nil || len(stored) != 1 || stored[0].Seq != rename.Events[0].Seq {
		t.Fatalf("stored events %+v (%v)", stored, err)
	}

	// The turn ends; a session id recorded later keeps the rest.
	mustCommit(t, db, &hub.Write{ThreadChanges: []hub.ThreadChange{{ThreadID: "t1", Status: hub.ThreadIdle, UpdatedAt: at(20)}}})
	mustCommit(t, db, &hub.Write{ThreadChanges: []hub.ThreadChange{{ThreadID: "t1", AgentSessionID: ptr("sess-2")}}})
	got, _ = db.GetThread(ctx, "t1")
	if got.Status != hub.ThreadIdle || got.Title != "renamed" || got.AgentSessionID != "sess-2" || !got.UpdatedAt.Equal(at(20)) {
		t.Fatalf("after the turn's end: %+v", got)
	}
}

// A change to a missing or deleted thread is NOT_FOUND and changes
// nothing: a rename racing a deletion never writes text into the
// tombstone.
func TestThreadChangeDeletedThread(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	mustCommit(t, db, writeThreads(thread("t1", "c1", 1)))
	tomb := hub.Thread{ID: "t1", ClientID: "c1", Status: hub.ThreadClosed, Deleted: true}
	mustCommit(t, db, &hub.Write{Threads: []hub.Thread{tomb}, DeleteThreads: []string{"t1"}})
	for _, id := range []string{"t1", "nope"} {
		w := &hub.Write{ThreadChanges: []hub.ThreadChange{{ThreadID: id, Title: ptr("secret title"), Announce: true}},
			Events: []hub.Event{event(hub.EventMessageDelta, id, "", 1)}}
		wantCode(t, db.Commit(ctx, w), hub.CodeNotFound)
	}
	var title string
	if err := db.rdb.QueryRowContext(ctx, `SELECT title FROM threads WHERE id = 't1'`).Scan(&title); err != nil || title != "" {
		t.Fatalf("tombstone title %q (%v)", title, err)
	}
	if evs, _ := db.Events(ctx, hub.EventFilter{All: true}); len(evs) != 0 {
		t.Fatalf("a refused change stored events: %+v", evs)
	}
}

// Changes from many goroutines, each from its own stale idea of the
// thread, keep every field each last set: the status is that of the last
// status change, whatever the renames did in between.
func TestThreadChangeConcurrent(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	mustCommit(t, db, writeThreads(thread("t1", "c1", 1)))
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 50 {
				w := &hub.Write{ThreadChanges: []hub.ThreadChange{{ThreadID: "t1", Title: ptr(fmt.Sprintf("g%d-%d", g, i)), UpdatedAt: at(i), Announce: true}}}
				if err := db.Commit(ctx, w); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	for i := range 100 {
		st := hub.ThreadRunning
		if i%2 == 1 {
			st = hub.ThreadIdle
		}
		mustCommit(t, db, &hub.Write{ThreadChanges: []hub.ThreadChange{{ThreadID: "t1", Status: st, UpdatedAt: at(i)}}})
	}
	wg.Wait()
	got, _ := db.GetThread(ctx, "t1")
	if got.Status != hub.ThreadIdle {
		t.Fatalf("status %q after the last change to idle", got.Status)
	}
}

// ListThreads filters by status (restart recovery finds the threads left
// "running").
func TestListThreadsByStatus(t *testing.T) {
	db := MustOpenDB(t)
	a, b := thread("a", "c1", 1), thread("b", "c2", 2)
	b.Status = hub.ThreadRunning
	mustCommit(t, db, writeThreads(a, b, thread("c", "c1", 3)))
	ids, _ := listAll(t, db, hub.ThreadFilter{All: true, Status: hub.ThreadRunning, Limit: 10})
	if len(ids) != 1 || ids[0] != "b" {
		t.Fatalf("running threads %v, want [b]", ids)
	}
}
