package engine

import (
	"encoding/json"

	"github.com/switchboard-hub/switchboard/acp"
)

// An agent's session/request_permission carries a tool call *update*:
// ACP requires only its toolCallId, and an agent may give the command,
// the locations or the kind only in the tool_call it sent before. So the
// hub keeps, per turn, each tool call as the agent's updates built it
// (fields merged, later ones replacing earlier ones), and describes a
// permission from that state with the request's own fields on top — what
// the agent said about the call as a whole, never only its title.

// Bounds on what a turn keeps: beyond them a tool call is described from
// the request alone.
const (
	maxToolCallsKept  = 512
	maxToolCallBytes  = 64 << 10
	toolCallFieldsKey = "toolCallId"
)

// noteToolCall merges a tool_call or tool_call_update into tr's state of
// that tool call. It takes tr.mu.
func (tr *turnRT) noteToolCall(u acp.SessionUpdate) {
	if u.ParseErr != nil || u.ToolCall == nil || u.ToolCall.ToolCallID == "" || len(u.Raw) > maxToolCallBytes {
		return
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(u.Raw, &fields) != nil {
		return
	}
	delete(fields, "sessionUpdate")
	id := u.ToolCall.ToolCallID
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.toolCalls == nil {
		tr.toolCalls = make(map[string]json.RawMessage)
	}
	prev, ok := tr.toolCalls[id]
	if !ok && len(tr.toolCalls) >= maxToolCallsKept {
		return
	}
	merged, okm := mergeToolCall(prev, fields)
	if !okm || len(merged) > maxToolCallBytes {
		delete(tr.toolCalls, id)
		return
	}
	tr.toolCalls[id] = merged
}

// toolCallState returns toolCall (a permission request's) on top of what
// tr knows of the same tool call, or toolCall itself when tr knows
// nothing of it or it cannot be read. It takes tr.mu.
func (tr *turnRT) toolCallState(toolCall json.RawMessage) json.RawMessage {
	var fields map[string]json.RawMessage
	if json.Unmarshal(toolCall, &fields) != nil {
		return toolCall
	}
	var id string
	if json.Unmarshal(fields[toolCallFieldsKey], &id) != nil || id == "" {
		return toolCall
	}
	tr.mu.Lock()
	prev := tr.toolCalls[id]
	tr.mu.Unlock()
	if prev == nil {
		return toolCall
	}
	merged, ok := mergeToolCall(prev, fields)
	if !ok {
		return toolCall
	}
	return merged
}

// mergeToolCall is prev (a JSON object, or nil) with fields on top.
func mergeToolCall(prev json.RawMessage, fields map[string]json.RawMessage) (json.RawMessage, bool) {
	base := map[string]json.RawMessage{}
	if prev != nil && json.Unmarshal(prev, &base) != nil {
		return nil, false
	}
	for k, v := range fields {
		base[k] = v
	}
	b, err := json.Marshal(base)
	return b, err == nil
}
