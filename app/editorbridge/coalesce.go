package editorbridge

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// MaxCoalescedText bounds the text of one session/update the bridge makes
// out of several text chunks (coalescer).
const MaxCoalescedText = 64 << 10

// coalescer sends a session's updates, each run of text chunks of one kind
// as few session/updates as MaxCoalescedText allows. An editor's ACP
// library may queue only so many notifications it has not handled yet
// (acp-go-sdk: 1024, then it drops the connection), and a long turn is
// thousands of chunks.
//
// What it guarantees: the editor gets every byte of text, in order, and
// every other update unchanged, in order. What is merged is
// agent_message_chunk, agent_thought_chunk or user_message_chunk whose
// content is a plain text block ({"type":"text","text":…} and nothing
// else), of the same kind, in the same turn, with no other update (tool
// call, plan, image, …) or request (a permission: the caller flushes)
// between them. One notification holds at most MaxCoalescedText bytes of
// text: a longer run is cut, on a UTF-8 character boundary, into several.
// It has no timer: a run is sent when the caller flushes it, another
// update comes, or it fills. session/load flushes at each turn's end
// (threads.go); a live turn flushes before every read that could wait on
// the hub, so a chunk is held back only while the next event is already
// in the bridge's buffer, and a bridge that keeps up sends each chunk as
// it comes, with no added delay (prompt.go).
//
// Chunks carry the agent's messageId (from the hub's message_started
// events) when it sent one, and a new message id ends the run: two
// messages are never merged. A sub-agent's output (subagent_output) goes
// to the editor as the session/update the agent sent, on the child's
// session id (child), after the run.
//
// It is used by one goroutine.
type coalescer struct {
	send  func(json.RawMessage)                     // one session/update to the editor
	child func(sessionID string, u json.RawMessage) // one session/update of a sub-agent's session; nil: dropped
	max   int                                       // the bound on one notification's text (MaxCoalescedText)
	kind  string                                    // the run's kind; "" when none is held
	text  []byte
	ids   [2]string // the current messageId of the agent's message and thought
}

func newCoalescer(send func(json.RawMessage)) *coalescer {
	return &coalescer{send: send, max: MaxCoalescedText}
}

// event takes a hub event: a text chunk joins the run; any other event
// that is an update is sent after the run. Events that are no update
// (turn_started, permissions, …) send nothing, and end no run: the
// caller flushes before acting on them.
func (c *coalescer) event(ev hub.Event) {
	switch ev.Type {
	case hub.EventMessageStarted:
		c.startMessage(ev)
		return
	case hub.EventSubagentOutput:
		if sid, u, ok := subagentUpdate(ev); ok && c.child != nil {
			c.flush()
			c.child(sid, u)
		}
		return
	}
	if kind, text, ok := textChunk(ev); ok {
		c.add(kind, text)
		return
	}
	if u, ok := eventUpdate(ev); ok {
		c.update(u)
	}
}

// update sends u after the run held: u is never merged.
func (c *coalescer) update(u json.RawMessage) {
	c.flush()
	c.send(u)
}

// add appends text to the run of kind, first sending a run of another
// kind; it sends each MaxCoalescedText bytes the run fills.
func (c *coalescer) add(kind, text string) {
	if kind != c.kind {
		c.flush()
		c.kind = kind
	}
	c.text = append(c.text, text...)
	for len(c.text) > c.max {
		n := cut(c.text, c.max)
		c.sendText(c.text[:n])
		c.text = c.text[:copy(c.text, c.text[n:])]
	}
}

// flush sends the run held, if any.
func (c *coalescer) flush() {
	if len(c.text) > 0 {
		c.sendText(c.text)
	}
	c.kind, c.text = "", c.text[:0]
	if cap(c.text) > 4*c.max {
		c.text = nil // do not keep one huge chunk's buffer
	}
}

func (c *coalescer) sendText(b []byte) {
	u := update(c.kind, "content", acp.TextBlock(string(b)))
	if i, ok := idIndex(c.kind); ok && c.ids[i] != "" {
		u = withField(u, "messageId", c.ids[i])
	}
	c.send(u)
}

// startMessage takes a message_started event {messageId, kind}: the
// chunks of that kind after it carry the id, and a run of the message
// before it is sent first.
func (c *coalescer) startMessage(ev hub.Event) {
	var p struct {
		MessageID string `json:"messageId"`
		Kind      string `json:"kind"`
	}
	if json.Unmarshal(ev.Payload, &p) != nil {
		return
	}
	kind := acp.UpdateAgentMessageChunk
	if p.Kind == "thought" {
		kind = acp.UpdateAgentThoughtChunk
	}
	i, _ := idIndex(kind)
	if c.ids[i] != p.MessageID && c.kind == kind {
		c.flush()
	}
	c.ids[i] = p.MessageID
}

// idIndex is where c.ids keeps the message id of chunks of kind.
func idIndex(kind string) (int, bool) {
	switch kind {
	case acp.UpdateAgentMessageChunk:
		return 0, true
	case acp.UpdateAgentThoughtChunk:
		return 1, true
	}
	return 0, false
}

// cut is where to end a piece of at most max bytes of b (len(b) > max):
// at max, or before the character that straddles it. Text that is not
// UTF-8 there is cut at max.
func cut(b []byte, max int) int {
	for n := max; n > max-utf8.UTFMax && n > 0; n-- {
		if utf8.RuneStart(b[n]) {
			return n
		}
	}
	return max
}

// textChunk reports whether ev is a text chunk of the agent's message or
// thought, with its update kind and text.
func textChunk(ev hub.Event) (kind, text string, ok bool) {
	switch ev.Type {
	case hub.EventMessageDelta:
		kind = acp.UpdateAgentMessageChunk
	case hub.EventThoughtDelta:
		kind = acp.UpdateAgentThoughtChunk
	default:
		return "", "", false
	}
	var p struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(ev.Payload, &p) != nil {
		return "", "", false
	}
	return kind, p.Text, true
}

// plainText returns the text of a content block that is a text block and
// nothing else (no annotations, no _meta): one that may be merged.
func plainText(block json.RawMessage) (string, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(block, &m) != nil || len(m) != 2 || string(m["type"]) != `"text"` {
		return "", false
	}
	var text string
	if json.Unmarshal(m["text"], &text) != nil {
		return "", false
	}
	return text, true
}
