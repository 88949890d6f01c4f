package notify

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/switchboard-hub/switchboard/hub"
)

// Permission is the notification of pending permission p from agent (its
// name), escalated when p.EscalatedAt is set (critical, "Still waiting —"
// in its title, replacing the first).
//
// A permission the hub described (p.Described) is told in product words:
// the title names the kind of request (never the agent's own title), the
// body is the description line by line (RequestBody); Once when the hub
// never remembers it (hub.Rememberable). Any other is told from its tool
// call: its title, then what it touches (ToolCallText); when p's tool
// call carries no details, earlier is asked for the same call as an
// earlier event had it (by its toolCallId; nil when none is known).
//
// Approve is set only when the body is the whole request (RequestBody,
// PermissionBody): an answer to any other is refused by the notifier.
func Permission(p hub.Permission, agent string, earlier func(toolCallID string) json.RawMessage) Notification {
	x := Notification{ID: PermissionID(p.ID), ThreadID: p.ThreadID, Critical: p.EscalatedAt != nil}
	if p.Described() {
		x.Body, x.Approve = RequestBody(&p)
		x.Once = !hub.Rememberable(p.Kind)
		x.Title = agent + ": " + KindTitle(p.Kind, p.Request.Kind)
	} else {
		title, details := ToolCallText(p.ToolCall)
		if details == "" {
			// The request often carries only the id and title: the
			// tool_call event before it has the command or the paths.
			if t2, d2 := ToolCallText(earlier(ToolCallID(p.ToolCall))); d2 != "" {
				details = d2
				if title == "" {
					title = t2
				}
			}
		}
		if w := p.Request.Warnings(); len(w) > 0 && details != "" {
			details += "\n" + strings.Join(w, "\n") // the hub's warnings, in the body's bounds
		}
		x.Body, x.Approve = PermissionBody(title, details)
		if title == "" {
			title = "wants to use a tool"
		}
		x.Title = agent + ": " + Clip(title, 80)
	}
	if x.Critical {
		x.Title = "Still waiting — " + x.Title
	}
	return x
}

// Decision is the decision a permission notification's action makes:
// Approve, Deny, or "Always allow here" (approved, remembered for the
// thread: the hub adds a rule allowing the same request in this thread);
// ok is false for any other action.
func Decision(action string) (d hub.Decision, ok bool) {
	switch action {
	case ActionApprove:
		return hub.Decision{Outcome: hub.PermissionApproved}, true
	case ActionDeny:
		return hub.Decision{Outcome: hub.PermissionDeclined}, true
	case ActionRemember:
		return hub.Decision{Outcome: hub.PermissionApproved, Remember: hub.RememberThread}, true
	}
	return hub.Decision{}, false
}

// KindTitle is hub.KindWords for a notification's title, where the agent
// is named already: an agent's request reads as what it asks ("Run a
// command"), not "Agent request: run a command".
func KindTitle(kind, acpKind string) string {
	w := strings.TrimPrefix(hub.KindWords(kind, acpKind), "Agent request: ")
	return strings.ToUpper(w[:1]) + w[1:]
}

// RequestBody is a described permission's notification body, and whether
// it is the whole description: it says what runs or what it touches, fits
// the body's bounds (BodyMax, BodyLines) and is printable (hub's
// renderings escape control characters already; checked again). A cut
// body keeps the warnings and says to open the card.
func RequestBody(p *hub.Permission) (body string, whole bool) {
	r := p.Request
	lines := p.Lines()
	full := strings.Join(lines, "\n")
	named := r.CommandLine() != "" || len(r.Paths) > 0
	if named && len(lines) <= BodyLines && utf8.RuneCountInString(full) <= BodyMax && Printable(full) {
		return full, true
	}
	if !named {
		lines = append(lines, "Open Switchboard to see the request.")
		return Clip(strings.Join(lines, "\n"), BodyMax), false
	}
	// What runs first, then the warnings, in what room there is.
	warn := r.Warnings()
	head := lines[:len(lines)-len(warn)]
	keep := max(BodyLines-2-len(warn), 1)
	if keep < len(head) {
		head = head[:keep]
	}
	out := make([]string, 0, BodyLines)
	for _, l := range head {
		out = append(out, Clip(l, 100))
	}
	for _, w := range warn {
		if len(out) < BodyLines-1 {
			out = append(out, w)
		}
	}
	return strings.Join(out, "\n") + "\nNot all of it fits here: open it in Switchboard to decide.", false
}

// PermissionBody is a permission notification's body, the tool call's
// title then what it touches (its command, else its paths), and whether
// that is the whole request, readable: both parts present, within the
// body's bounds, and only printable text (no control or format
// characters such as bidi overrides, which can make a command read as
// another). Only then is Approve offered; otherwise the body is cut and
// says to open the card.
func PermissionBody(title, details string) (body string, whole bool) {
	full := strings.TrimSpace(strings.TrimSpace(title) + "\n" + strings.TrimSpace(details))
	whole = strings.TrimSpace(title) != "" && strings.TrimSpace(details) != "" &&
		utf8.RuneCountInString(full) <= BodyMax &&
		strings.Count(full, "\n") < BodyLines && Printable(full)
	if whole {
		return full, true
	}
	if full == "" {
		return "Open Switchboard to see the request.", false
	}
	lines := strings.SplitN(full, "\n", BodyLines)
	if len(lines) == BodyLines {
		lines[BodyLines-1] = "…"
	}
	short := strings.Map(func(r rune) rune {
		if r == '\n' || unicode.IsGraphic(r) {
			return r
		}
		return '\uFFFD'
	}, Clip(strings.Join(lines, "\n"), BodyMax-40))
	return short + "\nNot all of it fits here: open it in Switchboard to decide.", false
}

// ToolCallID is an ACP tool call's toolCallId ("" when it has none).
func ToolCallID(tc json.RawMessage) string {
	var id struct {
		ToolCallID string `json:"toolCallId"`
	}
	json.Unmarshal(tc, &id)
	return id.ToolCallID
}

// ToolCallText is an ACP tool call's title and what it would touch: the
// command it runs, else the paths it reads or writes.
func ToolCallText(tc json.RawMessage) (title, details string) {
	var v struct {
		Title    string `json:"title"`
		RawInput struct {
			Command any      `json:"command"`
			Cmd     any      `json:"cmd"`
			Path    string   `json:"path"`
			File    string   `json:"file_path"`
			Paths   []string `json:"paths"`
		} `json:"rawInput"`
		Locations []struct {
			Path string `json:"path"`
		} `json:"locations"`
		Content []struct {
			Path string `json:"path"`
		} `json:"content"`
	}
	if len(tc) == 0 || json.Unmarshal(tc, &v) != nil {
		return "", ""
	}
	for _, c := range []any{v.RawInput.Command, v.RawInput.Cmd} {
		switch c := c.(type) {
		case string:
			if c != "" {
				return v.Title, c
			}
		case []any:
			var parts []string
			for _, p := range c {
				parts = append(parts, fmt.Sprint(p))
			}
			if len(parts) > 0 {
				return v.Title, strings.Join(parts, " ")
			}
		}
	}
	var paths []string
	add := func(p string) {
		if p != "" && !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	for _, l := range v.Locations {
		add(l.Path)
	}
	for _, c := range v.Content {
		add(c.Path)
	}
	add(v.RawInput.Path)
	add(v.RawInput.File)
	for _, p := range v.RawInput.Paths {
		add(p)
	}
	return v.Title, strings.Join(paths, "\n")
}
