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
