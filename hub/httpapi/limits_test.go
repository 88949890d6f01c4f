package httpapi

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// One client id holds at most StreamsPerClient SSE streams at once, event
// streams and streamed turns alike, scope=all or not; the next is 429
// with Retry-After and details.reason STREAMS_PER_CLIENT (a refused turn
// stream starts no turn); another client is not affected; closing a stream
// frees its slot.
func TestStreamsPerClient(t *testing.T) {
	for _, tt := range []struct {
		name  string
		limit int
		want  int
	}{{"default", 0, hub.DefaultStreamsPerClient}, {"configured", 3, 3}} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, func(o *Options) { o.Limits.StreamsPerClient = tt.limit })
			id := h.newThread("c1")
			var open []*sseStream
			paths := []string{"/v1/events", "/v1/events?scope=all", "/v1/threads/" + id + "/events"}
			for i := range tt.want {
				open = append(open, h.openStream(h.request("GET", paths[i%len(paths)], "")))
			}
			refused := func(r reply) {
				t.Helper()
				var b ErrorBody
				h.mustJSON(r, 429, &b)
				if b.Error.Code != hub.CodeTooManyRequests || b.Error.Details["reason"] != hub.ReasonStreamsPerClient ||
					b.Error.Details["limit"] != float64(tt.want) || r.header.Get("Retry-After") == "" {
					t.Fatalf("refusal %s, Retry-After %q", r.body, r.header.Get("Retry-After"))
				}
			}
			refused(h.call("GET", "/v1/events", ""))
			refused(h.call("GET", "/v1/threads/"+id+"/events?scope=all", ""))
			before := h.fake.eventCount()
			refused(h.call("POST", "/v1/threads/"+id+"/turns", `{"input":"x"}`, withHeader("Accept", "text/event-stream")))
			if h.fake.eventCount() != before {
				t.Fatal("a refused turn stream started a turn")
			}
			// Another client has its own slots.
			h.openStream(h.request("GET", "/v1/events", "", withHeader("X-Client-ID", "c2")))
			// Closing one frees its slot (once the server has seen it go).
			open[0].resp.Body.Close()
			waitFor(t, "the slot to free", func() bool {
				resp, err := h.client.Do(h.request("GET", "/v1/events", ""))
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				return resp.StatusCode == 200
			})
		})
	}
}

// SetLimits applies to streams opened afterwards.
func TestStreamsPerClientLive(t *testing.T) {
	h := newHarness(t)
	h.srv.SetLimits(Limits{StreamsPerClient: 1})
	h.openStream(h.request("GET", "/v1/events", ""))
	if r := h.call("GET", "/v1/events", ""); r.status != 429 {
		t.Fatalf("status %d after lowering the limit to 1", r.status)
	}
	h.srv.SetLimits(Limits{StreamsPerClient: 2})
	h.openStream(h.request("GET", "/v1/events", ""))
}

// An event over LiveEventBytes is written cut — live and resumed alike —
// with truncated: true and its full size; history serves it whole.
func TestLiveEventCut(t *testing.T) {
	const limit = 64 << 10
	h := newHarness(t, func(o *Options) { o.Limits.LiveEventBytes = limit })
	id := h.newThread("c1")
	live := h.openStream(h.request("GET", "/v1/threads/"+id+"/events", ""))
	h.fake.mu.Lock()
	text := strings.Repeat("0123456789", 30<<10) // 300 KiB
	whole := h.fake.emitLocked(hub.EventMessageDelta, h.fake.threads[id], "tu_big", map[string]string{"text": text})
	small := h.fake.emitLocked(hub.EventMessageDelta, h.fake.threads[id], "tu_big", map[string]string{"text": "after"})
	h.fake.mu.Unlock()
	wholeJSON, _ := whole.MarshalJSON()
	smallJSON, _ := small.MarshalJSON()

	check := func(s *sseStream) {
		t.Helper()
		for {
			f := s.nextEvent()
			if f.event != hub.EventMessageDelta {
				continue
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(f.data), &m); err != nil {
				t.Fatal(err)
			}
			if len(f.data) > limit || m["truncated"] != true || m["bytes"] != float64(len(wholeJSON)) ||
				!strings.HasPrefix(text, m["text"].(string)) || len(m["text"].(string)) == 0 || f.id != strconv.FormatInt(whole.Seq, 10) {
				t.Fatalf("cut event: %d bytes, truncated %v, bytes %v (whole %d), id %s", len(f.data), m["truncated"], m["bytes"], len(wholeJSON), f.id)
			}
			if next := s.nextEvent(); next.data != string(smallJSON) {
				t.Fatalf("the event after it: %s, want it whole: %s", next.data, smallJSON)
			}
			return
		}
	}
	check(live)
	check(h.openStream(h.request("GET", "/v1/threads/"+id+"/events?after="+strconv.FormatInt(whole.Seq-1, 10), "")))
	if !strings.Contains(h.logs.String(), "event sent cut") {
		t.Fatal("a cut event is not logged")
	}
}

