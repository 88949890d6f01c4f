package store

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

func TestTurnRoundTrip(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	ended := at(9)
	full := hub.Turn{
		ID: "u1", ThreadID: "t1", Status: hub.TurnCompleted, Input: "fix it",
		Content: json.RawMessage(`[{"type":"text","text":"fix it"}]`), Output: "done",
		StopReason: "end_turn", Error: "", StartedAt: at(2), EndedAt: &ended,
	}
	bare := hub.Turn{ID: "u2", ThreadID: "t1"} // zero time, nil EndedAt and Content
	var zeroTime time.Time
	zeroEnd := hub.Turn{ID: "u3", ThreadID: "t1", StartedAt: at(3), EndedAt: &zeroTime, Internal: true}
	mustCommit(t, db, &hub.Write{Threads: []hub.Thread{thread("t1", "c", 1)}, Turns: []hub.Turn{full, bare, zeroEnd}})
	for _, want := range []hub.Turn{full, bare, zeroEnd} {
		got, err := db.GetTurn(ctx, want.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("GetTurn(%s):\n got %+v\nwant %+v", want.ID, got, want)
		}
	}
	_, err := db.GetTurn(ctx, "nope")
	wantCode(t, err, hub.CodeNotFound)
}

func turnIDs(ts []hub.Turn) []string {
	var ids []string
	for _, t := range ts {
		ids = append(ids, t.ID)
	}
	return ids
}

func TestListTurnsAndRunning(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	w := &hub.Write{Threads: []hub.Thread{thread("t1", "c", 1), thread("t2", "c", 1)}}
	// Inserted out of order; u3 and u4 tie on StartedAt (insertion breaks it).
	w.Turns = []hub.Turn{turn("u5", "t1", 50), turn("u3", "t1", 30), turn("u4", "t1", 30), turn("u1", "t1", 10), turn("x1", "t2", 5)}
	w.Turns[0].Internal = true
	w.Turns[3].Status = hub.TurnCompleted
	mustCommit(t, db, w)
	got, err := db.ListTurns(ctx, "t1", false)
	if err != nil {
		t.Fatal(err)
	}
	if ids := turnIDs(got); !reflect.DeepEqual(ids, []string{"u1", "u3", "u4"}) {
		t.Errorf("ListTurns: %v", ids)
	}
	got, _ = db.ListTurns(ctx, "t1", true)
	if ids := turnIDs(got); !reflect.DeepEqual(ids, []string{"u1", "u3", "u4", "u5"}) {
		t.Errorf("ListTurns internal: %v", ids)
	}
	got, _ = db.RunningTurns(ctx)
	if ids := turnIDs(got); !reflect.DeepEqual(ids, []string{"x1", "u3", "u4", "u5"}) {
		t.Errorf("RunningTurns: %v", ids)
	}
	if got, err := db.ListTurns(ctx, "nope", true); err != nil || len(got) != 0 {
		t.Errorf("ListTurns of no thread: %v, %v", got, err)
	}
}

// TestWriteOrderWithinWrite: a thread and its first turn, permission and
// event can go in one Write (threads are applied before what refers to them).
func TestWriteOrderWithinWrite(t *testing.T) {
	db := MustOpenDB(t)
	w := &hub.Write{
		Threads:     []hub.Thread{thread("t1", "c7", 1)},
		Turns:       []hub.Turn{turn("u1", "t1", 2)},
		Permissions: []hub.Permission{permission("p1", "t1", "u1", 3)},
		Events:      []hub.Event{event(hub.EventTurnStarted, "t1", "u1", 2)},
	}
	mustCommit(t, db, w)
	if w.Events[0].ClientID != "c7" || w.Events[0].Seq != 1 {
		t.Errorf("event: seq %d client %q, want 1 and the thread's client", w.Events[0].Seq, w.Events[0].ClientID)
	}
	// A turn of a thread that does not exist is refused (foreign key).
	err := db.Commit(context.Background(), &hub.Write{Turns: []hub.Turn{turn("u2", "ghost", 1)}})
	wantCode(t, err, hub.CodeInternal)
}

