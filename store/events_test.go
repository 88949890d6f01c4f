package store

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

func TestEventRoundTrip(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	e1 := event(hub.EventToolCall, "t1", "u1", 3)
	e1.Payload = json.RawMessage(`{"toolCall":{"toolCallId":"x","content":[{"type":"diff","path":"/a"}]},"n":1.5e3,"s":"\u00e9\n"}`)
	e2 := hub.Event{Type: hub.EventThreadUpdated, ThreadID: "t1", ClientID: "explicit"} // zero At, nil payload
	e3 := hub.Event{Type: hub.EventError}                                               // no thread at all
	w := &hub.Write{Threads: []hub.Thread{thread("t1", "c1", 1)}, Events: []hub.Event{e1, e2, e3}}
	mustCommit(t, db, w)
	e1.Seq, e1.ClientID = 1, "c1"
	e2.Seq = 2
	e3.Seq = 3
	if want := []hub.Event{e1, e2, e3}; !reflect.DeepEqual(w.Events, want) {
		t.Errorf("write after commit:\n got %+v\nwant %+v", w.Events, want)
	}
	got, err := db.Events(ctx, hub.EventFilter{All: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := []hub.Event{e1, e2, e3}; !reflect.DeepEqual(got, want) {
		t.Errorf("Events:\n got %+v\nwant %+v", got, want)
	}
	if last, err := db.LastSeq(ctx); err != nil || last != 3 {
		t.Errorf("LastSeq: %d, %v", last, err)
	}
}

func TestLastSeqEmpty(t *testing.T) {
	if last, err := MustOpenDB(t).LastSeq(context.Background()); err != nil || last != 0 {
		t.Errorf("LastSeq of an empty log: %d, %v", last, err)
	}
}

func seqs(es []hub.Event) []int64 {
	var s []int64
	for _, e := range es {
		s = append(s, e.Seq)
	}
	return s
}

func TestEventsFilters(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	w := &hub.Write{Threads: []hub.Thread{thread("a", "c1", 1), thread("b", "c2", 1)},
		Turns: []hub.Turn{turn("a1", "a", 1), turn("a2", "a", 2), turn("b1", "b", 1), turn("b2", "b", 2)}}
	// seq:        1    2    3    4    5    6    7    8    9   10
	layout := []struct{ th, tu string }{
		{"a", "a1"}, {"a", "a1"}, {"b", "b1"}, {"a", "a2"}, {"b", "b1"},
		{"a", "a2"}, {"b", "b2"}, {"a", "a2"}, {"b", "b2"}, {"a", "a2"},
	}
	for i, l := range layout {
		w.Events = append(w.Events, event(hub.EventMessageDelta, l.th, l.tu, i))
	}
	mustCommit(t, db, w)
	for name, tc := range map[string]struct {
		f    hub.EventFilter
		want []int64
	}{
		"all":                {hub.EventFilter{All: true}, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		"after":              {hub.EventFilter{All: true, After: 7}, []int64{8, 9, 10}},
		"after last":         {hub.EventFilter{All: true, After: 10}, nil},
		"limit":              {hub.EventFilter{All: true, After: 2, Limit: 3}, []int64{3, 4, 5}},
		"client":             {hub.EventFilter{ClientID: "c2"}, []int64{3, 5, 7, 9}},
		"client after":       {hub.EventFilter{ClientID: "c1", After: 4, Limit: 2}, []int64{6, 8}},
		"no client":          {hub.EventFilter{}, nil},
		"unknown client":     {hub.EventFilter{ClientID: "c9"}, nil},
		"thread":             {hub.EventFilter{All: true, ThreadID: "a"}, []int64{1, 2, 4, 6, 8, 10}},
		"thread after":       {hub.EventFilter{All: true, ThreadID: "a", After: 4}, []int64{6, 8, 10}},
		"thread wrong owner": {hub.EventFilter{ClientID: "c2", ThreadID: "a"}, nil},
		"turn":               {hub.EventFilter{All: true, ThreadID: "b", TurnID: "b2"}, []int64{7, 9}},
		"turn only":          {hub.EventFilter{ClientID: "c1", TurnID: "a1"}, []int64{1, 2}},
		"turn after":         {hub.EventFilter{All: true, TurnID: "a2", After: 6, Limit: 1}, []int64{8}},
		"turn, other thread": {hub.EventFilter{All: true, ThreadID: "a", TurnID: "b2"}, nil},
		"no such turn":       {hub.EventFilter{All: true, ThreadID: "a", TurnID: "zz"}, nil},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := db.Events(ctx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(seqs(got), tc.want) {
				t.Errorf("got %v, want %v", seqs(got), tc.want)
			}
		})
	}
}

func TestEventsLimits(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	w := &hub.Write{Threads: []hub.Thread{thread("a", "c1", 1)}}
	for i := range DefaultEventLimit + 5 {
		w.Events = append(w.Events, hub.Event{Type: hub.EventMessageDelta, ThreadID: "a", At: at(i)})
	}
	mustCommit(t, db, w)
	for _, tc := range []struct{ limit, want int }{{0, DefaultEventLimit}, {-1, DefaultEventLimit}, {7, 7}, {5000, DefaultEventLimit + 5}} {
		got, err := db.Events(ctx, hub.EventFilter{All: true, Limit: tc.limit})
		if err != nil || len(got) != tc.want {
			t.Errorf("limit %d: %d events, %v; want %d", tc.limit, len(got), err, tc.want)
		}
	}
	if _, _, limit := eventsQuery(hub.EventFilter{All: true, Limit: 1 << 30}); limit != MaxEventLimit {
		t.Errorf("limit 1<<30 queries %d, want %d", limit, MaxEventLimit)
	}
}