// GET …/history with limit or cursor is HistoryPage: turns a page at a
// time with nextCursor; a bad limit is 400. Unpaged, an answer over 64 MiB
// of JSON is 413 PAYLOAD_TOO_LARGE with details.reason HISTORY_TOO_LARGE,
// as is the Service's own refusal.
func TestHistoryPaging(t *testing.T) {
	h := newHarness(t)
	id := h.newThread("c1")
	var turns []string
	for range 3 {
		var a struct{ Turn hub.Turn }
		before := h.fake.eventCount()
		h.mustJSON(h.call("POST", "/v1/threads/"+id+"/turns", `{"input":"hi"}`), 202, &a)
		waitFor(t, "the turn", func() bool { return h.fake.eventCount() == before+3 })
		turns = append(turns, a.Turn.ID)
	}
	var got []string
	path := "/v1/threads/" + id + "/history?includeEvents=true&limit=2"
	for pages := 0; ; pages++ {
		var p struct {
			Turns      []hub.TurnHistory
			NextCursor *string
		}
		h.mustJSON(h.call("GET", path, ""), 200, &p)
		for _, tu := range p.Turns {
			if len(tu.Events) == 0 {
				t.Fatalf("turn %s without events", tu.ID)
			}
			got = append(got, tu.ID)
		}
		if q := h.fake.lastHistoryQuery; q.Limit != 2 || !q.IncludeEvents {
			t.Fatalf("query %+v", q)
		}
		if p.NextCursor == nil {
			if pages != 1 {
				t.Fatalf("%d pages, want 2", pages+1)
			}
			break
		}
		path = "/v1/threads/" + id + "/history?includeEvents=true&limit=2&cursor=" + *p.NextCursor
	}
	if strings.Join(got, ",") != strings.Join(turns, ",") {
		t.Fatalf("paged %v, want %v", got, turns)
	}
	for _, q := range []string{"limit=0", "limit=x", "cursor=zz"} {
		if r := h.call("GET", "/v1/threads/"+id+"/history?"+q, ""); r.status != 400 {
			t.Errorf("%s: %d", q, r.status)
		}
	}

	tooLarge := func(r reply) {
		t.Helper()
		var b ErrorBody
		h.mustJSON(r, 413, &b)
		if b.Error.Code != hub.CodePayloadTooLarge || b.Error.Details["reason"] != hub.ReasonHistoryTooLarge || !strings.Contains(b.Error.Message, "limit and cursor") {
			t.Fatalf("413 body %s", r.body)
		}
	}
	h.fake.failNext(&hub.Error{Code: hub.CodePayloadTooLarge, Message: "the history is larger than 64 MiB: read it in pages with limit and cursor",
		Details: map[string]any{"reason": hub.ReasonHistoryTooLarge}})
	tooLarge(h.call("GET", "/v1/threads/"+id+"/history", ""))
	h.fake.mu.Lock()
	h.fake.turns[turns[0]].Output = strings.Repeat("x", hub.MaxHistoryBytes)
	h.fake.mu.Unlock()
	tooLarge(h.call("GET", "/v1/threads/"+id+"/history", ""))
	h.mustJSON(h.call("GET", "/v1/threads/"+id+"/history?limit=1&cursor=1", ""), 200, nil)
}
