package hub

import (
	"encoding/json"
	"strings"
	"testing"
)

func textOf(t *testing.T, p json.RawMessage) string {
	t.Helper()
	var v map[string]string
	if err := json.Unmarshal(p, &v); err != nil || len(v) != 1 {
		t.Fatalf("payload %s: %v, %d keys", p, err, len(v))
	}
	return v["text"]
}

// The joined payload reads as the two texts one after the other, whatever
// the texts hold: escapes, quotes, backslashes, line separators, runes of
// every width, invalid UTF-8 (each payload reads with U+FFFD for it).
func TestJoinTextPayloads(t *testing.T) {
	texts := []string{"", "a", `"`, `\`, `\\"`, "a\nb\tc", "\u2028\u2029", "é€😀", "<script>", "\x00\x1f", "bad \xe2\x82", "\xac end"}
	for _, x := range texts {
		for _, y := range texts {
			a, b := TextPayload(x), TextPayload(y)
			want := textOf(t, a) + textOf(t, b)
			joined, ok := JoinTextPayloads(a, b, 1<<20)
			if !ok {
				t.Fatalf("%q + %q: not joined", x, y)
			}
			if got := textOf(t, joined); got != want {
				t.Errorf("%q + %q: joined text %q, want %q", x, y, got, want)
			}
		}
	}
}

func FuzzJoinTextPayloads(f *testing.F) {
	f.Add("chunk one ", `and "two" \ `)
	f.Add("\xe2\x82", "\xac")
	f.Fuzz(func(t *testing.T, x, y string) {
		a, b := TextPayload(x), TextPayload(y)
		want := textOf(t, a) + textOf(t, b)
		joined, ok := JoinTextPayloads(a, b, 1<<30)
		if !ok {
			t.Fatalf("not joined")
		}
		if got := textOf(t, joined); got != want {
			t.Fatalf("joined text %q, want %q", got, want)
		}
	})
}

// What is not TextPayload's form is never joined — a payload with another
// key, an escape left open at the end, another shape — nor a join past
// max; the first payload is then returned as it was.
func TestJoinTextPayloadsRefuses(t *testing.T) {
	ok := TextPayload("fine")
	for _, tc := range []struct {
		name string
		a, b string
		max  int
	}{
		{"second key in the first", `{"text":"a","x":"b"}`, string(ok), 1 << 20},
		{"second key in the second", string(ok), `{"text":"a","x":"b"}`, 1 << 20},
		{"escape left open", `{"text":"a\"}`, string(ok), 1 << 20},
		{"escaped quote then more", string(ok), `{"text":"a\\"b"}`, 1 << 20},
		{"not a string", `{"text":1}`, string(ok), 1 << 20},
		{"spaces", `{ "text":"a"}`, string(ok), 1 << 20},
		{"other key", `{"data":"a"}`, string(ok), 1 << 20},
		{"too short", `{"text":"`, string(ok), 1 << 20},
		{"past max", string(TextPayload(strings.Repeat("x", 10))), string(TextPayload(strings.Repeat("y", 10))), 19},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := json.RawMessage(tc.a)
			got, joined := JoinTextPayloads(a, json.RawMessage(tc.b), tc.max)
			if joined || string(got) != tc.a {
				t.Errorf("joined %v: %s", joined, got)
			}
		})
	}
	// At max exactly: joined.
	if _, joined := JoinTextPayloads(TextPayload(strings.Repeat("x", 10)), TextPayload(strings.Repeat("y", 10)), 20+len(`{"text":""}`)); !joined {
		t.Error("a join of exactly max bytes was refused")
	}
}

// A joined delta's wire form stays under the smallest live event limit
// (limits.liveEventBytes ≥ 4096), so joining never makes a stream send an
// event cut that it would have sent whole.
func TestDeltaJoinMaxUnderLiveLimit(t *testing.T) {
	p := json.RawMessage(`{"text":"` + strings.Repeat(`\u2028`, (DeltaJoinMax-11)/6) + `"}`)
	e := Event{Seq: 1 << 62, Type: EventThoughtDelta, ThreadID: strings.Repeat("t", 64), TurnID: strings.Repeat("u", 64), Payload: p}
	data, cut, err := CutEvent(e, 4096)
	if err != nil || cut {
		t.Fatalf("a %d-byte delta payload: cut %v, err %v (wire form %d bytes)", len(p), cut, err, len(data))
	}
}
