package engine

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/switchboard-hub/switchboard/hub"
)

// reportedChanges is the Changes of a thread whose folder is not a git
// working tree: the diffs its agent's tool calls reported (ACP tool call
// content {"type":"diff","path","oldText","newText"}), the last one of
// each file per tool call, "as reported by the agent" (Source "agent").
func (e *Engine) reportedChanges(ctx context.Context, c hub.Caller, t hub.Thread, q hub.ChangesQuery) (hub.Changes, error) {
	hist, err := e.History(ctx, c, t.ID, true, false)
	if err != nil {
		return hub.Changes{}, err
	}
	type seen struct {
		first, last *string
	}
	byPath := map[string]*seen{}
	var order []string
	started := q.Since == ""
	for _, th := range hist {
		if th.ID == q.Since {
			started = true
		}
		if !started || (q.Turn != "" && th.ID != q.Turn) {
			continue
		}
		for _, ev := range th.Events {
			if ev.Type != hub.EventToolCall && ev.Type != hub.EventToolCallUpdate {
				continue
			}
			var p struct {
				ToolCall struct {
					Content []struct {
						Type    string  `json:"type"`
						Path    string  `json:"path"`
						OldText *string `json:"oldText"`
						NewText *string `json:"newText"`
					} `json:"content"`
				} `json:"toolCall"`
			}
			if json.Unmarshal(ev.Payload, &p) != nil {
				continue
			}
			for _, ct := range p.ToolCall.Content {
				if ct.Type != "diff" || ct.Path == "" || ct.NewText == nil {
					continue
				}
				s := byPath[ct.Path]
				if s == nil {
					old := ct.OldText
					s = &seen{first: old}
					byPath[ct.Path] = s
					order = append(order, ct.Path)
				}
				s.last = ct.NewText
			}
		}
	}
	ch := hub.Changes{Source: "agent", Files: []hub.FileChange{}}
	for _, p := range order {
		s := byPath[p]
		f := hub.FileChange{Path: p, Status: "modified"}
		old := ""
		if s.first == nil {
			f.Status = "added"
		} else {
			old = *s.first
		}
		f.Diff = wholeDiff(p, old, *s.last, s.first == nil)
		ch.Files = append(ch.Files, f)
	}
	return ch, nil
}

// wholeDiff is a unified diff replacing old by new as one hunk.
func wholeDiff(path, old, new string, added bool) string {
	lines := func(s string) []string {
		if s == "" {
			return nil
		}
		return strings.SplitAfter(strings.TrimSuffix(s, "\n")+"\n", "\n")[:strings.Count(strings.TrimSuffix(s, "\n")+"\n", "\n")]
	}
	ol, nl := lines(old), lines(new)
	var b strings.Builder
	from := "a/" + strings.TrimPrefix(path, "/")
	if added {
		from = "/dev/null"
	}
	b.WriteString("--- " + from + "\n+++ b/" + strings.TrimPrefix(path, "/") + "\n")
	os, ns := 1, 1
	if len(ol) == 0 {
		os = 0
	}
	if len(nl) == 0 {
		ns = 0
	}
	b.WriteString("@@ -" + strconv.Itoa(os) + "," + strconv.Itoa(len(ol)) + " +" + strconv.Itoa(ns) + "," + strconv.Itoa(len(nl)) + " @@\n")
	for _, l := range ol {
		b.WriteString("-" + l)
	}
	for _, l := range nl {
		b.WriteString("+" + l)
	}
	return b.String()
}
