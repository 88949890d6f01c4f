package store

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// rawFilesHold reports which of the database's files (the database, its
// WAL and shared-memory index) hold s, byte for byte.
func rawFilesHold(tb testing.TB, path, s string) []string {
	tb.Helper()
	var found []string
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		b, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			tb.Fatal(err)
		}
		if bytes.Contains(b, []byte(s)) {
			found = append(found, filepath.Base(p))
		}
	}
	return found
}

// Deleting a thread deletes its text from every table, and after the
// compaction the writer runs by itself, from the files too; the event log
// never hands out a Seq twice; the other thread is untouched.
func TestDeleteThreadsText(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "switchboard.db")
	db := mustOpenAt(t, path, Options{})
	secret := "unique-secret-" + strings.Repeat("Qx7", 30)
	gone, kept := thread("gone", "c1", 1), thread("kept", "c1", 2)
	gone.Title, gone.Cwd, gone.Summary = "title "+secret, "/src/"+secret, "summary "+secret
	gt := turn("gu", "gone", 1)
	gt.Input, gt.Output = "input "+secret, strings.Repeat("output "+secret, 50) // overflow pages too
	gp := permission("gp", "gone", "gu", 1)
	gp.ToolCall = json.RawMessage(`{"title":"` + secret + `"}`)
	w := &hub.Write{Threads: []hub.Thread{gone, kept}, Turns: []hub.Turn{gt, turn("ku", "kept", 2)},
		Permissions: []hub.Permission{gp}}
	for i := range 200 {
		ev := event(hub.EventMessageDelta, "gone", "gu", i)
		ev.Payload = json.RawMessage(`{"text":"` + secret + `"}`)
		w.Events = append(w.Events, ev)
	}
	w.Events = append(w.Events, event(hub.EventMessageDelta, "kept", "ku", 300))
	mustCommit(t, db, w)
	// The thread's event is the log's last one.
	last := event(hub.EventMessageDelta, "gone", "gu", 301)
	last.Payload = json.RawMessage(`{"text":"last ` + secret + `"}`)
	mustCommit(t, db, &hub.Write{Events: []hub.Event{last}})
	if len(rawFilesHold(t, path, secret)) == 0 {
		t.Fatal("the secret is not in the files before the deletion: the test proves nothing")
	}

	tomb := hub.Thread{ID: "gone", ClientID: "c1", Status: hub.ThreadClosed, Deleted: true}
	del := event(hub.EventThreadUpdated, "gone", "", 302)
	mustCommit(t, db, &hub.Write{Threads: []hub.Thread{tomb}, DeleteThreads: []string{"gone"}, Events: []hub.Event{del}})
	if del.Seq != 0 && del.Seq <= last.Seq {
		t.Errorf("the deletion's event got seq %d, after %d", del.Seq, last.Seq)
	}
	if seq, _ := db.LastSeq(ctx); seq <= last.Seq {
		t.Errorf("LastSeq %d after the deletion, was %d: a seq would be reused", seq, last.Seq)
	}
	next := event(hub.EventMessageDelta, "kept", "ku", 303)
	w2 := &hub.Write{Events: []hub.Event{next}}
	mustCommit(t, db, w2)
	if w2.Events[0].Seq <= last.Seq+1 {
		t.Errorf("next event seq %d, want > %d", w2.Events[0].Seq, last.Seq+1)
	}

	var n int
	for _, q := range []string{
		`SELECT COUNT(*) FROM turns WHERE thread_id = 'gone'`,
		`SELECT COUNT(*) FROM permissions WHERE thread_id = 'gone'`,
		`SELECT COUNT(*) FROM events WHERE thread_id = 'gone' AND payload IS NOT NULL`,
		`SELECT COUNT(*) FROM threads WHERE id = 'gone' AND (title <> '' OR cwd <> '' OR summary <> '' OR deleted = 0)`,
	} {
		if err := db.queryRow(ctx, q).Scan(&n); err != nil || n != 0 {
			t.Errorf("%s: %d, %v", q, n, err)
		}
	}
	if ts, err := db.ListTurns(ctx, "kept", true); err != nil || len(ts) != 1 {
		t.Errorf("the other thread's turns: %+v, %v", ts, err)
	}
	if f := rawFilesHold(t, path, secret); len(f) > 0 {
		t.Errorf("after the deletion, the secret is still in %v", f)
	}
	// And a late event for the deleted thread keeps its place, not its text.
	late := event(hub.EventMessageDelta, "gone", "gu", 304)
	late.Payload = json.RawMessage(`{"text":"late ` + secret + `"}`)
	mustCommit(t, db, &hub.Write{Events: []hub.Event{late}})
	if _, err := db.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	if f := rawFilesHold(t, path, secret); len(f) > 0 {
		t.Errorf("a late event's text is in %v", f)
	}
}

// Vacuum turns an old database (auto_vacuum off) into one whose free
// pages go back to the OS.
func TestVacuum(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	res, err := db.Vacuum(ctx)
	if err != nil || res.FreePages != 0 || res.WALBusy {
		t.Fatalf("Vacuum: %+v, %v", res, err)
	}
	var mode int
	if err := db.queryRow(ctx, "PRAGMA auto_vacuum").Scan(&mode); err != nil || mode != 2 {
		t.Errorf("auto_vacuum %d, %v; want 2 (incremental)", mode, err)
	}
}
