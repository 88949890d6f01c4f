package client

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// HistoryPage asks for a page (limit and cursor, cursor even empty) and
// decodes nextCursor; History without them surfaces the hub's 413.
func TestHistoryPage(t *testing.T) {
	f := newFakeHub(t)
	f.on("GET /v1/threads/th/history",
		jsonAnswer(200, `{"turns":[{"id":"tu_1","threadId":"th","status":"completed","input":"a","output":"","startedAt":"2026-11-24T06:00:00Z"}],"nextCursor":"c2"}`),
		jsonAnswer(200, `{"turns":[{"id":"tu_2","threadId":"th","status":"completed","input":"b","output":"","startedAt":"2026-11-24T06:00:01Z"}]}`),
		jsonAnswer(413, `{"error":{"code":"PAYLOAD_TOO_LARGE","message":"page it","details":{"reason":"HISTORY_TOO_LARGE"}}}`))
	c := testClient(f, Options{})
	ctx := context.Background()
	p, err := c.HistoryPage(ctx, "th", hub.HistoryQuery{IncludeEvents: true, Limit: 1})
	if err != nil || len(p.Turns) != 1 || p.Turns[0].ID != "tu_1" || p.NextCursor != "c2" {
		t.Fatalf("first page %+v %v", p, err)
	}
	p, err = c.HistoryPage(ctx, "th", hub.HistoryQuery{Cursor: p.NextCursor})
	if err != nil || len(p.Turns) != 1 || p.Turns[0].ID != "tu_2" || p.NextCursor != "" {
		t.Fatalf("second page %+v %v", p, err)
	}
	reqs := f.requests()
	if q := reqs[0].URL.Query(); q.Get("limit") != "1" || q.Get("includeEvents") != "true" || !q.Has("cursor") {
		t.Errorf("first query %v", q)
	}
	if q := reqs[1].URL.Query(); q.Get("cursor") != "c2" || q.Has("limit") || q.Has("includeEvents") {
		t.Errorf("second query %v", q)
	}
	_, err = c.History(ctx, "th", true)
	var e *Error
	if !errors.As(err, &e) || e.Status != 413 || e.Code != hub.CodePayloadTooLarge || e.Details["reason"] != hub.ReasonHistoryTooLarge {
		t.Fatalf("unpaged: %#v", err)
	}
	if q := f.requests()[2].URL.Query(); q.Has("limit") || q.Has("cursor") {
		t.Errorf("History sent %v", q)
	}
}

// A cut event (over the hub's limits.liveEventBytes) reaches a Stream's
// reader unchanged: its payload keeps "truncated" and "bytes", so the
// reader can fetch it whole from the history.
func TestStreamSurfacesCutEvents(t *testing.T) {
	f := newFakeHub(t)
	f.on("GET /v1/events", sse("id: 7\nevent: message_delta\ndata: {\"seq\":7,\"type\":\"message_delta\",\"threadId\":\"th\",\"turnId\":\"tu\",\"at\":\"2026-01-01T00:00:00Z\",\"text\":\"abc\",\"truncated\":true,\"bytes\":3000000}\n\n"))
	s, err := testClient(f, Options{}).Events(context.Background(), 0, StreamOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ev := readN(t, s, 1)[0]
	var p struct {
		Text      string `json:"text"`
		Truncated bool   `json:"truncated"`
		Bytes     int    `json:"bytes"`
	}
	if err := json.Unmarshal(ev.Payload, &p); err != nil || ev.Seq != 7 || p.Text != "abc" || !p.Truncated || p.Bytes != 3000000 {
		t.Fatalf("event %+v payload %s: %v", ev, ev.Payload, err)
	}
}
