package store

import (
	"context"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// A worktree thread's worktree is stored with it (without the computed
// ahead/behind), kept by an upsert that lacks it, replaced by a thread
// change that sets it, and cleared with the deleted thread's text.
func TestThreadWorktree(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	two := 2
	th := thread("t1", "c1", 1)
	th.Worktree = &hub.Worktree{Path: "/r-worktrees/switchboard/x-1", Branch: "switchboard/x-1", Base: "main", BaseCommit: "abc", Top: "/r-worktrees/switchboard/x-1", Repo: "/r", Ahead: &two}
	mustCommit(t, db, writeThreads(th))
	th.Worktree, th.Title = nil, "renamed"
	mustCommit(t, db, writeThreads(th))
	got, err := db.GetThread(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	if w := got.Worktree; w == nil || w.Branch != "switchboard/x-1" || w.Repo != "/r" || w.Ahead != nil || got.Title != "renamed" {
		t.Fatalf("t1: %+v (worktree %+v)", got, got.Worktree)
	}
	w := *got.Worktree
	w.Discarded = true
	mustCommit(t, db, &hub.Write{ThreadChanges: []hub.ThreadChange{{ThreadID: "t1", Worktree: &w}}})
	if got, _ := db.GetThread(ctx, "t1"); got.Worktree == nil || !got.Worktree.Discarded || got.Title != "renamed" {
		t.Errorf("after the change: %+v", got.Worktree)
	}
	mustCommit(t, db, &hub.Write{DeleteThreads: []string{"t1"}})
	var n int
	if err := db.queryRow(ctx, `SELECT COUNT(*) FROM threads WHERE id = 't1' AND worktree IS NULL`).Scan(&n); err != nil || n != 1 {
		t.Errorf("the deleted thread keeps its worktree (%d, %v)", n, err)
	}
}
