package policy

import (
	"encoding/json"
	"strings"

	"github.com/switchboard-hub/switchboard/hub"
)

// Request is one permission request as the rules see it, described once
// (Describe) and with its paths resolved once by the caller, before any
// rule is tried.
type Request struct {
	Agent    string // the thread's agent id
	ThreadID string
	ClientID string // the thread's owner
	// Folder is the thread's folder (Thread.Cwd, clean): what folders
	// globs and folder-scoped remembered rules match.
	Folder string
	// Root is where locations must lie for inside: folder — the thread's
	// folder, or its worktree's path for a worktree thread — resolved.
	Root string
	// Kind, Title and Command are the tool call's labels (Describe).
	// HasCommand is whether it names a command at all.
	Kind, Title, Command string
	HasCommand           bool
	// Locations are the tool call's locations, resolved (symbolic links
	// followed). Unresolved is set when any of them, or Root, could not
	// be, or when the tool call's labels are malformed: such a request
	// is never allowed by a rule.
	Locations  []string
	Unresolved bool
	// Options are the options the request offers: a rule decides only
	// through one of them.
	Options []hub.PermissionOption
}

// Subject is what match tests and what an execute rule remembers: the
// command when the request names one, else its title.
func (r *Request) Subject() string {
	if r.HasCommand {
		return r.Command
	}
	return r.Title
}

// Labels are what a tool call says about itself (Describe).
type Labels struct {
	Kind, Title, Command string
	HasCommand           bool
	// Locations are the paths of its locations, as written.
	Locations []string
	// Malformed is set when a label the rules read is present but of the
	// wrong type (a command that is neither a string nor a list of
	// strings, a location without a path): never allowed by a rule.
	Malformed bool
}

// Describe reads an ACP tool call (the toolCall of
// session/request_permission, or the hub's own): its kind, its title
// (white space and surrounding backquotes trimmed), its command — the
// first of rawInput.command, rawInput.cmd, rawInput.argv that is present,
// a string as written (trimmed) or a list of strings joined with single
// spaces — and the paths of its locations. Unreadable JSON is Malformed.
func Describe(toolCall json.RawMessage) Labels {
	var tc struct {
		Kind      json.RawMessage            `json:"kind"`
		Title     json.RawMessage            `json:"title"`
		RawInput  map[string]json.RawMessage `json:"rawInput"`
		Locations []struct {
			Path *string `json:"path"`
		} `json:"locations"`
	}
	var l Labels
	if json.Unmarshal(toolCall, &tc) != nil {
		l.Malformed = true
		return l
	}
	var ok bool
	if l.Kind, ok = optString(tc.Kind); !ok {
		l.Malformed = true
	}
	var title string
	if title, ok = optString(tc.Title); !ok {
		l.Malformed = true
	}
	l.Title = strings.Trim(strings.TrimSpace(title), "`")
	for _, k := range []string{"command", "cmd", "argv"} {
		raw, present := tc.RawInput[k]
		if !present || string(raw) == "null" {
			continue
		}
		cmd, ok := CommandText(raw)
		if !ok {
			l.Malformed = true
			break
		}
		l.Command, l.HasCommand = cmd, true
		break
	}
	for _, loc := range tc.Locations {
		if loc.Path == nil || *loc.Path == "" {
			l.Malformed = true
			continue
		}
		l.Locations = append(l.Locations, *loc.Path)
	}
	return l
}

// CommandText reads a command as agents write it in rawInput: a string
// (trimmed) or a list of strings (joined with single spaces). ok is false
// for anything else.
func CommandText(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s), true
	}
	var argv []string
	if json.Unmarshal(raw, &argv) == nil {
		return strings.Join(argv, " "), true
	}
	return "", false
}

// optString reads an optional JSON string: absent or null is "", true.
func optString(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}
