package fakemodel

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// Format is the wire format of a model request.
type Format string

// The formats the server speaks.
const (
	OpenAI    Format = "openai"    // POST …/chat/completions
	Anthropic Format = "anthropic" // POST …/messages
)

// Recorded is one request the server received (model requests and side
// endpoints alike).
type Recorded struct {
	Seq    int       // 0-based arrival order
	Time   time.Time // arrival
	Method string
	Path   string // URL path, without the query
	Query  string // raw query ("beta=true")
	Header http.Header
	Body   []byte

	// Model requests only (Format != ""):
	Format Format
	Stream bool
	Model  string
	Tools  []string // names of the tools the request declares, in order

	// What answered it: Side is true when a side route answered; Script is
	// the index of the consumed script entry, or -1 (side route, exhausted
	// script, or not a model request). Reply describes the answer.
	Side   bool
	Script int
	Reply  string
}

// HasTools reports whether the request declares at least one tool.
func (r *Recorded) HasTools() bool { return len(r.Tools) > 0 }

// HasTool reports whether the request declares the tool name.
func (r *Recorded) HasTool(name string) bool {
	for _, t := range r.Tools {
		if t == name {
			return true
		}
	}
	return false
}

// Contains reports whether the raw body contains s.
func (r *Recorded) Contains(s string) bool { return bytes.Contains(r.Body, []byte(s)) }

// ToolResult is a tool's output as the agent sent it back to the model.
type ToolResult struct {
	ID      string // tool_call_id / tool_use_id
	Content string // text content (text parts joined with "\n")
	IsError bool   // Anthropic is_error
}

// ToolResults extracts the tool results carried in the request's messages
// (OpenAI role "tool" messages; Anthropic "tool_result" content blocks), in
// order.
func (r *Recorded) ToolResults() []ToolResult {
	var req struct {
		Messages []struct {
			Role       string          `json:"role"`
			ToolCallID string          `json:"tool_call_id"`
			Content    json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(r.Body, &req) != nil {
		return nil
	}
	var out []ToolResult
	for _, m := range req.Messages {
		switch {
		case r.Format == OpenAI && m.Role == "tool":
			out = append(out, ToolResult{ID: m.ToolCallID, Content: contentText(m.Content)})
		case r.Format == Anthropic && m.Role == "user":
			var blocks []struct {
				Type      string          `json:"type"`
				ToolUseID string          `json:"tool_use_id"`
				Content   json.RawMessage `json:"content"`
				IsError   bool            `json:"is_error"`
			}
			if json.Unmarshal(m.Content, &blocks) != nil {
				continue
			}
			for _, b := range blocks {
				if b.Type == "tool_result" {
					out = append(out, ToolResult{ID: b.ToolUseID, Content: contentText(b.Content), IsError: b.IsError})
				}
			}
		}
	}
	return out
}

// contentText flattens a message content that is either a string or an
// array of parts with "text" fields.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var texts []string
	for _, p := range parts {
		if p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// parseModelRequest fills the model-request fields of rec from its body.
func parseModelRequest(rec *Recorded) {
	var req struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
		Tools  []struct {
			Name     string `json:"name"` // Anthropic
			Function struct {
				Name string `json:"name"`
			} `json:"function"` // OpenAI
		} `json:"tools"`
	}
	_ = json.Unmarshal(rec.Body, &req)
	rec.Model, rec.Stream = req.Model, req.Stream
	for _, t := range req.Tools {
		name := t.Name
		if name == "" {
			name = t.Function.Name
		}
		rec.Tools = append(rec.Tools, name)
	}
}
