package editorbridge

import (
	"encoding/json"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// Hub events back into the session/update notifications the agent sent.

// update builds {"sessionUpdate": kind, key: value}.
func update(kind, key string, value any) json.RawMessage {
	b, err := json.Marshal(map[string]any{"sessionUpdate": kind, key: value})
	if err != nil {
		return nil
	}
	return b
}

// eventUpdate maps a hub event to the session/update the agent sent for
// it. Raw updates (tool calls, usage, agent_update) go back unchanged.
// Events that are not updates (turn_started, permissions, turn_completed,
// error, thread_updated, unknown types) give false.
func eventUpdate(ev hub.Event) (json.RawMessage, bool) {
	var p struct {
		Text          string          `json:"text"`
		ToolCall      json.RawMessage `json:"toolCall"`
		Entries       json.RawMessage `json:"entries"`
		ModeID        string          `json:"modeId"`
		Commands      json.RawMessage `json:"commands"`
		ConfigOptions json.RawMessage `json:"configOptions"`
		Usage         json.RawMessage `json:"usage"`
		Update        json.RawMessage `json:"update"`
		Notice        json.RawMessage `json:"notice"`
		Compaction    json.RawMessage `json:"compaction"`
		CompactionID  string          `json:"compactionId"`
		Plan          json.RawMessage `json:"plan"`
		PlanID        string          `json:"planId"`
		Subagent      json.RawMessage `json:"subagent"`
	}
	if json.Unmarshal(ev.Payload, &p) != nil {
		return nil, false
	}
	var u json.RawMessage
	switch ev.Type {
	case hub.EventMessageDelta:
		u = update(acp.UpdateAgentMessageChunk, "content", acp.TextBlock(p.Text))
	case hub.EventThoughtDelta:
		u = update(acp.UpdateAgentThoughtChunk, "content", acp.TextBlock(p.Text))
	case hub.EventToolCall, hub.EventToolCallUpdate:
		u = withKind(p.ToolCall, ev.Type)
	case hub.EventPlan:
		if len(p.Entries) == 0 || string(p.Entries) == "null" {
			p.Entries = json.RawMessage(`[]`)
		}
		u = update(acp.UpdatePlan, "entries", p.Entries)
	case hub.EventModeChanged:
		u = update(acp.UpdateCurrentMode, "currentModeId", p.ModeID)
	case hub.EventAvailableCommands:
		u = update(acp.UpdateAvailableCommands, "availableCommands", p.Commands)
	case hub.EventConfigOptions:
		u = update(acp.UpdateConfigOption, "configOptions", p.ConfigOptions)
	case hub.EventUsage:
		u = withKind(p.Usage, acp.UpdateUsage)
	case hub.EventAgentUpdate:
		u = p.Update
	// The updates the hub types since issue 32 (hub/event.go), back in
	// the agent's shape as agent_update passed them before.
	case hub.EventNotice:
		u = withKind(p.Notice, acp.UpdateNotice)
	case hub.EventCompaction:
		u = compactionUpdate(p.Compaction)
	case hub.EventCompactionSummary:
		u = withField(update(acp.UpdateCompactionSummary, "content", acp.TextBlock(p.Text)), "compactionId", p.CompactionID)
	case hub.EventPlanUpdate:
		u = update(acp.UpdatePlanUpdate, "plan", p.Plan)
	case hub.EventPlanRemoved:
		u = update(acp.UpdatePlanRemoved, "planId", p.PlanID)
	case hub.EventSubagent:
		u = withKind(p.Subagent, acp.UpdateSubagent)
	}
	return u, len(u) > 0 && u[0] == '{'
}

// withKind returns raw unchanged when it has a "sessionUpdate", else raw
// with kind added (a defensive case: the hub stores the agent's object).
func withKind(raw json.RawMessage, kind string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	if _, ok := m["sessionUpdate"]; ok {
		return raw
	}
	m["sessionUpdate"], _ = json.Marshal(kind)
	b, _ := json.Marshal(m)
	return b
}

// compactionUpdate is a compaction event's {compactionId, status, summary
// (text), error} as ACP's compaction_update (summary as one text block).
func compactionUpdate(raw json.RawMessage) json.RawMessage {
	var c struct {
		ID      string `json:"compactionId"`
		Status  string `json:"status"`
		Summary string `json:"summary"`
		Error   string `json:"error"`
	}
	if json.Unmarshal(raw, &c) != nil || c.ID == "" {
		return nil
	}
	m := map[string]any{"sessionUpdate": acp.UpdateCompaction, "compactionId": c.ID, "status": c.Status}
	if c.Summary != "" {
		m["summary"] = []acp.ContentBlock{acp.TextBlock(c.Summary)}
	}
	if c.Error != "" {
		m["error"] = c.Error
	}
	b, _ := json.Marshal(m)
	return b
}

// withField adds key: value to the update object raw.
func withField(raw json.RawMessage, key, value string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	m[key], _ = json.Marshal(value)
	b, _ := json.Marshal(m)
	return b
}

// subagentUpdate is a subagent_output event {sessionId, kind, text |
// toolCall | update} back as the session/update the agent sent on the
// child's session, and that session's id.
func subagentUpdate(ev hub.Event) (string, json.RawMessage, bool) {
	var p struct {
		SessionID string          `json:"sessionId"`
		Kind      string          `json:"kind"`
		Text      *string         `json:"text"`
		ToolCall  json.RawMessage `json:"toolCall"`
		Update    json.RawMessage `json:"update"`
	}
	if json.Unmarshal(ev.Payload, &p) != nil || p.SessionID == "" || p.Kind == "" {
		return "", nil, false
	}
	var u json.RawMessage
	switch {
	case p.Text != nil:
		u = update(p.Kind, "content", acp.TextBlock(*p.Text))
	case len(p.ToolCall) > 0:
		u = withKind(p.ToolCall, p.Kind)
	default:
		u = withKind(p.Update, p.Kind)
	}
	return p.SessionID, u, len(u) > 0 && u[0] == '{'
}
