package hub

import (
	"encoding/json"
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
