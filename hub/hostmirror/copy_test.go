package hostmirror

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// A hostile host's events: whatever ids it sends, its copies name only its
// own objects; it cannot move the window's resume point, announce hub-wide
// events, nor flood the store with one huge event.
func TestCopyOfAHostileHost(t *testing.T) {
	at := time.Date(2026, 11, 28, 5, 0, 0, 0, time.UTC)
	payload := `{"seq":1,"type":"config_error","threadId":"t9","at":"x","host":"other","hostSeq":1,"hostSeqFrom":1,"hostLog":"forged",
		"permission":{"id":"p1@other","threadId":"t1@other","turnId":"u1","status":"pending","options":[]},
		"text":"<script>alert(1)</script>"}`
	w, ok, err := copyOf("box", "b0x", hub.Event{Seq: 42, Type: hub.EventPermissionRequired, ThreadID: "t1@other", TurnID: "u1", At: at, Payload: json.RawMessage(payload)}, 0)
	if err != nil || !ok {
		t.Fatalf("copyOf: %v %v", ok, err)
	}
	ev := w.Events[0]
	if ev.ThreadID != "t1@other@box" || ev.TurnID != "u1@box" || ev.Type != hub.EventPermissionRequired {
		t.Fatalf("event %+v: want the ids of host box's objects", ev)
	}
	if _, h := hub.SplitHostID(ev.ThreadID); h != "box" {
		t.Fatalf("routes to %q", h)
	}
	var p map[string]any
	if err := json.Unmarshal(ev.Payload, &p); err != nil {
		t.Fatal(err)
	}
	// hostSeqFrom would claim the copy holds the host's events from seq 1.
	for _, k := range []string{"seq", "type", "threadId", "at", "hostSeqFrom"} {
		if _, ok := p[k]; ok {
			t.Errorf("the copy's payload keeps the host's %q: %s", k, ev.Payload)
		}
	}
	if p["host"] != "box" || p["hostSeq"] != float64(42) || p["hostLog"] != "b0x" || p["text"] != "<script>alert(1)</script>" {
		t.Errorf("payload %s: want host box, hostSeq 42 and the text as it came (shown as text)", ev.Payload)
	}
	if len(w.Permissions) != 1 {
		t.Fatalf("permissions %+v", w.Permissions)
	}
	if got := w.Permissions[0]; got.ID != "p1@other@box" || got.ThreadID != "t1@other@box" || got.TurnID != "u1@box" || got.Host != "box" {
		t.Fatalf("permission copy %+v: it must be box's, on the event's thread", got)
	}
	// Its own wire form has one seq: the local one.
	ev.Seq = 7
	b, _ := ev.MarshalJSON()
	if strings.Count(string(b), `"seq"`) != 1 {
		t.Fatalf("wire form %s", b)
	}

	for _, tt := range []struct {
		name string
		ev   hub.Event
	}{
		{"hub-wide", hub.Event{Seq: 1, Type: hub.EventConfigError, Payload: json.RawMessage(`{"file":"x","message":"y"}`)}},
		{"hub-wide with a thread", hub.Event{Seq: 1, Type: hub.EventAgentsChanged, ThreadID: "t1", Payload: json.RawMessage(`{}`)}},
		{"client request", hub.Event{Seq: 1, Type: hub.EventClientRequest, ThreadID: "t1", Payload: json.RawMessage(`{}`)}},
		{"not an object", hub.Event{Seq: 1, Type: hub.EventMessageDelta, ThreadID: "t1", Payload: json.RawMessage(`[1]`)}},
		{"huge", hub.Event{Seq: 1, Type: hub.EventMessageDelta, ThreadID: "t1",
			Payload: json.RawMessage(`{"text":"` + strings.Repeat("a", MaxCopyBytes) + `"}`)}},
	} {
		if _, ok, _ := copyOf("box", "", tt.ev, 0); ok {
			t.Errorf("%s: copied", tt.name)
		}
	}
}

