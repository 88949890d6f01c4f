package engine

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// exportMarkdown writes t readable: a heading with its agent and folder,
// then each turn (internal ones left out): the prompt, the answer, the
// tool calls the agent made with their diffs and output, and the
// permissions asked with how they were decided, in the order they came.
func (e *Engine) exportMarkdown(ctx context.Context, t hub.Thread, w *bufio.Writer) error {
	fmt.Fprintf(w, "# %s\n\n", oneLine(t.Title))
	fmt.Fprintf(w, "- Agent: %s\n- Folder: %s\n- Created: %s\n- Thread: %s\n", t.Agent, t.Cwd, mdTime(t.CreatedAt), t.ID)
	if t.Archived {
		w.WriteString("- Archived\n")
	}
	turns, err := e.store.ListTurns(ctx, t.ID, false)
	if err != nil {
		return err
	}
	for i, tu := range turns {
		fmt.Fprintf(w, "\n## Turn %d · %s · %s\n\n", i+1, mdTime(tu.StartedAt), tu.Status)
		w.WriteString("**You:**\n\n")
		w.WriteString(quote(tu.Input))
		var md turnMarkdown
		if err := e.eachEvent(ctx, t.ID, tu.ID, func(ev hub.Event) error { md.add(ev); return nil }); err != nil {
			return err
		}
		md.write(w)
		if tu.Error != "" {
			fmt.Fprintf(w, "\n**Error:** %s\n", oneLine(tu.Error))
		}
	}
	return nil
}

func mdTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") }

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// quote makes s a Markdown block quote.
func quote(s string) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return "> (empty)\n"
	}
	return "> " + strings.ReplaceAll(s, "\n", "\n> ") + "\n"
}

// fence wraps s in a code fence longer than any run of backticks in it.
func fence(lang, s string) string {
	n, run := 3, 0
	for _, r := range s {
		if r == '`' {
			if run++; run >= n {
				n = run + 1
			}
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", n)
	return f + lang + "\n" + strings.TrimRight(s, "\n") + "\n" + f + "\n"
}

// turnMarkdown gathers a turn's events into blocks in the order they
// came: answer text, thoughts, tool calls (merged with their updates,
// shown where they started), permissions and errors.
type turnMarkdown struct {
	blocks []mdBlock
	tools  map[string]int // toolCallId → index in blocks
}

type mdBlock struct {
	kind string // "answer", "thought", "tool", "permission", "error"
	text strings.Builder
	tool map[string]json.RawMessage
}

func (m *turnMarkdown) last(kind string) *mdBlock {
	if n := len(m.blocks); n > 0 && m.blocks[n-1].kind == kind {
		return &m.blocks[n-1]
	}
	m.blocks = append(m.blocks, mdBlock{kind: kind})
	return &m.blocks[len(m.blocks)-1]
}

func (m *turnMarkdown) add(ev hub.Event) {
	var p struct {
		Text       string                     `json:"text"`
		ToolCall   map[string]json.RawMessage `json:"toolCall"`
		Permission *hub.Permission            `json:"permission"`
		Message    string                     `json:"message"`
	}
	if json.Unmarshal(ev.Payload, &p) != nil {
		return
	}
	switch ev.Type {
	case hub.EventMessageDelta:
		m.last("answer").text.WriteString(p.Text)
	case hub.EventThoughtDelta:
		m.last("thought").text.WriteString(p.Text)
	case hub.EventToolCall, hub.EventToolCallUpdate:
		var id string
		_ = json.Unmarshal(p.ToolCall["toolCallId"], &id)
		if m.tools == nil {
			m.tools = map[string]int{}
		}
		i, ok := m.tools[id]
		if !ok {
			m.blocks = append(m.blocks, mdBlock{kind: "tool", tool: map[string]json.RawMessage{}})
			i = len(m.blocks) - 1
			m.tools[id] = i
		}
		for k, v := range p.ToolCall {
			if string(v) != "null" {
				m.blocks[i].tool[k] = v
			}
		}
	case hub.EventPermissionResolved:
		if pm := p.Permission; pm != nil {
			b := m.last("permission")
			var tc struct {
				Title string `json:"title"`
			}
			_ = json.Unmarshal(pm.ToolCall, &tc)
			fmt.Fprintf(&b.text, "- Permission for %s: **%s**", oneLine(orDash(tc.Title)), pm.Status)
			if pm.DecidedBy != "" {
				fmt.Fprintf(&b.text, " by %s", pm.DecidedBy)
			}
			if pm.OptionID != "" {
				fmt.Fprintf(&b.text, " (%s)", pm.OptionID)
			}
			b.text.WriteString("\n")
		}
	case hub.EventError:
		fmt.Fprintf(&m.last("error").text, "%s\n", oneLine(p.Message))
	}
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func (m *turnMarkdown) write(w *bufio.Writer) {
	for _, b := range m.blocks {
		switch b.kind {
		case "answer":
			if s := strings.TrimSpace(b.text.String()); s != "" {
				w.WriteString("\n**Agent:**\n\n" + s + "\n")
			}
		case "thought":
			if s := strings.TrimSpace(b.text.String()); s != "" {
				w.WriteString("\n<details><summary>Thought</summary>\n\n" + quote(s) + "\n</details>\n")
			}
		case "permission":
			w.WriteString("\n" + b.text.String())
		case "error":
			w.WriteString("\n**Error:** " + b.text.String())
		case "tool":
			writeToolMarkdown(w, b.tool)
		}
	}
}

// writeToolMarkdown writes a tool call: its title, kind and status, then
// its content: diffs as unified-style diffs, text as a code block.
func writeToolMarkdown(w *bufio.Writer, tc map[string]json.RawMessage) {
	str := func(k string) string {
		var s string
		_ = json.Unmarshal(tc[k], &s)
		return s
	}
	fmt.Fprintf(w, "\n**Tool call:** %s", oneLine(orDash(str("title"))))
	if k := str("kind"); k != "" {
		fmt.Fprintf(w, " · %s", k)
	}
	if s := str("status"); s != "" {
		fmt.Fprintf(w, " · %s", s)
	}
	w.WriteString("\n")
	var content []struct {
		Type    string  `json:"type"`
		Path    string  `json:"path"`
		OldText *string `json:"oldText"`
		NewText string  `json:"newText"`
		Content struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	_ = json.Unmarshal(tc["content"], &content)
	for _, c := range content {
		switch c.Type {
		case "diff":
			old := ""
			if c.OldText != nil {
				old = *c.OldText
			}
			w.WriteString("\n" + fence("diff", lineDiff(c.Path, old, c.NewText)))
		case "content":
			if c.Content.Type == "text" && c.Content.Text != "" {
				w.WriteString("\n" + fence("", c.Content.Text))
			}
		}
	}
}

// lineDiff is a readable diff of old and new: the lines they share at
// the start and the end are left out, the rest shown as removed and added.
func lineDiff(path, old, new string) string {
	a, b := splitLines(old), splitLines(new)
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var s strings.Builder
	fmt.Fprintf(&s, "--- %s\n+++ %s\n@@ line %d @@\n", path, path, pre+1)
	for _, l := range a[pre : len(a)-suf] {
		s.WriteString("-" + l + "\n")
	}
	for _, l := range b[pre : len(b)-suf] {
		s.WriteString("+" + l + "\n")
	}
	return s.String()
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
