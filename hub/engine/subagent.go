package engine

import (
	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/redact"
)

// Sub-agent sessions (issue 32, unstable ACP subagent_update): the
// thread's agent announces a child session, then sends the child's
// updates and requests under the child's id.
//   - The announcement is a `subagent` event (updates.go); the hub
//     remembers the child (and its title) for the agent process's life.
//   - The child's updates are `subagent_output` events of the parent's
//     running turn, {sessionId, kind, text | toolCall | update}: its own
//     stream, never mixed into the parent's messages. Text is redacted
//     chunk by chunk (a secret split across two chunks of a child is not
//     held back as the parent's stream does).
//   - The child's permission requests are the thread's, decided and
//     audited as any other; their request names the child
//     (PermissionRequest.Subagent). Its folder is the parent's (the ACP
//     client serves it so: acp/subagent.go).

// maxSubagents bounds the children a thread remembers.
const maxSubagents = 256

// subagentUpdate handles n when it is a child's update (true: done) and
// records an announcement (false: it is then stored as the parent's
// `subagent` event).
func (c *threadClient) subagentUpdate(n acp.SessionNotification) bool {
	c.rt.mu.Lock()
	if a := n.Update.Subagent; a != nil && n.Update.ParseErr == nil {
		_, childOfChild := c.rt.subagents[n.SessionID]
		if n.SessionID == c.rt.sessionID || childOfChild {
			if c.rt.subagents == nil {
				c.rt.subagents = map[string]string{}
			}
			if _, known := c.rt.subagents[a.SessionID]; known || len(c.rt.subagents) < maxSubagents {
				title := c.rt.subagents[a.SessionID]
				if a.Title != "" {
					title = a.Title
				}
				c.rt.subagents[a.SessionID] = title
			}
		}
		c.rt.mu.Unlock()
		return false
	}
	if _, child := c.rt.subagents[n.SessionID]; !child || c.rt.replaying {
		c.rt.mu.Unlock()
		return false
	}
	tr := c.rt.turn
	c.rt.mu.Unlock()
	turnID := ""
	if tr != nil {
		turnID = tr.turn.ID
		tr.wd.touch()
	}
	u := n.Update
	p := map[string]any{"sessionId": n.SessionID, "kind": u.Kind}
	switch {
	case u.ParseErr == nil && u.Content != nil && u.Content.Type == "text" &&
		(u.Kind == acp.UpdateAgentMessageChunk || u.Kind == acp.UpdateAgentThoughtChunk):
		text := u.Content.Text
		if c.e.redacting.Load() {
			text, _ = redact.String(text)
		}
		p["text"] = text
	case u.ParseErr == nil && u.ToolCall != nil:
		p["toolCall"] = c.e.redactJSON(u.Raw)
	default:
		p["update"] = c.e.redactJSON(u.Raw)
	}
	ev := hub.Event{Type: hub.EventSubagentOutput, ThreadID: c.thread.ID, TurnID: turnID, ClientID: c.thread.ClientID, At: c.e.now(), Payload: jsonPayload(p)}
	c.e.commitAsync(&hub.Write{Events: []hub.Event{ev}})
	return true
}

// subagentRef names sessionID when it is one of the thread's sub-agent
// sessions; nil for the thread's own.
func (c *threadClient) subagentRef(sessionID string) *hub.SubagentRef {
	c.rt.mu.Lock()
	defer c.rt.mu.Unlock()
	title, ok := c.rt.subagents[sessionID]
	if !ok {
		return nil
	}
	return &hub.SubagentRef{SessionID: sessionID, Title: c.e.redactString(title)}
}
