package store

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// turnSeqs is the first and last seq stored for turn id.
func turnSeqs(t *testing.T, db *DB, id string) (first, last int64) {
	t.Helper()
	if err := db.rdb.QueryRow(`SELECT first_seq, last_seq FROM turns WHERE id = ?`, id).Scan(&first, &last); err != nil {
		t.Fatal(err)
	}
	return first, last
}

// turnEventSeqs reads turn id's events back as the engine does (by thread
// and turn), a page of limit at a time.
func turnEventSeqs(t *testing.T, db *DB, threadID, id string, limit int) []int64 {
	t.Helper()
	var out []int64
	for after := int64(0); ; {
		es, err := db.Events(context.Background(), hub.EventFilter{After: after, ThreadID: threadID, TurnID: id, All: true, Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			if e.TurnID != id {
				t.Fatalf("turn %s read event %d of turn %q", id, e.Seq, e.TurnID)
			}
			out = append(out, e.Seq)
			after = e.Seq
		}
		if len(es) < limit {
			return out
		}
	}
}

func ended(tu hub.Turn) hub.Turn {
	tu.Status, tu.StopReason = hub.TurnCompleted, "end_turn"
	return tu
}

// A turn's range holds its events while it runs, when it ends, and when an
// event of it comes after it ended and after the next turn started (a
// terminal's output): every event of the turn is read back, and only
// those, whatever the page size; its output is read from its deltas.
func TestTurnRangeHoldsItsEvents(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	u1, u2 := turn("u1", "t1", 1), turn("u2", "t1", 3)
	mustCommit(t, db, &hub.Write{Threads: []hub.Thread{thread("t1", "c", 1), thread("t2", "c", 1)}})
	mustCommit(t, db, &hub.Write{Turns: []hub.Turn{u1}, Events: []hub.Event{event(hub.EventTurnStarted, "t1", "u1", 1)}})
	var want1 []int64
	for i := range 5 {
		w := &hub.Write{Events: []hub.Event{
			{Type: hub.EventMessageDelta, ThreadID: "t1", TurnID: "u1", At: at(i), Payload: hub.TextPayload("part " + string(rune('a'+i)) + " ")},
			event(hub.EventMessageDelta, "t2", "", i),  // another thread's, between
			event(hub.EventThreadUpdated, "t1", "", i), // the thread's own, no turn
		}}
		mustCommit(t, db, w)
		want1 = append(want1, w.Events[0].Seq)
	}
	first, last := turnSeqs(t, db, "u1")
	all := turnEventSeqs(t, db, "t1", "u1", 1000)
	if first != all[0] || last != 0 {
		t.Errorf("running turn: first %d last %d, want %d and 0 (the running turn's last is kept in memory)", first, last, all[0])
	}
	done := &hub.Write{Turns: []hub.Turn{ended(u1)}, Events: []hub.Event{event(hub.EventTurnCompleted, "t1", "u1", 9)}}
	mustCommit(t, db, done)
	if _, last = turnSeqs(t, db, "u1"); last != done.Events[0].Seq {
		t.Errorf("ended turn: last %d, want its turn_completed's %d", last, done.Events[0].Seq)
	}
	mustCommit(t, db, &hub.Write{Turns: []hub.Turn{u2}, Events: []hub.Event{event(hub.EventTurnStarted, "t1", "u2", 3)}})
	late := &hub.Write{Events: []hub.Event{event(hub.EventTerminalOutput, "t1", "u1", 10)}}
	mustCommit(t, db, late)
	mustCommit(t, db, &hub.Write{Events: []hub.Event{event(hub.EventMessageDelta, "t1", "u2", 11)}})
	if _, last = turnSeqs(t, db, "u1"); last != late.Events[0].Seq {
		t.Errorf("after a late event: last %d, want %d", last, late.Events[0].Seq)
	}
	for _, limit := range []int{1, 2, 1000} {
		got := turnEventSeqs(t, db, "t1", "u1", limit)
		if len(got) != 1+5+1+1 || !slices.Equal(got[1:6], want1) || got[len(got)-1] != late.Events[0].Seq {
			t.Errorf("limit %d: turn u1 reads %v, want started, %v, completed and the late %d", limit, got, want1, late.Events[0].Seq)
		}
	}
	if got := turnEventSeqs(t, db, "t1", "u2", 1000); len(got) != 2 {
		t.Errorf("turn u2 reads %v, want its 2 events", got)
	}
	if got := turnEventSeqs(t, db, "t2", "u1", 1000); len(got) != 0 {
		t.Errorf("turn u1 through thread t2 reads %v, want none", got)
	}
	got, err := db.GetTurn(ctx, "u1")
	if err != nil || got.Output != "part a part b part c part d part e " {
		t.Errorf("output read from the deltas: %q, %v", got.Output, err)
	}
}

// A turn that was running when the hub stopped is ended by a writer that
// never saw it start: its events stay readable.
func TestTurnRangeAcrossRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "switchboard.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	u := turn("u1", "t1", 1)
	mustCommit(t, db, &hub.Write{Threads: []hub.Thread{thread("t1", "c", 1)}, Turns: []hub.Turn{u},
		Events: []hub.Event{event(hub.EventTurnStarted, "t1", "u1", 1)}})
	for i := range 3 {
		mustCommit(t, db, &hub.Write{Events: []hub.Event{event(hub.EventMessageDelta, "t1", "u1", i)}})
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = mustOpenAt(t, path, Options{})
	u.Status, u.Error = hub.TurnFailed, "interrupted"
	end := &hub.Write{Turns: []hub.Turn{u}, Events: []hub.Event{event(hub.EventTurnCompleted, "t1", "u1", 5)}}
	mustCommit(t, db, end)
	if got := turnEventSeqs(t, db, "t1", "u1", 2); len(got) != 5 || got[4] != end.Events[0].Seq {
		t.Errorf("after a restart: turn reads %v, want its 5 events", got)
	}
}

// A Write that fails after the writer noted its turn's first seq leaves
// no range behind: the memory is forgotten with it, the retried turn's
// range starts at its first stored event, and a late event widens it
// without hiding the ones before.
func TestTurnRangeAfterFailedWrite(t *testing.T) {
	db := MustOpenDB(t)
	mustCommit(t, db, &hub.Write{Threads: []hub.Thread{thread("t1", "c", 1)}})
	u := turn("u1", "t1", 1)
	bad := &hub.Write{Turns: []hub.Turn{u}, Events: []hub.Event{event(hub.EventTurnStarted, "t1", "u1", 1)},
		Usage: []hub.UsageRecord{{}}} // refused after the events were inserted
	if err := db.Commit(context.Background(), bad); hub.ErrorCode(err) != hub.CodeInvalidArgument {
		t.Fatalf("the failing write: %v", err)
	}
	started := &hub.Write{Turns: []hub.Turn{u}, Events: []hub.Event{event(hub.EventTurnStarted, "t1", "u1", 1)}}
	mustCommit(t, db, started)
	mustCommit(t, db, &hub.Write{Events: []hub.Event{event(hub.EventMessageDelta, "t1", "u1", 2)}})
	mustCommit(t, db, &hub.Write{Turns: []hub.Turn{ended(u)}, Events: []hub.Event{event(hub.EventTurnCompleted, "t1", "u1", 3)}})
	if first, _ := turnSeqs(t, db, "u1"); first != started.Events[0].Seq {
		t.Errorf("first_seq %d, want the retried start's %d", first, started.Events[0].Seq)
	}
	// A late event of a turn whose Write failed mid-stream.
	bad = &hub.Write{Events: []hub.Event{event(hub.EventTerminalOutput, "t1", "u1", 4)}, Usage: []hub.UsageRecord{{}}}
	if err := db.Commit(context.Background(), bad); hub.ErrorCode(err) != hub.CodeInvalidArgument {
		t.Fatalf("the failing write: %v", err)
	}
	mustCommit(t, db, &hub.Write{Events: []hub.Event{event(hub.EventTerminalOutput, "t1", "u1", 5)}})
	if got := turnEventSeqs(t, db, "t1", "u1", 1000); len(got) != 4 || got[0] != started.Events[0].Seq {
		t.Errorf("turn reads %v, want its 4 stored events from %d", got, started.Events[0].Seq)
	}
}

// Migration 0013 computes the range of every turn stored before it, from
// the index it drops.
func TestMigrationTurnRange(t *testing.T) {
	ctx := context.Background()
	path, raw, conn := migratedTo(t, 12)
	for _, q := range []string{
		`INSERT INTO threads (id, agent, cwd, title, client_id) VALUES ('t1', 'a', '/x', '', 'c')`,
		`INSERT INTO turns (id, thread_id, status, input, started_at) VALUES ('u1', 't1', 'completed', '', 1), ('u2', 't1', 'running', '', 2), ('u3', 't1', 'completed', '', 3)`,
		`INSERT INTO events (seq, type, thread_id, turn_id) VALUES (1, 'turn_started', 't1', 'u1'), (2, 'message_delta', 't1', 'u1'),
			(3, 'turn_completed', 't1', 'u1'), (4, 'turn_started', 't1', 'u2'), (5, 'terminal_output', 't1', 'u1')`,
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	conn.Close()
	raw.Close()

	db := mustOpenAt(t, path, Options{})
	for id, want := range map[string][2]int64{"u1": {1, 5}, "u2": {4, 4}, "u3": {0, 0}} {
		if f, l := turnSeqs(t, db, id); f != want[0] || l != want[1] {
			t.Errorf("turn %s: first %d last %d, want %v", id, f, l, want)
		}
	}
	var n int
	if err := db.rdb.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name = 'events_turn_seq'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("events_turn_seq after migration 13: %d, %v", n, err)
	}
	if got := turnEventSeqs(t, db, "t1", "u1", 1000); !slices.Equal(got, []int64{1, 2, 3, 5}) {
		t.Errorf("turn u1 reads %v after migrating", got)
	}
}
