package store

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
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
