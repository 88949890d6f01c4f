package store

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// deltaWrite is a Coalesce Write of one text delta, as the engine makes them.
func deltaWrite(typ, threadID, turnID, text string) *hub.Write {
	return &hub.Write{Coalesce: true, Events: []hub.Event{{Type: typ, ThreadID: threadID, TurnID: turnID, At: at(1), Payload: hub.TextPayload(text)}}}
}

// Deltas that wait for the same commit are joined per thread, turn and
// type; nothing of a thread moves across anything else of that thread,
// and a Write that does more than append events closes every delta.
func TestCoalesceJoinsQueuedDeltas(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	mustCommit(t, db, &hub.Write{
		Threads: []hub.Thread{thread("t1", "c", 1), thread("t2", "c", 1)},
		Turns:   []hub.Turn{turn("u1", "t1", 1), turn("u2", "t2", 1), turn("u9", "t1", 2)},
	})
	sizes, release := pauseWriter(db)
	var mu sync.Mutex
	var results []result
	done := collect(&mu, &results)
	db.CommitAsync(&hub.Write{}, done) // batch 1, held: the rest queues behind it
	<-sizes
	long := strings.Repeat("x", hub.DeltaJoinMax-100)
	notCoalesced := deltaWrite(hub.EventMessageDelta, "t1", "u1", "g ")
	notCoalesced.Coalesce = false
	tool := event(hub.EventToolCall, "t2", "u2", 5)
	writes := []*hub.Write{
		deltaWrite(hub.EventMessageDelta, "t1", "u1", "a "),   // 0: t1's open message
		deltaWrite(hub.EventMessageDelta, "t2", "u2", "b "),   // 1: t2's
		deltaWrite(hub.EventMessageDelta, "t1", "u1", `"c" `), // 2: joins 0 across t2's delta
		deltaWrite(hub.EventThoughtDelta, "t1", "u1", "d "),   // 3: another type: t1's open delta now
		deltaWrite(hub.EventThoughtDelta, "t1", "u1", `e\ `),  // 4: joins 3
		{Events: []hub.Event{tool}},                           // 5: closes t2's
		deltaWrite(hub.EventMessageDelta, "t2", "u2", "f "),   // 6: new
		deltaWrite(hub.EventMessageDelta, "t1", "u1", "é "),   // 7: new (not 0: 3 came between)
		notCoalesced, // 8: stored alone, closes t1's
		deltaWrite(hub.EventMessageDelta, "t1", "u1", "h "), // 9: new
		{Turns: []hub.Turn{turn("u3", "t2", 3)}},            // 10: more than events: closes all
		deltaWrite(hub.EventMessageDelta, "t1", "u1", "i "), // 11: new
		deltaWrite(hub.EventMessageDelta, "t2", "u2", "j "), // 12: new
		deltaWrite(hub.EventMessageDelta, "t1", "u9", "k "), // 13: another turn: new
		deltaWrite(hub.EventMessageDelta, "t1", "u9", long), // 14: joins 13
		deltaWrite(hub.EventMessageDelta, "t1", "u9", long), // 15: past DeltaJoinMax: new
		deltaWrite(hub.EventMessageDelta, "t1", "u9", "m "), // 16: joins 15
		deltaWrite(hub.EventMessageDelta, "t2", "u2", "n "), // 17: joins 12
	}
	commitOneBatch(t, db, sizes, release, writes, done)

	joined := map[int]bool{2: true, 4: true, 14: true, 16: true, 17: true}
	mu.Lock()
	for i, r := range results[1:] {
		if r.err != nil {
			t.Errorf("write %d: %v", i, r.err)
		}
		if got := len(r.w.Events) == 0; got != joined[i] && i != 10 {
			t.Errorf("write %d: joined %v, want %v", i, got, joined[i])
		}
	}
	mu.Unlock()

	es, err := db.Events(ctx, hub.EventFilter{All: true})
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ typ, thread, turn, text string }
	var got []row
	for i, e := range es {
		if e.Seq != es[0].Seq+int64(i) {
			t.Errorf("seqs %d then %d: a gap", es[0].Seq+int64(i)-1, e.Seq)
		}
		var p map[string]any
		if err := json.Unmarshal(e.Payload, &p); err != nil {
			t.Fatalf("event %d: payload %s: %v", e.Seq, e.Payload, err)
		}
		text, _ := p["text"].(string)
		got = append(got, row{e.Type, e.ThreadID, e.TurnID, text})
	}
	want := []row{
		{hub.EventMessageDelta, "t1", "u1", `a "c" `},
		{hub.EventMessageDelta, "t2", "u2", "b "},
		{hub.EventThoughtDelta, "t1", "u1", `d e\ `},
		{hub.EventToolCall, "t2", "u2", "chunk 5"},
		{hub.EventMessageDelta, "t2", "u2", "f "},
		{hub.EventMessageDelta, "t1", "u1", "é "},
		{hub.EventMessageDelta, "t1", "u1", "g "},
		{hub.EventMessageDelta, "t1", "u1", "h "},
		{hub.EventMessageDelta, "t1", "u1", "i "},
		{hub.EventMessageDelta, "t2", "u2", "j n "},
		{hub.EventMessageDelta, "t1", "u9", "k " + long},
		{hub.EventMessageDelta, "t1", "u9", long + "m "},
	}
	if len(got) != len(want) {
		t.Fatalf("stored %d events, want %d: %v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	// The search index holds the joined text like any other.
	hits, err := db.Search(ctx, searchAll(`"a c"`))
	if err != nil || len(hits.Hits) != 1 {
		t.Errorf("search for text joined from two deltas: %+v, %v", hits, err)
	}
}

// A Write whose delta was joined fails when the Write storing its text
// does: it is never reported stored when its text is not.
func TestCoalescedWriteSharesError(t *testing.T) {
	ops := []*op{
		{w: deltaWrite(hub.EventMessageDelta, "t1", "u1", "a")},
		{w: deltaWrite(hub.EventMessageDelta, "t1", "u1", "b")},
	}
	coalesce(ops)
	if ops[1].into != ops[0] || len(ops[1].w.Events) != 0 {
		t.Fatalf("not joined: into %p, %d events", ops[1].into, len(ops[1].w.Events))
	}
	boom := errors.New("boom")
	ops[0].err = boom
	joinedErrs(ops)
	if ops[1].err != boom {
		t.Errorf("joined write: error %v, want the storing write's", ops[1].err)
	}
}
