package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// A batch of nothing but copies commits with synchronous=NORMAL (no WAL
// sync, ADR 0055); a batch holding any other Write, and a function run on
// the writer, with FULL. The mode is read from SQLite on the writer's own
// connection after each commit.
func TestCopiesCommitWithoutTheirOwnSync(t *testing.T) {
	db := mustOpenAt(t, t.TempDir()+"/s.db", Options{GroupWindow: 200 * time.Millisecond})
	modes := make(chan int, 16)
	db.afterBatch = func() {
		var m int
		if err := db.conn.QueryRowContext(context.Background(), "PRAGMA synchronous").Scan(&m); err != nil {
			t.Error(err)
		}
		modes <- m
	}
	const normal, full = 1, 2
	ctx := context.Background()
	copies := func(i int) *hub.Write {
		return &hub.Write{Copies: true, Events: []hub.Event{textEvent(hub.EventMessageDelta, "t@box", "", i, "x ")}}
	}
	mustCommit(t, db, &hub.Write{Copies: true, Threads: []hub.Thread{thread("t@box", "c1", 1)}})
	if m := <-modes; m != normal {
		t.Fatalf("a batch of copies committed with synchronous=%d, want NORMAL (1)", m)
	}
	mustCommit(t, db, writeThreads(thread("local", "c1", 2)))
	if m := <-modes; m != full {
		t.Fatalf("a local Write after copies committed with synchronous=%d, want FULL (2)", m)
	}
	// A local Write and copies in one batch (the window holds the local
	// one, first, until groupMin Writes are queued): FULL.
	done := make(chan error, groupMin)
	for i := range groupMin {
		w := copies(3 + i)
		if i == 0 {
			w = &hub.Write{Events: []hub.Event{textEvent(hub.EventMessageDelta, "local", "", 3+i, "y ")}}
		}
		db.CommitAsync(w, func(_ *hub.Write, err error) { done <- err })
	}
	for range groupMin {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	for len(modes) > 0 {
		if m := <-modes; m != full {
			t.Fatalf("a batch with a local Write committed with synchronous=%d, want FULL", m)
		}
	}
	mustCommit(t, db, copies(20))
	if m := <-modes; m != normal {
		t.Fatalf("copies again: synchronous=%d, want NORMAL", m)
	}
	var m int
	if err := db.onWriter(ctx, func(ctx context.Context) error {
		return db.conn.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&m)
	}); err != nil || m != full {
		t.Fatalf("a function on the writer ran with synchronous=%d (%v), want FULL", m, err)
	}
}

// A Write of a chain that fails breaks it: the chain's later Writes, in
// the same batch or a later one, are not applied (ErrChainBroken), while
// Writes outside the chain are; after Reset the chain's Writes are
// applied again.
func TestChainStopsAfterAFailedWrite(t *testing.T) {
	db := mustOpenAt(t, t.TempDir()+"/c.db", Options{GroupWindow: 200 * time.Millisecond})
	mustCommit(t, db, writeThreads(thread("a", "c1", 1)))
	chain := &hub.WriteChain{}
	ev := func(i int) hub.Event { return textEvent(hub.EventMessageDelta, "a", "", i, "x ") }
	gone := "gone"
	writes := []*hub.Write{
		{Chain: chain, Events: []hub.Event{ev(2)}},
		{Chain: chain, ThreadChanges: []hub.ThreadChange{{ThreadID: "missing", Title: &gone}}, Events: []hub.Event{ev(3)}}, // refused: NOT_FOUND
		{Chain: chain, Events: []hub.Event{ev(4)}},
		{Events: []hub.Event{ev(5)}}, // not of the chain
	}
	for len(writes) < groupMin {
		writes = append(writes, &hub.Write{Chain: chain, Events: []hub.Event{ev(len(writes) + 2)}})
	}
	errs := make([]error, len(writes))
	done := make(chan struct{}, len(writes))
	for i, w := range writes {
		db.CommitAsync(w, func(_ *hub.Write, err error) { errs[i] = err; done <- struct{}{} })
	}
	for range writes {
		<-done
	}
	if errs[0] != nil || hub.ErrorCode(errs[1]) != hub.CodeNotFound || errs[3] != nil {
		t.Fatalf("errors %v: want nil, NOT_FOUND, …, nil", errs)
	}
	for i, err := range errs {
		if i == 2 || i >= 4 {
			if !errors.Is(err, hub.ErrChainBroken) || writes[i].Events[0].Seq != 0 {
				t.Fatalf("write %d after the refused one: %v (seq %d), want ErrChainBroken, not stored", i, err, writes[i].Events[0].Seq)
			}
		}
	}
	// A later batch of the broken chain: not applied either.
	if err := db.Commit(context.Background(), &hub.Write{Chain: chain, Copies: true, Events: []hub.Event{ev(40)}}); !errors.Is(err, hub.ErrChainBroken) {
		t.Fatalf("a later Write of the broken chain: %v, want ErrChainBroken", err)
	}
	chain.Reset()
	w := &hub.Write{Chain: chain, Copies: true, Events: []hub.Event{ev(41)}}
	mustCommit(t, db, w)
	evs, err := db.Events(context.Background(), hub.EventFilter{All: true, ThreadID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, e := range evs {
		got = append(got, e.Seq)
	}
	want := []int64{writes[0].Events[0].Seq, writes[3].Events[0].Seq, w.Events[0].Seq}
	if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("stored seqs %v, want %v (the chain's first, the unchained one, the one after Reset)", got, want)
	}
}

// An event stored without its owner takes its thread's, also when a
// Write of the same batch changed the owner before it (the batch's cache
// of owners is dropped then).
func TestEventOwnerFollowsTheThreadInOneBatch(t *testing.T) {
	db := mustOpenAt(t, t.TempDir()+"/o.db", Options{GroupWindow: 200 * time.Millisecond})
	mustCommit(t, db, writeThreads(thread("a", "c1", 1)))
	writes := []*hub.Write{
		{Events: []hub.Event{textEvent(hub.EventMessageDelta, "a", "", 2, "x ")}},
		{Threads: []hub.Thread{thread("a", "c2", 3)}, Events: []hub.Event{textEvent(hub.EventMessageDelta, "a", "", 3, "y ")}},
		{Events: []hub.Event{textEvent(hub.EventMessageDelta, "a", "", 4, "z ")}},
	}
	for len(writes) < groupMin {
		writes = append(writes, &hub.Write{Events: []hub.Event{textEvent(hub.EventMessageDelta, "a", "", len(writes)+2, "w ")}})
	}
	done := make(chan error, len(writes))
	for _, w := range writes {
		w.Events[0].ClientID = ""
		db.CommitAsync(w, func(_ *hub.Write, err error) { done <- err })
	}
	for range writes {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	for i, w := range writes {
		want := "c2"
		if i == 0 {
			want = "c1"
		}
		if got := w.Events[0].ClientID; got != want {
			t.Fatalf("write %d: event's owner %q, want %q", i, got, want)
		}
	}
}
