package store

import (
	"context"
	"path/filepath"
	"slices"
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

// A queue moved to a new thread (ADR 0052) is one Write: the new thread,
// the prompts leaving the first queue and joining the new one, and the
// link. A Write whose dequeue fails (a head sent meanwhile) stores none
// of it, so the prompts are in exactly one queue; a Write that commits
// leaves the first queue empty and the new one in order, the threads
// linked both ways. A limited thread with an empty queue is waiting too.
func TestQueueMoveIsOneTransaction(t *testing.T) {
	ctx := context.Background()
	db, err := Open(filepath.Join(t.TempDir(), "hub.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustCommit(t, db, writeThreads(thread("t1", "c1", 1)))
	mustCommit(t, db, &hub.Write{Queued: []hub.QueuedPrompt{queued("q1", "t1", 0, "first"), queued("q2", "t1", 1, "second")}})
	move := func(ids ...string) *hub.Write {
		nt := thread("t2", "c1", 5)
		nt.ContinuedFrom = "t1"
		in := "t2"
		return &hub.Write{Threads: []hub.Thread{nt}, Dequeue: ids,
			Queued:        []hub.QueuedPrompt{queued("m1", "t2", 0, "first"), queued("m2", "t2", 1, "second")},
			ThreadChanges: []hub.ThreadChange{{ThreadID: "t1", ContinuedIn: &in}, {ThreadID: "t2", Announce: true}}}
	}
	if err := db.Commit(ctx, move("q1", "q2", "gone")); hub.ErrorCode(err) != hub.CodeNotFound {
		t.Fatalf("a move whose dequeue fails: %v, want NOT_FOUND", err)
	}
	if _, err := db.GetThread(ctx, "t2"); hub.ErrorCode(err) != hub.CodeNotFound {
		t.Fatalf("the failed move stored its thread: %v", err)
	}
	if list, _ := db.QueuedPrompts(ctx, "t1"); len(list) != 2 {
		t.Fatalf("the first queue after a failed move %+v", list)
	}
	w := move("q1", "q2")
	mustCommit(t, db, w)
	if list, _ := db.QueuedPrompts(ctx, "t1"); len(list) != 0 {
		t.Fatalf("the first queue after the move %+v", list)
	}
	list, _ := db.QueuedPrompts(ctx, "t2")
	if len(list) != 2 || list[0].Input != "first" || list[1].Input != "second" {
		t.Fatalf("the new queue %+v", list)
	}
	if got := w.ThreadChanges[1].Thread; got.Queued != 2 || got.ContinuedFrom != "t1" {
		t.Fatalf("the new thread as announced %+v", got)
	}
	if th, _ := db.GetThread(ctx, "t1"); th.ContinuedIn != "t2" || th.Queued != 0 {
		t.Fatalf("the first thread %+v", th)
	}

	until := at(100)
	mustCommit(t, db, &hub.Write{ThreadChanges: []hub.ThreadChange{{ThreadID: "t1", LimitedUntil: &until}}})
	if ids, _ := db.WaitingThreads(ctx); !slices.Equal(ids, []string{"t1", "t2"}) {
		t.Fatalf("waiting threads %v, want the limited one and the queued one", ids)
	}
}
