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
// hub.Permission.Lines in a fenced code block. ACP asks clients to render
// text blocks as Markdown: the fence keeps each line its own and nothing
// in a command or path (*, _, <, links) rendered; it is longer than any
// run of backticks in the lines, so none can close it.
func requestText(p hub.Permission) string {
	body := strings.Join(p.Lines(), "\n")
	fence := strings.Repeat("`", max(3, longestRun(body, '`')+1))
	return "Switchboard — what approving allows (" + hub.KindWords(p.Kind, p.Request.Kind) + "):\n\n" +
		fence + "text\n" + body + "\n" + fence
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c rune) int {
	best, n := 0, 0
	for _, r := range s {
		if r == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}
