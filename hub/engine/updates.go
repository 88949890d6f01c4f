package engine

import (
	"context"
	"encoding/json"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/redact"
)

// threadClient serves one thread's agent: its updates become events, its
// permission requests go to the user.
type threadClient struct {
	e      *Engine
	rt     *threadRT
	thread hub.Thread
}

// SessionUpdate stores the update as an event (async, group-committed) and
// publishes it after the commit. Updates that replay history during
// session/load are not new events and are dropped, but for an imported
// session's, which become its history (replay.go).
func (c *threadClient) SessionUpdate(_ context.Context, n acp.SessionNotification) {
	if c.subagentUpdate(n) { // subagent.go: a child session's, or its announcement
		return
	}
	if n.Update.Kind == acp.UpdateUsage && n.Update.ParseErr == nil {
		c.usageUpdate(n) // usage.go: the event and the ledger's record
		return
	}
	c.rt.mu.Lock()
	if r := c.rt.replay; r != nil && r.add(n.Update) { // an imported session's history: replay.go
		c.rt.mu.Unlock()
		return
	}
	replaying, tr := c.rt.replaying, c.rt.turn
	if tr != nil {
		tr.wd.touch() // a leaf lock
	}
	if !replaying {
		c.noteUsageLocked(n.Update, tr)
		if state := trackUpdate(c.rt, n.Update); state != nil {
			// Queued under rt.mu, so in order with a set call's write.
			c.commitUpdate(n.Update, tr, state)
			c.rt.mu.Unlock()
			return
		}
	}
	c.rt.mu.Unlock()
	if replaying {
		return
	}
	if k := n.Update.Kind; tr != nil && (k == acp.UpdateToolCall || k == acp.UpdateToolCallUpdate) {
		tr.noteToolCall(n.Update) // what a permission for it is described from
	}
	c.commitUpdate(n.Update, tr, nil)
}

// touch tells the running turn's watchdog the agent is alive (a request).
func (c *threadClient) touch() {
	c.rt.mu.Lock()
	tr := c.rt.turn
	c.rt.mu.Unlock()
	if tr != nil {
		tr.wd.touch()
	}
}

// commitUpdate stores an update as an event, with the session state it
// changed.
func (c *threadClient) commitUpdate(u acp.SessionUpdate, tr *turnRT, state *hub.SessionState) {
	if w := c.updateWrite(u, tr, state); w != nil {
		c.e.commitAsync(w)
	}
}

// updateWrite is the Write that stores an update as an event (and the
// text the turn's redaction stream releases with it), with the session
// state it changed; nil when there is nothing to store yet.
func (c *threadClient) updateWrite(u acp.SessionUpdate, tr *turnRT, state *hub.SessionState) *hub.Write {
	turnID := ""
	if tr != nil {
		turnID = tr.turn.ID
	}
	on := c.e.redacting.Load()
	w := &hub.Write{}
	if typ := textUpdate(u); typ != "" {
		// A message or thought chunk: through the turn's redaction
		// stream, which may hold its end back for the next chunk.
		text := u.Content.Text
		if tr != nil {
			// A new message id: release what the redaction stream holds
			// of the message before, then say which message follows.
			if tr.switchMessage(typ, u.MessageID) {
				w.Events = c.e.deltaEvents(c.thread, turnID, tr.chunk("", "", on))
				w.Events = append(w.Events, c.e.messageStarted(c.thread, turnID, typ, u.MessageID))
			}
		}
		if tr == nil {
			if on {
				text, _ = redact.String(text)
			}
			w.Events = c.e.deltaEvents(c.thread, turnID, []delta{{typ, text}})
		} else {
			w.Events = append(w.Events, c.e.deltaEvents(c.thread, turnID, tr.chunk(typ, text, on))...)
		}
	} else {
		if tr != nil {
			w.Events = c.e.deltaEvents(c.thread, turnID, tr.chunk("", "", on))
		}
		typ, payload := updateEvent(u)
		if on {
			payload, _ = redact.JSON(payload)
		}
		w.Events = append(w.Events, hub.Event{Type: typ, ThreadID: c.thread.ID, TurnID: turnID, ClientID: c.thread.ClientID, At: c.e.now(), Payload: payload})
	}
	if len(w.Events) == 0 && state == nil {
		return nil // all held back
	}
	if state != nil {
		w.SessionStates = []hub.SessionState{*state}
	}
	// One delta and nothing else: it may join the turn's previous delta
	// if both wait for the same commit (hub.Write.Coalesce).
	w.Coalesce = state == nil && len(w.Events) == 1 &&
		(w.Events[0].Type == hub.EventMessageDelta || w.Events[0].Type == hub.EventThoughtDelta)
	return w
}

