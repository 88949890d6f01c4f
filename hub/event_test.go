package hub

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

func TestEventWireForm(t *testing.T) {
	at := time.Date(2026, 11, 21, 6, 0, 0, 5, time.UTC)
	e, err := NewEvent(EventMessageDelta, Thread{ID: "th1", ClientID: "c1"}, "tu1", at, map[string]string{"text": "hi \"there\""})
	if err != nil {
		t.Fatal(err)
	}
	e.Seq = 42
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"seq":42,"type":"message_delta","threadId":"th1","turnId":"tu1","at":"2026-11-21T06:00:00.000000005Z","text":"hi \"there\""}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	var back Event
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Seq != 42 || back.Type != EventMessageDelta || back.TurnID != "tu1" || !back.At.Equal(at) || string(back.Payload) != `{"text":"hi \"there\""}` {
		t.Fatalf("round trip %+v %s", back, back.Payload)
	}
	empty := Event{Seq: 1, Type: EventResync, At: at}
	if b, _ := json.Marshal(empty); string(b) != `{"seq":1,"type":"resync","threadId":"","turnId":"","at":"2026-11-21T06:00:00.000000005Z"}` {
		t.Fatalf("empty payload: %s", b)
	}
	if _, err := json.Marshal(Event{Payload: json.RawMessage(`[1]`)}); err == nil {
		t.Fatal("a non-object payload must not marshal")
	}
}

func TestAppendJSONStringMatchesMarshal(t *testing.T) {
	for _, s := range []string{"", "th_0123abc", "message_delta", `a"b`, `back\slash`, "<tag>&", "tab\there", "é", "\u2028", "\x7f"} {
		got := appendJSONString([]byte("x"), s)
		want, _ := json.Marshal(s)
		if string(got) != "x"+string(want) {
			t.Errorf("%q: got %s, want x%s", s, got, want)
		}
	}
}

// An event's wire form reads back as the event, the quick way (wireEvent)
// for what a hub writes with plain ids, the full way for anything else:
// ids with characters the writer escapes, a payload repeating an
// envelope key (the last one wins, as in any JSON object), whitespace.
func TestEventWireFormReadsBack(t *testing.T) {
	at := time.Date(2026, 11, 28, 15, 4, 5, 123456789, time.UTC)
	for _, c := range []struct {
		ev    Event
		quick bool
	}{
		{Event{Seq: 7, Type: EventMessageDelta, ThreadID: "t1@box", TurnID: "u1", At: at, Payload: json.RawMessage(`{"text":"a \"b\" <c>\n","host":"box","hostSeq":3}`)}, true},
		{Event{Seq: 8, Type: EventThreadUpdated, ThreadID: "t1", At: at, Payload: json.RawMessage(`{}`)}, true},
		{Event{Seq: 9, Type: EventHostChanged, At: at, Payload: json.RawMessage(`{"name":"box","state":"connected"}`)}, true},
		{Event{Seq: 10, Type: EventMessageDelta, ThreadID: "t<1>", TurnID: "u1", At: at, Payload: json.RawMessage(`{"text":"x"}`)}, false},
	} {
		b, err := c.ev.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := wireEvent(b); ok != c.quick {
			t.Errorf("%s: read the quick way %v, want %v", b, ok, c.quick)
		}
		var got Event
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		var gp, wp map[string]any
		json.Unmarshal(got.Payload, &gp)
		json.Unmarshal(c.ev.Payload, &wp)
		if got.Seq != c.ev.Seq || got.Type != c.ev.Type || got.ThreadID != c.ev.ThreadID || got.TurnID != c.ev.TurnID ||
			!got.At.Equal(c.ev.At) || fmt.Sprint(gp) != fmt.Sprint(wp) {
			t.Errorf("%s read back as %+v (payload %s)", b, got, got.Payload)
		}
	}
	for _, data := range []string{
		`{"seq":1,"type":"message_delta","threadId":"t1","turnId":"","at":"2026-11-28T15:04:05Z","seq":2,"text":"x"}`,
		`{"seq":1,"type":"message_delta","threadId":"t1","turnId":"","at":"2026-11-28T15:04:05Z","text":"x","type":"config_error"}`,
		"{\"seq\":1,\"type\":\"message_delta\",\"threadId\":\"t1\",\"turnId\":\"\",\"at\":\"2026-11-28T15:04:05Z\",\n\"text\":\"x\"}",
		`{"seq":1,"type":"message_delta","threadId":"t1","turnId":"","at":"2026-11-28T15:04:05Z","text":x}`,
		`{"seq":01,"type":"message_delta","threadId":"t1","turnId":"","at":"2026-11-28T15:04:05Z","text":"x"}`,
		"{\"seq\":1,\"type\":\"message_delta\",\"threadId\":\"t\x01\",\"turnId\":\"\",\"at\":\"2026-11-28T15:04:05Z\",\"text\":\"x\"}",
	} {
		if _, ok := wireEvent([]byte(data)); ok {
			t.Errorf("%q read the quick way", data)
		}
	}
	var dup Event
	if err := json.Unmarshal([]byte(`{"seq":1,"type":"message_delta","threadId":"t1","turnId":"","at":"2026-11-28T15:04:05Z","seq":2,"text":"x"}`), &dup); err != nil || dup.Seq != 2 || string(dup.Payload) != `{"text":"x"}` {
		t.Errorf("a repeated seq: %+v %v, want the last (2) and the payload without it", dup, err)
	}
}
