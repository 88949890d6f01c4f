package store

import "github.com/switchboard-hub/switchboard/hub"

// coalesce joins the text deltas of batch that hub.Write.Coalesce allows
// to be joined, before the batch is applied: a streaming turn's chunks
// that queued up while the previous commit was being written become one
// event, so each costs its text and not a row, index entries, a search
// update and a write to every stream (docs/PERFORMANCE.md). A Write whose
// delta was joined keeps no events and points (o.into) at the op that
// stores its text, whose error becomes its own.
//
// A thread's open delta — the one later deltas may join — is closed by
// any other Write that has an event of that thread, and every open delta
// by a Write that does more than append events, so nothing of a thread
// moves across anything else of that thread.
func coalesce(batch []*op) {
	var open map[string]*op // thread → the op holding its open delta
	for _, o := range batch {
		w := o.w
		if w == nil {
			continue
		}
		if !w.Coalesce || len(w.Events) != 1 || modifications(w) != 1 || textKind(w.Events[0].Type) == "" {
			if modifications(w) != len(w.Events) {
				clear(open)
			}
			for i := range w.Events {
				delete(open, w.Events[i].ThreadID)
			}
			continue
		}
		e := &w.Events[0]
		if p := open[e.ThreadID]; p != nil {
			pe := &p.w.Events[0]
			if pe.TurnID == e.TurnID && pe.Type == e.Type {
				if joined, ok := hub.JoinTextPayloads(pe.Payload, e.Payload, hub.DeltaJoinMax); ok {
					pe.Payload = joined
					w.Events = w.Events[:0]
					o.into = p
					continue
				}
			}
		}
		if open == nil {
			open = map[string]*op{}
		}
		open[e.ThreadID] = o
	}
}

// joinedErrs gives each op whose delta was joined the error of the op
// that stored it.
func joinedErrs(batch []*op) {
	for _, o := range batch {
		if o.into != nil && o.err == nil {
			o.err = o.into.err
		}
	}
}
