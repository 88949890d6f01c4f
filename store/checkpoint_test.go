package store

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
	"github.com/switchboard-hub/switchboard/hub"
)

// The writer never checkpoints inside a commit (its connection has
// wal_autocheckpoint 0); the checkpointer moves committed pages into the
// database file on its own connection, so the file grows while the hub
// only commits.
func TestCheckpointerOffTheWriter(t *testing.T) {
	db := MustOpenDB(t)
	var auto int
	if err := db.onWriter(context.Background(), func(ctx context.Context) error {
		return db.conn.QueryRowContext(ctx, "PRAGMA wal_autocheckpoint").Scan(&auto)
	}); err != nil || auto != 0 {
		t.Fatalf("writer's wal_autocheckpoint: %d, %v; want 0", auto, err)
	}
	before := fileSize(t, db.Path())
	mustCommit(t, db, &hub.Write{Threads: []hub.Thread{thread("a", "c1", 1)}, Turns: []hub.Turn{turn("u", "a", 1)}})
	text := strings.Repeat("durable words ", 300)
	for i := range 200 {
		mustCommit(t, db, &hub.Write{Events: []hub.Event{textEvent(hub.EventMessageDelta, "a", "u", 2+i, text)}})
	}
	if !testkit.Until(30*time.Second, func() bool { return fileSize(t, db.Path()) > before+512<<10 }) {
		t.Fatalf("database file %d bytes (was %d): nothing checkpointed", fileSize(t, db.Path()), before)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// A maintenance open (switchboard db compact) starts no checkpointer and
// keeps SQLite's own checkpoints.
func TestMaintenanceHasNoCheckpointer(t *testing.T) {
	db := mustOpenAt(t, t.TempDir()+"/m.db", Options{Maintenance: true})
	if db.ckpt != nil {
		t.Fatal("maintenance open started a checkpointer")
	}
	var auto int
	if err := db.onWriter(context.Background(), func(ctx context.Context) error {
		return db.conn.QueryRowContext(ctx, "PRAGMA wal_autocheckpoint").Scan(&auto)
	}); err != nil || auto == 0 {
		t.Fatalf("maintenance wal_autocheckpoint: %d, %v; want SQLite's default", auto, err)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// A Write of copies (a host's, grouped by the host's store already) does
// not wait out the window: with a window of an hour, it is committed at
// once.
func TestCopiesSkipTheWindow(t *testing.T) {
	db := mustOpenAt(t, t.TempDir()+"/g.db", Options{GroupWindow: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := db.Commit(ctx, &hub.Write{Threads: []hub.Thread{thread("a", "c1", 1)}, Copies: true}); err != nil {
		t.Fatalf("a Write of copies waited for the hour's window: %v", err)
	}
}

// Writes that arrive one by one within the group-commit window share a
// commit: the writer waits for up to groupMin of them.
func TestGroupCommitWindow(t *testing.T) {
	db := mustOpenAt(t, t.TempDir()+"/g.db", Options{GroupWindow: 2 * time.Second})
	mustCommit(t, db, &hub.Write{Threads: []hub.Thread{thread("a", "c1", 1)}}) // a batch of its own, after the window
	sizes := make(chan int, 64)
	db.batchHook = func(n int) { sizes <- n }
	done := make(chan error, groupMin)
	for i := range groupMin {
		db.CommitAsync(&hub.Write{Events: []hub.Event{textEvent(hub.EventMessageDelta, "a", "", 2+i, "x ")}}, func(_ *hub.Write, err error) { done <- err })
		time.Sleep(5 * time.Millisecond) // each arrives alone
	}
	for range groupMin {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if n := <-sizes; n != groupMin {
		t.Errorf("first batch of %d Writes, want all %d in one", n, groupMin)
	}
}
