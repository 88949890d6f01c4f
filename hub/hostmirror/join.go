package hostmirror

import (
	"encoding/json"

	"github.com/switchboard-hub/switchboard/hub"
)

// joined is a host's event as the mirror copies it: one event (from 0), or
// the text of the host's deltas of one turn from seq from to the event's
// Seq, which is the last of them.
type joined struct {
	hub.Event
	from int64
	gone bool // joined into a later one (joinDeltas' own)
}

// joinDeltas joins the text deltas of events (a batch of a host's stream,
// in its order) as the local store joins a turn's own (hub.Write.Coalesce,
// ADR 0056): a run of a thread's message or thought deltas of one turn,
// with only other threads' deltas between them, becomes one event holding
// their text in order (hub.JoinTextPayloads, within hub.DeltaJoinMax), so
// a link catching up stores a few thousand copies, not one per chunk.
//
// Guarantees:
//   - Each event's text is in exactly one result, in the thread's order;
//     a result joins nothing across anything else of its thread.
//   - A joined event takes the place and the seq of its last delta (from
//     is its first's), so the results' seqs rise as the batch's do: the
//     newest copy stored holds the highest host seq stored (store.HostSeq
//     resumes after it), and none of the joined deltas is resumed after
//     unless all of them were stored (they are one copy).
//   - Any event but a delta ends every run, so a run never spans a point
//     where the follower ends one Write and starts another (a thread's
//     deletion, a resync).
func joinDeltas(events []hub.Event) []joined {
	out := make([]joined, 0, len(events))
	var open map[string]int // thread → index in out of its run's last event (made at the first run)
	dead := 0               // events of out joined into a later one
	for _, ev := range events {
		if ev.Type != hub.EventMessageDelta && ev.Type != hub.EventThoughtDelta {
			clear(open)
			out = append(out, joined{Event: ev})
			continue
		}
		i, ok := open[ev.ThreadID]
		if ok {
			run := &out[i]
			if run.TurnID == ev.TurnID && run.Type == ev.Type {
				// The run's first payload is the stream's: its own copy
				// before JoinTextPayloads appends to it.
				text := run.Payload
				if run.from == 0 {
					text = append(make(json.RawMessage, 0, hub.DeltaJoinMax+16), text...)
				}
				if j, ok := hub.JoinTextPayloads(text, ev.Payload, hub.DeltaJoinMax); ok {
					from := run.from
					if from == 0 {
						from = run.Seq
					}
					run.gone = true
					dead++
					ev.Payload = j
					open[ev.ThreadID] = len(out)
					out = append(out, joined{Event: ev, from: from})
					continue
				}
			}
		}
		if open == nil {
			open = map[string]int{}
		}
		open[ev.ThreadID] = len(out)
		out = append(out, joined{Event: ev})
	}
	if dead == 0 {
		return out
	}
	live := out[:0]
	for _, j := range out {
		if !j.gone {
			live = append(live, j)
		}
	}
	return live
}
