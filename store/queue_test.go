package store

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

func queued(id, threadID string, pos int, input string) hub.QueuedPrompt {
	return hub.QueuedPrompt{ID: id, ThreadID: threadID, Position: pos, Input: input, CreatedAt: at(pos), UpdatedAt: at(pos)}
}

// A queued prompt leaves the queue in the Write that stores its turn: a
// second Write dequeuing it fails whole (NOT_FOUND) and stores no turn,
// so a prompt never becomes two turns. The queue reads in position order
// and survives a reopen; the thread counts it.
func TestQueueDequeueIsOneTransaction(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hub.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustCommit(t, db, writeThreads(thread("t1", "c1", 1), thread("t2", "c1", 2)))
	mustCommit(t, db, &hub.Write{Queued: []hub.QueuedPrompt{
		queued("q2", "t1", 1, "second"), queued("q1", "t1", 0, "first"), queued("q3", "t1", 2, "third"), queued("x", "t2", 0, "other"),
	}})
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if db, err = Open(path, Options{}); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	list, err := db.QueuedPrompts(ctx, "t1")
	if err != nil || len(list) != 3 || list[0].ID != "q1" || list[1].ID != "q2" || list[2].ID != "q3" || list[2].Position != 2 {
		t.Fatalf("queue after reopen %+v %v", list, err)
	}
	if th, _ := db.GetThread(ctx, "t1"); th.Queued != 3 {
		t.Fatalf("thread queued %d, want 3", th.Queued)
	}
	if ids, _ := db.WaitingThreads(ctx); len(ids) != 2 {
		t.Fatalf("queued threads %v", ids)
	}

	mustCommit(t, db, &hub.Write{Dequeue: []string{"q1"}, Turns: []hub.Turn{turn("tu1", "t1", 3)}})
	again := &hub.Write{Dequeue: []string{"q1"}, Turns: []hub.Turn{turn("tu2", "t1", 4)}}
	if err := db.Commit(ctx, again); hub.ErrorCode(err) != hub.CodeNotFound {
		t.Fatalf("dequeued twice: %v, want NOT_FOUND", err)
	}
	if _, err := db.GetTurn(ctx, "tu2"); hub.ErrorCode(err) != hub.CodeNotFound {
		t.Fatalf("the second turn was stored: %v", err)
	}
	if _, err := db.GetTurn(ctx, "tu1"); err != nil {
		t.Fatal(err)
	}
	list, _ = db.QueuedPrompts(ctx, "t1")
	if len(list) != 2 || list[0].ID != "q2" || list[0].Position != 0 {
		t.Fatalf("queue after the dequeue %+v", list)
	}

	// A pause is a thread field; a deleted thread's queue goes with it.
	paused := hub.QueuePausedFailed
	mustCommit(t, db, &hub.Write{ThreadChanges: []hub.ThreadChange{{ThreadID: "t1", QueuePaused: &paused}}})
	if th, _ := db.GetThread(ctx, "t1"); th.QueuePaused != hub.QueuePausedFailed || th.Queued != 2 {
		t.Fatalf("paused thread %+v", th)
	}
	mustCommit(t, db, &hub.Write{DeleteThreads: []string{"t1"}})
	if list, _ := db.QueuedPrompts(ctx, "t1"); len(list) != 0 {
		t.Fatalf("a deleted thread's queue %+v", list)
	}
	if ids, _ := db.WaitingThreads(ctx); len(ids) != 1 || ids[0] != "t2" {
		t.Fatalf("queued threads after delete %v", ids)
	}
}