// textUpdate is the event type of a text message or thought chunk, else "".
func textUpdate(u acp.SessionUpdate) string {
	if u.ParseErr != nil || u.Content == nil || u.Content.Type != "text" {
		return ""
	}
	switch u.Kind {
	case acp.UpdateAgentMessageChunk:
		return hub.EventMessageDelta
	case acp.UpdateAgentThoughtChunk:
		return hub.EventThoughtDelta
	}
	return ""
}

// updateEvent maps an ACP update to an event type and payload (docs/API.md
// "Events (SSE)"). What the hub does not type is forwarded raw as agent_update:
// never dropped, never relabelled.
func updateEvent(u acp.SessionUpdate) (string, json.RawMessage) {
	raw := u.Raw
	obj := func(k string, v any) json.RawMessage {
		b, err := json.Marshal(map[string]any{k: v})
		if err != nil {
			b, _ = json.Marshal(map[string]any{"update": raw})
		}
		return b
	}
	field := func(name string) json.RawMessage {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil || m[name] == nil {
			return nil
		}
		return m[name]
	}
	if u.ParseErr == nil {
		switch u.Kind {
		case acp.UpdateAgentMessageChunk:
			if u.Content.Type == "text" {
				return hub.EventMessageDelta, hub.TextPayload(u.Content.Text)
			}
		case acp.UpdateAgentThoughtChunk:
			if u.Content.Type == "text" {
				return hub.EventThoughtDelta, hub.TextPayload(u.Content.Text)
			}
		case acp.UpdateToolCall:
			return hub.EventToolCall, obj("toolCall", raw)
		case acp.UpdateToolCallUpdate:
			return hub.EventToolCallUpdate, obj("toolCall", raw)
		case acp.UpdatePlan:
			return hub.EventPlan, obj("entries", u.Plan)
		case acp.UpdateCurrentMode:
			return hub.EventModeChanged, obj("modeId", u.ModeID)
		case acp.UpdateAvailableCommands:
			if f := field("availableCommands"); f != nil {
				return hub.EventAvailableCommands, obj("commands", f)
			}
		case acp.UpdateConfigOption:
			if f := field("configOptions"); f != nil {
				return hub.EventConfigOptions, obj("configOptions", f)
			}
		case acp.UpdateUsage:
			return hub.EventUsage, obj("usage", raw)
		case acp.UpdateNotice:
			return hub.EventNotice, obj("notice", u.Notice)
		case acp.UpdateCompaction:
			return hub.EventCompaction, obj("compaction", compactionPayload(u.Compaction))
		case acp.UpdateCompactionSummary:
			if u.Content.Type == "text" {
				return hub.EventCompactionSummary, jsonPayload(map[string]string{"compactionId": u.Compaction.ID, "text": u.Content.Text})
			}
		case acp.UpdatePlanUpdate:
			return hub.EventPlanUpdate, jsonPayload(map[string]json.RawMessage{"plan": u.PlanOp.Plan})
		case acp.UpdatePlanRemoved:
			return hub.EventPlanRemoved, obj("planId", u.PlanOp.PlanID)
		case acp.UpdateSubagent:
			return hub.EventSubagent, obj("subagent", subagentPayload(u.Subagent))
		}
	}
	return hub.EventAgentUpdate, obj("update", raw)
}
