package editorbridge

import (
	"encoding/json"
	"strings"

	"github.com/switchboard-hub/switchboard/hub"
)

// An editor sees a relayed permission only through its ACP tool call, the
// agent's account (title, rawInput) in fields the agent chose. So that any
// ACP editor shows what an approval allows, the tool call the bridge
// forwards has the hub's description (hub.PermissionRequest) as the first
// block of its content, in the plain text the tray and the notifications
// show; the rest of the tool call is passed through unchanged.

// editorToolCall is p's tool call as forwarded to the editor: with
// p.Request, its content starts with requestText's text block; without
// one (a permission stored before the hub described requests) it is
// p.ToolCall unchanged. A tool call that is not an object is replaced by
// one holding only the block and p's id as toolCallId.
func editorToolCall(p hub.Permission) json.RawMessage {
	if p.Request == nil {
		return p.ToolCall
	}
	var tc map[string]json.RawMessage
	if json.Unmarshal(p.ToolCall, &tc) != nil || tc == nil {
		id, _ := json.Marshal(p.ID)
		tc = map[string]json.RawMessage{"toolCallId": id}
	}
	var content []json.RawMessage
	_ = json.Unmarshal(tc["content"], &content) // absent, null or not a list: none
	block, _ := json.Marshal(map[string]any{
		"type":    "content",
		"content": map[string]string{"type": "text", "text": requestText(p)},
	})
	tc["content"], _ = json.Marshal(append([]json.RawMessage{block}, content...))
	out, err := json.Marshal(tc)
	if err != nil {
		return p.ToolCall
	}
	return out
}

// requestText is the hub's description of p for the editor: a heading
// naming it as Switchboard's and the kind of request, then
// hub.Permission.Lines.
func requestText(p hub.Permission) string {
	head := "Switchboard — what approving allows (" + hub.KindWords(p.Kind, p.Request.Kind) + "):"
	return strings.Join(append([]string{head}, p.Lines()...), "\n")
}
