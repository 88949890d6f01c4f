package store

import (
	"context"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// An imported thread keeps where it came from; one live thread per agent
// session (a second is CONFLICT, with the reason, and leaves the first as
// it was); a deletion's tombstone frees the session; ThreadsBySession
// finds threads by imported session and by last session, live ones only.
func TestImportedSessionThreads(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	a := thread("a", "c1", 1)
	a.AgentSessionID = "s1"
	a.Imported = &hub.ImportedSession{SessionID: "s1", History: hub.ImportedHistoryAgent}
	mustCommit(t, db, writeThreads(a))
	got, err := db.GetThread(ctx, "a")
	if err != nil || got.Imported == nil || *got.Imported != *a.Imported {
		t.Fatalf("read back %+v, %v", got.Imported, err)
	}

	b := thread("b", "c2", 2)
	b.Imported = &hub.ImportedSession{SessionID: "s1", History: hub.ImportedHistoryStored}
	err = db.Commit(ctx, writeThreads(b))
	wantCode(t, err, hub.CodeConflict)
	if herr, _ := err.(*hub.Error); herr == nil || herr.Details["reason"] != hub.ReasonSessionAlreadyImported {
		t.Errorf("second thread for s1: %#v, want reason %s", err, hub.ReasonSessionAlreadyImported)
	}
	if _, err := db.GetThread(ctx, "b"); hub.ErrorCode(err) != hub.CodeNotFound {
		t.Errorf("the refused thread was stored: %v", err)
	}
	// The same session of another agent is another session.
	other := thread("o", "c1", 3)
	other.Agent = "qwen"
	other.Imported = &hub.ImportedSession{SessionID: "s1", History: hub.ImportedHistoryStored}
	mustCommit(t, db, writeThreads(other))

	stored := hub.ImportedHistoryStored
	mustCommit(t, db, &hub.Write{ThreadChanges: []hub.ThreadChange{{ThreadID: "a", ImportedHistory: &stored}}})
	if got, _ := db.GetThread(ctx, "a"); got.Imported == nil || got.Imported.History != "stored" {
		t.Errorf("history after the change %+v", got.Imported)
	}
	// A plain thread whose last session is s2.
	p := thread("p", "c1", 4)
	p.AgentSessionID = "s2"
	mustCommit(t, db, writeThreads(p))
	ts, err := db.ThreadsBySession(ctx, "claude", []string{"s1", "s2", "s3"})
	if err != nil || len(ts) != 2 {
		t.Fatalf("ThreadsBySession: %d threads, %v", len(ts), err)
	}

	// Deleted: its tombstone frees s1.
	tomb := hub.Thread{ID: "a", Agent: "claude", ClientID: "c1", Status: hub.ThreadClosed, Deleted: true, CreatedAt: a.CreatedAt, UpdatedAt: at(5)}
	mustCommit(t, db, &hub.Write{Threads: []hub.Thread{tomb}, DeleteThreads: []string{"a"}})
	if ts, _ := db.ThreadsBySession(ctx, "claude", []string{"s1"}); len(ts) != 0 {
		t.Errorf("a deleted thread is still bound: %+v", ts)
	}
	mustCommit(t, db, writeThreads(b))
	if ts, _ := db.ThreadsBySession(ctx, "claude", []string{"s1"}); len(ts) != 1 || ts[0].ID != "b" {
		t.Errorf("after the deletion s1 is bound to %+v, want b", ts)
	}
	if _, err := db.ThreadsBySession(ctx, "claude", make([]string, 501)); hub.ErrorCode(err) != hub.CodeInvalidArgument {
		t.Errorf("501 ids: %v", err)
	}
}