// ListTurnsPage walks the same order as ListTurns, a page at a time,
// ties on StartedAt included; a malformed cursor is INVALID_ARGUMENT; a
// turn's events are read through its own index.
func TestListTurnsPage(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	w := &hub.Write{Threads: []hub.Thread{thread("t1", "c", 1), thread("t2", "c", 1)}}
	w.Turns = []hub.Turn{turn("u5", "t1", 50), turn("u3", "t1", 30), turn("u4", "t1", 30), turn("u1", "t1", 10), turn("u6", "t1", 60), turn("x1", "t2", 5)}
	w.Turns[0].Internal = true
	w.Events = []hub.Event{event(hub.EventTurnStarted, "t1", "u3", 30), event(hub.EventTurnStarted, "t1", "u4", 30), event(hub.EventMessageDelta, "t1", "u3", 31)}
	mustCommit(t, db, w)
	tests := []struct {
		name     string
		internal bool
		limit    int
		want     [][]string
	}{
		{"pages of 2", false, 2, [][]string{{"u1", "u3"}, {"u4", "u6"}}},
		{"internal too", true, 2, [][]string{{"u1", "u3"}, {"u4", "u5"}, {"u6"}}},
		{"one page", false, 0, [][]string{{"u1", "u3", "u4", "u6"}}},
		{"pages of 1", false, 1, [][]string{{"u1"}, {"u3"}, {"u4"}, {"u6"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got [][]string
			cursor := ""
			for {
				page, next, err := db.ListTurnsPage(ctx, "t1", tt.internal, cursor, tt.limit)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, turnIDs(page))
				if next == "" {
					break
				}
				cursor = next
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("pages %v, want %v", got, tt.want)
			}
		})
	}
	_, _, err := db.ListTurnsPage(ctx, "t1", false, "not a cursor!", 2)
	wantCode(t, err, hub.CodeInvalidArgument)
	evs, err := db.Events(ctx, hub.EventFilter{ThreadID: "t1", TurnID: "u3", All: true})
	if err != nil || len(evs) != 2 || evs[0].Type != hub.EventTurnStarted || evs[1].Type != hub.EventMessageDelta {
		t.Fatalf("events of u3: %+v, %v", evs, err)
	}
}

// An ended turn stored with an empty output reads its message_delta
// events' text, in order, escapes decoded (a long output is stored once,
// as its events); a running one, or one stored with its output, reads
// what was stored.
func TestTurnOutputFromEvents(t *testing.T) {
	db := MustOpenDB(t)
	running := turn("u", "a", 1)
	mustCommit(t, db, &hub.Write{Threads: []hub.Thread{thread("a", "c1", 1)}, Turns: []hub.Turn{running, turn("v", "a", 2)}})
	mustCommit(t, db, &hub.Write{Events: []hub.Event{
		textEvent(hub.EventMessageDelta, "a", "u", 3, "first \"quoted\" "),
		textEvent(hub.EventThoughtDelta, "a", "u", 4, "not output"),
		textEvent(hub.EventMessageDelta, "a", "u", 5, "é\nlast"),
		textEvent(hub.EventMessageDelta, "a", "v", 6, "other turn"),
	}})
	if got, err := db.GetTurn(context.Background(), "u"); err != nil || got.Output != "" {
		t.Fatalf("running: %q, %v", got.Output, err)
	}
	ended := running
	ended.Status = hub.TurnCompleted
	mustCommit(t, db, &hub.Write{Turns: []hub.Turn{ended}})
	got, err := db.GetTurn(context.Background(), "u")
	if want := "first \"quoted\" é\nlast"; err != nil || got.Output != want {
		t.Fatalf("ended: %q, %v; want %q", got.Output, err, want)
	}
	list, err := db.ListTurns(context.Background(), "a", false)
	if err != nil || len(list) != 2 || list[0].Output != got.Output || list[1].Output != "" {
		t.Fatalf("ListTurns: %+v, %v", list, err)
	}
	ended.Output = "as stored"
	mustCommit(t, db, &hub.Write{Turns: []hub.Turn{ended}})
	if got, _ := db.GetTurn(context.Background(), "u"); got.Output != "as stored" {
		t.Errorf("stored output: %q", got.Output)
	}
}
