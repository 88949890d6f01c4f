package engine

import (
	"encoding/json"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// Rendering the agent's newer updates (issue 32, ADR 0044): the message a
// delta belongs to, and the payloads of notices, compaction and sub-agent
// events (hub/event.go says each event's shape).

// switchMessage records that the turn's next delta of typ (message or
// thought) belongs to the agent's message id, and reports whether that is
// a change: the caller then releases the held text and stores a
// message_started. A chunk without an id belongs to the message before
// it, as ACP without messageId says (adjacency).
func (tr *turnRT) switchMessage(typ, id string) bool {
	if id == "" {
		return false
	}
	i := 0
	if typ == hub.EventThoughtDelta {
		i = 1
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.messageIDs[i] == id {
		return false
	}
	tr.messageIDs[i] = id
	return true
}

// messageStarted is the message_started event of a delta type and id.
func (e *Engine) messageStarted(t hub.Thread, turnID, typ, id string) hub.Event {
	kind := "message"
	if typ == hub.EventThoughtDelta {
		kind = "thought"
	}
	return hub.Event{Type: hub.EventMessageStarted, ThreadID: t.ID, TurnID: turnID, ClientID: t.ClientID, At: e.now(),
		Payload: jsonPayload(map[string]string{"messageId": clipID(id), "kind": kind})}
}

// compactionPayload is a compaction_update as the compaction event carries
// it: the summary's text blocks joined (other blocks are not shown).
func compactionPayload(c *acp.Compaction) map[string]string {
	out := map[string]string{"compactionId": c.ID, "status": c.Status}
	summary := ""
	for _, b := range c.Summary {
		if b.Type == "text" {
			summary += b.Text
		}
	}
	if summary != "" {
		out["summary"] = summary
	}
	if c.Error != "" {
		out["error"] = c.Error
	}
	return out
}

// subagentPayload is what the window is told of a child session: never its
// reported folders, which widen nothing (the child acts within the parent
// thread's confinement).
func subagentPayload(s *acp.Subagent) map[string]any {
	out := map[string]any{"sessionId": s.SessionID}
	if s.Title != "" {
		out["title"] = s.Title
	}
	if s.Description != "" {
		out["description"] = s.Description
	}
	if len(s.State) > 0 {
		out["state"] = s.State
	}
	return out
}

// jsonPayload marshals an event payload made of plain values.
func jsonPayload(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(`{}`)
	}
	return b
}