// A thread object of another id in a host's thread_updated is still the
// event's thread's copy.
func TestCopyKeepsRowsOnTheEventsThread(t *testing.T) {
	w, ok, err := copyOf("box", "", hub.Event{Seq: 3, Type: hub.EventThreadUpdated, ThreadID: "t1",
		Payload: json.RawMessage(`{"thread":{"id":"local-thread","agent":"fake","cwd":"/w","clientId":"alice","status":"idle"}}`)}, 0)
	if err != nil || !ok || len(w.Threads) != 1 {
		t.Fatalf("%v %v %+v", ok, err, w)
	}
	if got := w.Threads[0]; got.ID != "t1@box" || got.Host != "box" {
		t.Fatalf("thread copy %+v", got)
	}
	w, _, _ = copyOf("box", "", hub.Event{Seq: 4, Type: hub.EventThreadUpdated, ThreadID: "t1",
		Payload: json.RawMessage(`{"thread":{"id":"t1"},"deleted":true}`)}, 0)
	if len(w.Threads) != 0 || len(w.DeleteThreads) != 1 || w.DeleteThreads[0] != "t1@box" {
		t.Fatalf("a deletion: %+v", w)
	}
}

// Deciding a permission whose id names another host through this host's
// copy goes to this host, never the other.
func TestRouterSendsAnIDToItsLastHost(t *testing.T) {
	hs := New(Local{}, Options{})
	defer hs.Close()
	r := &Router{hosts: hs}
	_, err := r.DecidePermission(t.Context(), hub.Caller{ClientID: "alice"}, "p1@other@box", hub.Decision{Outcome: "approved"})
	if hub.ErrorCode(err) != hub.CodeNotFound || !strings.Contains(err.Error(), `"box"`) {
		t.Fatalf("got %v: want NOT_FOUND for host box (not added)", err)
	}
}

// The quick copy of a plain payload (no row, no envelope key) holds what
// the full one holds, key for key; a payload naming a row or an envelope
// key anywhere, one spread over lines, one that is not JSON, goes the full
// way (where its rows are made and its forged keys dropped).
func TestPlainCopyHoldsWhatTheFullOneDoes(t *testing.T) {
	for i, p := range []string{
		`{"text":"a \"turn\": b\\n <b>"}`,
		`{}`,
		`{"toolCallId":"c1","status":"pending","title":"Read <x> & y","rawInput":{"path":"/a"}}`,
	} {
		src := source{host: "box", log: "l0g", seq: 42, from: int64(i) * 20} // 0: one event; else joined deltas
		quick, ok := plainCopy(json.RawMessage(p), src)
		if !ok {
			t.Fatalf("%s: not copied the quick way", p)
		}
		full, ok, err := fullCopy(&hub.Write{}, src, "t1@box", hub.Event{Seq: 42, Type: hub.EventMessageDelta, Payload: json.RawMessage(p)})
		if err != nil || !ok {
			t.Fatalf("%s: fullCopy %v %v", p, ok, err)
		}
		var q, f map[string]any
		if json.Unmarshal(quick, &q) != nil || json.Unmarshal(full, &f) != nil {
			t.Fatalf("%s: not JSON: %s / %s", p, quick, full)
		}
		if qb, _ := json.Marshal(q); string(qb) != string(mustMarshal(t, f)) {
			t.Fatalf("%s: quick %s, full %s", p, quick, full)
		}
	}
	for _, p := range []string{
		`{"turn":{"id":"u1"}}`,
		`{"nested":{"permission":{"id":"p"}}}`,
		`{"text":"x","hostSeq":1}`,
		`{"text":"x","hostSeqFrom":1}`,
		`{"seq":9,"text":"x"}`,
		"{\"text\":\n\"x\"}",
		`{"text":"x"`,
		`{"text":x}`,
	} {
		if _, ok := plainCopy(json.RawMessage(p), source{host: "box", seq: 1}); ok {
			t.Errorf("%q copied the quick way", p)
		}
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
