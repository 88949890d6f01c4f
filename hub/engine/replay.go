package engine

import (
	"strings"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// An imported session's history (ImportSession): the session/load replay
// is recorded as the thread's turns and events, so it reads, streams and
// searches like the turns the hub ran itself (stored = streamed: redacted
// before it is stored).

// maxReplayBytes bounds what one import records of a replay (an agent is
// untrusted); the rest is dropped and the last turn says so.
const maxReplayBytes = 64 << 20

// replayWriteRows is how many events one Write of a replay carries at
// most (a turn is never split across Writes, but a long one is a Write
// of its own).
const replayWriteRows = 500

// replayLog records a session/load replay: a user message chunk after
// anything else starts a turn; the agent's chunks, tool calls and plans
// are the turn's events. Guarded by the thread's rt.mu (SessionUpdate
// records under it; the agent's updates arrive in order, and all of them
// before session/load answers).
type replayLog struct {
	turns []*replayTurn
	size  int
	cut   bool
}

type replayTurn struct {
	input   strings.Builder
	updates []acp.SessionUpdate // what followed the user's message
}

// add records u; it reports false for an update that is not part of the
// conversation (mode, commands, options, usage, session info), which the
// caller handles as any replayed update.
func (r *replayLog) add(u acp.SessionUpdate) bool {
	switch u.Kind {
	case acp.UpdateUserMessageChunk, acp.UpdateAgentMessageChunk, acp.UpdateAgentThoughtChunk,
		acp.UpdateToolCall, acp.UpdateToolCallUpdate, acp.UpdatePlan:
	default:
		return false
	}
	if r.cut {
		return true
	}
	if r.size += len(u.Raw); r.size > maxReplayBytes {
		r.cut = true
		return true
	}
	var cur *replayTurn
	if n := len(r.turns); n > 0 {
		cur = r.turns[n-1]
	}
	if u.Kind == acp.UpdateUserMessageChunk {
		if cur == nil || len(cur.updates) > 0 {
			cur = &replayTurn{}
			r.turns = append(r.turns, cur)
		}
		if u.ParseErr == nil && u.Content != nil && u.Content.Type == "text" {
			cur.input.WriteString(u.Content.Text)
		}
		return true
	}
	if cur == nil { // the agent spoke first
		cur = &replayTurn{}
		r.turns = append(r.turns, cur)
	}
	cur.updates = append(cur.updates, u)
	return true
}

// writes turns the recorded replay into Writes for thread: per turn a
// completed turn (its input and output redacted like live text) with
// turn_started (payload "replayed": true), its events (consecutive text
// chunks of one kind merged into one delta, then redacted) and
// turn_completed.
func (e *Engine) replayWrites(thread hub.Thread, r *replayLog) []*hub.Write {
	var out []*hub.Write
	w := &hub.Write{}
	for i, rt := range r.turns {
		now := e.now()
		turn := hub.Turn{ID: newID("tu"), ThreadID: thread.ID, Status: hub.TurnCompleted,
			Input: e.redactString(rt.input.String()), StartedAt: now}
		started, _ := hub.NewEvent(hub.EventTurnStarted, thread, turn.ID, now, map[string]any{"input": turn.Input, "replayed": true})
		evs := []hub.Event{started}
		var output strings.Builder
		var text strings.Builder
		textType := ""
		flush := func() {
			if textType == "" {
				return
			}
			s := e.redactString(text.String())
			if textType == hub.EventMessageDelta {
				output.WriteString(s)
			}
			evs = append(evs, e.deltaEvents(thread, turn.ID, []delta{{textType, s}})...)
			text.Reset()
			textType = ""
		}
		for _, u := range rt.updates {
			if typ := textUpdate(u); typ != "" {
				if typ != textType {
					flush()
					textType = typ
				}
				text.WriteString(u.Content.Text)
				continue
			}
			flush()
			typ, payload := updateEvent(u)
			evs = append(evs, hub.Event{Type: typ, ThreadID: thread.ID, TurnID: turn.ID, ClientID: thread.ClientID, At: now, Payload: e.redactJSON(payload)})
		}
		flush()
		turn.Output = output.String()
		if r.cut && i == len(r.turns)-1 {
			turn.Error = "the agent's history was cut: it replayed more than the hub keeps of an imported session"
		}
		end := e.now()
		turn.EndedAt = &end
		done, _ := hub.NewEvent(hub.EventTurnCompleted, thread, turn.ID, end, map[string]any{"turn": turn})
		evs = append(evs, done)
		if len(w.Events) > 0 && len(w.Events)+len(evs) > replayWriteRows {
			out = append(out, w)
			w = &hub.Write{}
		}
		w.Turns = append(w.Turns, turn)
		w.Events = append(w.Events, evs...)
	}
	if len(w.Turns) > 0 {
		out = append(out, w)
	}
	return out
}
