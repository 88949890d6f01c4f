package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"path/filepath"
	"strconv"
	"testing"
	"testing/fstest"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// MustOpenDB opens a fresh database in tb's temp dir and closes it at the
// end of the test.
func MustOpenDB(tb testing.TB) *DB {
	tb.Helper()
	return mustOpenAt(tb, filepath.Join(tb.TempDir(), "switchboard.db"), Options{})
}

func mustOpenAt(tb testing.TB, path string, opts Options) *DB {
	tb.Helper()
	db, err := Open(path, opts)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() {
		if err := db.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return db
}

func mustCommit(tb testing.TB, db *DB, w *hub.Write) {
	tb.Helper()
	if err := db.Commit(context.Background(), w); err != nil {
		tb.Fatalf("Commit: %v", err)
	}
}

// t0 is a fixed base time with nanoseconds, so that round trips check them.
var t0 = time.Date(2025, 3, 4, 5, 6, 7, 123456789, time.UTC)

func at(i int) time.Time { return t0.Add(time.Duration(i) * time.Millisecond) }

func thread(id, client string, i int) hub.Thread {
	return hub.Thread{
		ID: id, Agent: "claude", Cwd: "/src/" + client, Title: "title " + id, ClientID: client,
		Status: hub.ThreadIdle, CreatedAt: at(i), UpdatedAt: at(i),
	}
}

func turn(id, threadID string, i int) hub.Turn {
	return hub.Turn{ID: id, ThreadID: threadID, Status: hub.TurnRunning, Input: "do " + id, StartedAt: at(i)}
}

func permission(id, threadID, turnID string, i int) hub.Permission {
	return hub.Permission{
		ID: id, ThreadID: threadID, TurnID: turnID, Status: hub.PermissionPending,
		ToolCall: json.RawMessage(`{"toolCallId":"tc-` + id + `","title":"rm -rf /tmp/x"}`),
		Options: []hub.PermissionOption{
			{OptionID: "allow", Name: "Allow", Kind: "allow_once"},
			{OptionID: "reject", Name: "Reject", Kind: "reject_once"},
		},
		Deadline: at(i).Add(10 * time.Minute), CreatedAt: at(i),
	}
}

func event(typ, threadID, turnID string, i int) hub.Event {
	return hub.Event{
		Type: typ, ThreadID: threadID, TurnID: turnID, At: at(i),
		Payload: json.RawMessage(fmt.Sprintf(`{"text":"chunk %d"}`, i)),
	}
}

func wantCode(tb testing.TB, err error, code string) {
	tb.Helper()
	if got := hub.ErrorCode(err); got != code {
		tb.Fatalf("error %v: code %q, want %q", err, got, code)
	}
}

func writeThreads(ts ...hub.Thread) *hub.Write { return &hub.Write{Threads: ts} }

// migratedTo returns a new database file migrated to version (the
// migrations numbered up to it, and no later), with a connection to it
// for the test to store rows as they were then; the test closes both
// before opening the file with the store.
func migratedTo(t *testing.T, version int) (string, *sql.DB, *sql.Conn) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "switchboard.db")
	raw, err := sql.Open("sqlite", dsn(path, writeParams))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := raw.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	before := fstest.MapFS{}
	names, _ := fs.Glob(migrations, "*.sql")
	for _, n := range names {
		if v, err := strconv.Atoi(n[:4]); err == nil && v <= version {
			b, _ := fs.ReadFile(migrations, n)
			before[n] = &fstest.MapFile{Data: b}
		}
	}
	if v, err := migrate(ctx, conn, before, slog.New(slog.DiscardHandler)); err != nil || v != version {
		t.Fatalf("migrate to %d: %d, %v", version, v, err)
	}
	return path, raw, conn
}
