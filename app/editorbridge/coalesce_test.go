package editorbridge

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// sent is one session/update a coalescer sent, read back: a text chunk's
// kind and text, or the update's JSON as it was.
type sent struct{ kind, text, raw string }

func (s sent) String() string {
	if s.raw != "" {
		return s.raw
	}
	return fmt.Sprintf("%s(%q)", s.kind, s.text)
}

// recorder is a coalescer whose updates are kept, with max as its bound.
func recorder(t *testing.T, max int) (*coalescer, *[]sent) {
	t.Helper()
	var got []sent
	c := newCoalescer(func(u json.RawMessage) {
		var p struct {
			SessionUpdate string          `json:"sessionUpdate"`
			Content       json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(u, &p); err != nil {
			t.Fatalf("unreadable update %s: %v", u, err)
		}
		if text, ok := plainText(p.Content); ok && strings.HasSuffix(p.SessionUpdate, "_chunk") {
			got = append(got, sent{kind: p.SessionUpdate, text: text})
			return
		}
		got = append(got, sent{raw: string(u)})
	})
	c.max = max
	return c, &got
}

func textEvent(typ, text string) hub.Event {
	b, _ := json.Marshal(map[string]string{"text": text})
	return hub.Event{Type: typ, Payload: b}
}

func TestCoalesceKinds(t *testing.T) {
	c, got := recorder(t, MaxCoalescedText)
	toolCall := `{"sessionUpdate":"tool_call","toolCallId":"t1","title":"Run","status":"pending"}`
	image := `{"sessionUpdate":"agent_message_chunk","content":{"type":"image","mimeType":"image/png","data":"AA=="}}`
	for _, ev := range []hub.Event{
		textEvent(hub.EventMessageDelta, "a"),
		textEvent(hub.EventMessageDelta, "b"),
		textEvent(hub.EventThoughtDelta, "c"),
		textEvent(hub.EventThoughtDelta, "d"),
		textEvent(hub.EventMessageDelta, "e"),
		{Type: hub.EventToolCall, Payload: json.RawMessage(`{"toolCall":` + toolCall + `}`)},
		textEvent(hub.EventMessageDelta, "f"),
		{Type: hub.EventAgentUpdate, Payload: json.RawMessage(`{"update":` + image + `}`)},
		textEvent(hub.EventMessageDelta, "g"),
		textEvent(hub.EventMessageDelta, ""),
		{Type: hub.EventTurnStarted, Payload: json.RawMessage(`{"input":"x"}`)}, // no update: ends no run
		textEvent(hub.EventMessageDelta, "h"),
	} {
		c.event(ev)
	}
	c.add(acp.UpdateUserMessageChunk, "i")
	c.add(acp.UpdateUserMessageChunk, "j")
	c.flush()
	c.flush() // nothing held: nothing sent
	want := []sent{
		{kind: acp.UpdateAgentMessageChunk, text: "ab"},
		{kind: acp.UpdateAgentThoughtChunk, text: "cd"},
		{kind: acp.UpdateAgentMessageChunk, text: "e"},
		{raw: toolCall},
		{kind: acp.UpdateAgentMessageChunk, text: "f"},
		{raw: image},
		{kind: acp.UpdateAgentMessageChunk, text: "gh"},
		{kind: acp.UpdateUserMessageChunk, text: "ij"},
	}
	if fmt.Sprint(*got) != fmt.Sprint(want) {
		t.Fatalf("sent\n%v\nwant\n%v", *got, want)
	}
}

// A run longer than the bound goes as pieces of at most the bound, cut
// before a character that would straddle it, every byte kept in order.
func TestCoalesceBound(t *testing.T) {
	const max = 16
	for _, ch := range []string{"x", "é", "€", "😀"} {
		for offset := range 5 {
			name := fmt.Sprintf("%s at %d", ch, max-offset)
			t.Run(name, func(t *testing.T) {
				c, got := recorder(t, max)
				// Chunks of 3 bytes, then ch around the bound, then more.
				want := strings.Repeat("a", max-offset) + ch + strings.Repeat("b", 40) + ch
				for i := 0; i < len(want); {
					n := 3
					for i+n < len(want) && !utf8.RuneStart(want[i+n]) {
						n++ // chunks are whole characters, as the hub's are
					}
					n = min(n, len(want)-i)
					c.add(acp.UpdateAgentMessageChunk, want[i:i+n])
					i += n
				}
				c.flush()
				var all strings.Builder
				for i, s := range *got {
					if len(s.text) > max || len(s.text) == 0 || !utf8.ValidString(s.text) || s.kind != acp.UpdateAgentMessageChunk {
						t.Fatalf("piece %d: %s (%d bytes, valid UTF-8 %v)", i, s, len(s.text), utf8.ValidString(s.text))
					}
					all.WriteString(s.text)
				}
				if all.String() != want {
					t.Fatalf("text %q, want %q", all.String(), want)
				}
				if n := len(*got); n > (len(want)+max-1)/(max-utf8.UTFMax+1)+1 {
					t.Fatalf("%d pieces for %d bytes of at most %d", n, len(want), max)
				}
			})
		}
	}
	// One chunk over the bound is cut too.
	c, got := recorder(t, max)
	c.add(acp.UpdateAgentThoughtChunk, strings.Repeat("z", 3*max+1))
	c.flush()
	if len(*got) != 4 || (*got)[3].text != "z" || (*got)[0].text != strings.Repeat("z", max) {
		t.Fatalf("one long chunk: %v", *got)
	}
}

func TestCut(t *testing.T) {
	tests := []struct {
		b    string
		max  int
		want int
	}{
		{"abcdef", 3, 3},
		{"ab€def", 3, 2},                   // € is 3 bytes from 2
		{"a€def", 3, 1},                    // its middle at 3
		{"a😀", 3, 1},                       // 4 bytes from 1
		{"\x80\x80\x80\x80\x80\x80", 3, 3}, // not UTF-8: at the bound
	}
	for _, tt := range tests {
		if got := cut([]byte(tt.b), tt.max); got != tt.want {
			t.Errorf("cut(%q, %d) = %d, want %d", tt.b, tt.max, got, tt.want)
		}
	}
}

// Only a plain text block may be merged: annotations or _meta would be
// lost in a merged one, and other blocks are no text.
func TestPlainText(t *testing.T) {
	tests := []struct {
		block string
		text  string
		ok    bool
	}{
		{`{"type":"text","text":"hi"}`, "hi", true},
		{`{"text":"","type":"text"}`, "", true},
		{`{"type":"text","text":"hi","annotations":{"priority":1}}`, "", false},
		{`{"type":"text","text":"hi","_meta":{}}`, "", false},
		{`{"type":"image","mimeType":"image/png","data":"AA=="}`, "", false},
		{`{"type":"resource_link","uri":"file:///a","name":"a"}`, "", false},
		{`{"type":"text","text":1}`, "", false},
		{`"text"`, "", false},
	}
	for _, tt := range tests {
		text, ok := plainText(json.RawMessage(tt.block))
		if text != tt.text || ok != tt.ok {
			t.Errorf("plainText(%s) = %q, %v; want %q, %v", tt.block, text, ok, tt.text, tt.ok)
		}
	}
}

// TestCoalesceMessageIDsAndSubagents: chunks carry the agent's messageId
// from the hub's message_started, two messages are never merged, and a
// sub-agent's output goes back on the child's session as the agent sent
// it, after the run held.
func TestCoalesceMessageIDsAndSubagents(t *testing.T) {
	var main, child []string
	c := newCoalescer(func(u json.RawMessage) { main = append(main, string(u)) })
	c.child = func(sid string, u json.RawMessage) { child = append(child, sid+" "+string(u)) }
	started := func(id, kind string) hub.Event {
		b, _ := json.Marshal(map[string]string{"messageId": id, "kind": kind})
		return hub.Event{Type: hub.EventMessageStarted, Payload: b}
	}
	sub := func(p string) hub.Event { return hub.Event{Type: hub.EventSubagentOutput, Payload: json.RawMessage(p)} }
	for _, ev := range []hub.Event{
		started("m1", "message"),
		textEvent(hub.EventMessageDelta, "a"),
		textEvent(hub.EventMessageDelta, "b"),
		started("m2", "message"),
		textEvent(hub.EventMessageDelta, "c"),
		sub(`{"sessionId":"s-sub-1","kind":"agent_message_chunk","text":"child says"}`),
		sub(`{"sessionId":"s-sub-1","kind":"tool_call","toolCall":{"sessionUpdate":"tool_call","toolCallId":"t9","title":"Run"}}`),
		sub(`{"sessionId":"","kind":"agent_message_chunk","text":"no session: dropped"}`),
		started("th1", "thought"),
		textEvent(hub.EventThoughtDelta, "d"),
	} {
		c.event(ev)
	}
	c.flush()
	want := []string{
		`{"content":{"type":"text","text":"ab"},"messageId":"m1","sessionUpdate":"agent_message_chunk"}`,
		`{"content":{"type":"text","text":"c"},"messageId":"m2","sessionUpdate":"agent_message_chunk"}`,
		`{"content":{"type":"text","text":"d"},"messageId":"th1","sessionUpdate":"agent_thought_chunk"}`,
	}
	if strings.Join(main, "\n") != strings.Join(want, "\n") {
		t.Errorf("the editor's session got\n%s\nwant\n%s", strings.Join(main, "\n"), strings.Join(want, "\n"))
	}
	wantChild := []string{
		`s-sub-1 {"content":{"type":"text","text":"child says"},"sessionUpdate":"agent_message_chunk"}`,
		`s-sub-1 {"sessionUpdate":"tool_call","toolCallId":"t9","title":"Run"}`,
	}
	if strings.Join(child, "\n") != strings.Join(wantChild, "\n") {
		t.Errorf("the child's session got\n%s\nwant\n%s", strings.Join(child, "\n"), strings.Join(wantChild, "\n"))
	}
}
