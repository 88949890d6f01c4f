package hostmirror

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// joinDeltas' guarantees over random batches: every text once, in each
// thread's order; seqs rising; a run never across another event of any
// thread; each joined payload a text payload within DeltaJoinMax; the
// stream's payloads left as they were (they share one buffer here, as a
// decoder's may).
func TestJoinDeltasKeepsEveryTextOnceInOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	texts := []string{"a", "tick 0042 ", `"quoted" \ back`, "é ✓ \u2028", strings.Repeat("x", 700), "<b>&amp;</b>"}
	for round := range 300 {
		var buf []byte
		var spans [][2]int
		var events []hub.Event
		for seq := int64(1); seq <= int64(1+r.IntN(120)); seq++ {
			th := fmt.Sprintf("t%d", r.IntN(3))
			ev := hub.Event{Seq: seq, ThreadID: th, TurnID: fmt.Sprintf("u%d", r.IntN(2))}
			switch k := r.IntN(10); {
			case k < 6:
				ev.Type = hub.EventMessageDelta
			case k < 8:
				ev.Type = hub.EventThoughtDelta
			case k < 9:
				ev.Type = hub.EventToolCall
			default:
				ev.Type = hub.EventThreadUpdated
			}
			p := hub.TextPayload(texts[r.IntN(len(texts))])
			spans = append(spans, [2]int{len(buf), len(buf) + len(p)})
			buf = append(buf, p...)
			events = append(events, ev)
		}
		// One buffer, no room after each payload but the next one's bytes.
		for i := range events {
			events[i].Payload = json.RawMessage(buf[spans[i][0]:spans[i][1]])
		}
		before := bytes.Clone(buf)

		got := joinDeltas(events)
		if !bytes.Equal(buf, before) {
			t.Fatalf("round %d: the stream's payloads were written to", round)
		}
		bySeq := map[int64]hub.Event{}
		for _, ev := range events {
			bySeq[ev.Seq] = ev
		}
		// Each result: its events are the thread's deltas of one turn and
		// type from from to seq, with no other event of any kind but other
		// threads' deltas between; its text theirs, in order.
		covered := map[int64]bool{}
		var last int64
		for _, j := range got {
			if j.Seq <= last {
				t.Fatalf("round %d: seq %d after %d", round, j.Seq, last)
			}
			last = j.Seq
			from := j.Seq
			if j.from > 0 {
				from = j.from
			}
			var want strings.Builder
			for q := from; q <= j.Seq; q++ {
				ev := bySeq[q]
				if ev.Type != hub.EventMessageDelta && ev.Type != hub.EventThoughtDelta && from != j.Seq {
					t.Fatalf("round %d: a run %d–%d across a %s", round, from, j.Seq, ev.Type)
				}
				if ev.ThreadID != j.ThreadID {
					continue
				}
				if ev.TurnID != j.TurnID || ev.Type != j.Type {
					t.Fatalf("round %d: run %d–%d (%s %s) holds %d (%s %s)", round, from, j.Seq, j.TurnID, j.Type, q, ev.TurnID, ev.Type)
				}
				if covered[q] {
					t.Fatalf("round %d: event %d in two results", round, q)
				}
				covered[q] = true
				var p struct{ Text string }
				if err := json.Unmarshal(ev.Payload, &p); err != nil {
					t.Fatal(err)
				}
				want.WriteString(p.Text)
			}
			var p struct{ Text string }
			if err := json.Unmarshal(j.Payload, &p); err != nil {
				t.Fatalf("round %d: result %d: %s: %v", round, j.Seq, j.Payload, err)
			}
			if p.Text != want.String() {
				t.Fatalf("round %d: result %d–%d holds %q, want %q", round, from, j.Seq, p.Text, want.String())
			}
			if j.from > 0 && len(j.Payload) > hub.DeltaJoinMax+len(`{"text":""}`) {
				t.Fatalf("round %d: joined payload of %d bytes", round, len(j.Payload))
			}
		}
		if len(covered) != len(events) {
			t.Fatalf("round %d: %d of %d events in the results", round, len(covered), len(events))
		}
	}
}

// A link catching up: ten turns' deltas interleaved become a few copies
// each, and a copy says which of the host's events it holds.
func TestCatchUpJoinsEachTurnsDeltas(t *testing.T) {
	var events []hub.Event
	for seq := int64(1); seq <= 500; seq++ {
		th := fmt.Sprintf("t%d", seq%10)
		events = append(events, hub.Event{Seq: seq, Type: hub.EventMessageDelta, ThreadID: th, TurnID: "u" + th,
			Payload: hub.TextPayload(fmt.Sprintf("tick %04d %s", seq, strings.Repeat("-", 50)))})
	}
	got := joinDeltas(events)
	if len(got) > 40 {
		t.Fatalf("%d copies of 500 deltas of 10 turns: want them joined", len(got))
	}
	w, ok, err := copyOf("box", "l0g", got[0].Event, got[0].from)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	var p struct {
		Text        string
		HostSeq     int64
		HostSeqFrom int64
		Host        string
	}
	if err := json.Unmarshal(w.Events[0].Payload, &p); err != nil {
		t.Fatal(err)
	}
	if p.HostSeqFrom != got[0].from || p.HostSeq != got[0].Seq || p.HostSeqFrom >= p.HostSeq || p.Host != "box" ||
		!strings.HasPrefix(p.Text, fmt.Sprintf("tick %04d", p.HostSeqFrom)) {
		t.Fatalf("copy %+v of %d–%d", p, got[0].from, got[0].Seq)
	}
}
