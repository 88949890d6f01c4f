package client

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// A turn_completed whose output was cut is completed from the history,
// paging until the turn is found; a whole one is returned as it came,
// with no request.
func TestCompletedTurn(t *testing.T) {
	whole := strings.Repeat("é", 40000) // 80,000 bytes
	f := newFakeHub(t)
	f.on("GET /v1/threads/th/history",
		jsonAnswer(200, `{"turns":[{"id":"tu_1","threadId":"th","status":"completed","input":"a","output":"","startedAt":"2026-11-24T06:00:00Z"}],"nextCursor":"c2"}`),
		jsonAnswer(200, `{"turns":[{"id":"tu_2","threadId":"th","status":"completed","input":"b","output":"`+whole+`","startedAt":"2026-11-24T06:00:01Z"}]}`))
	c := testClient(f, Options{})
	ctx := context.Background()

	cut := hub.Turn{ID: "tu_2", ThreadID: "th", Status: hub.TurnCompleted, Output: whole}.ForEvent()
	if !cut.OutputTruncated || cut.OutputBytes != len(whole) || len(cut.Output) > hub.TurnEventOutputMax || !strings.HasPrefix(whole, cut.Output) || len(cut.Output)%2 != 0 {
		t.Fatalf("ForEvent: truncated %v, bytes %d, output %d bytes", cut.OutputTruncated, cut.OutputBytes, len(cut.Output))
	}
	ev, err := hub.NewEvent(hub.EventTurnCompleted, hub.Thread{ID: "th"}, "tu_2", cut.StartedAt, map[string]any{"turn": cut})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.CompletedTurn(ctx, ev)
	if err != nil || got.ID != "tu_2" || got.Output != whole || got.OutputTruncated {
		t.Fatalf("CompletedTurn: %d bytes of output, truncated %v, %v", len(got.Output), got.OutputTruncated, err)
	}
	reqs := f.requests()
	if len(reqs) != 2 || reqs[1].URL.Query().Get("cursor") != "c2" || reqs[0].URL.Query().Has("includeEvents") {
		t.Errorf("requests: %d, second %v", len(reqs), reqs[len(reqs)-1].URL.Query())
	}

	small := hub.Turn{ID: "tu_3", ThreadID: "th", Status: hub.TurnCompleted, Output: "short"}.ForEvent()
	ev, _ = hub.NewEvent(hub.EventTurnCompleted, hub.Thread{ID: "th"}, "tu_3", small.StartedAt, map[string]any{"turn": small})
	if got, err := c.CompletedTurn(ctx, ev); err != nil || got.Output != "short" || len(f.requests()) != 2 {
		t.Errorf("a whole output: %+v %v, %d requests", got, err, len(f.requests()))
	}
	if _, err := c.CompletedTurn(ctx, hub.Event{Type: hub.EventMessageDelta}); err == nil {
		t.Error("CompletedTurn accepted a message_delta")
	}
}
