package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/switchboard-hub/switchboard/hub"
)

// Request is one permission request as the rules see it: the hub's
// description of it (hub.PermissionRequest, built once by the engine,
// with its paths resolved), before any rule is tried.
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
	// Kind is the tool call's ACP kind, Title the agent's title.
	Kind, Title string
	// Command is what match tests and what an execute rule remembers:
	// the argv as one shell-quoted line (QuoteArgv), or the command line
	// as written when it runs through a shell. HasCommand is whether the
	// request names a command at all.
	Command    string
	HasCommand bool
	// Locations are the request's paths, resolved (symbolic links
	// followed). Unresolved is set when any of them, or Root, could not
	// be, or when a path still holds "..": such a request is never
	// allowed by a rule.
	Locations  []string
	Unresolved bool
	// Undecidable is set for a request no rule may decide, allow or
	// deny (hub.PermissionRequest.Undecidable, and the hub kinds git and
	// budget): a person is asked.
	Undecidable bool
	// Options are the options the request offers: a rule decides only
	// through one of them.
	Options []hub.PermissionOption
	// Cwd is the folder the command runs in (the description's cwd), and
	// Env the environment the agent sets for it (EnvKey): what a
	// remembered command rule must also match exactly.
	Cwd, Env string
}

// EnvKey is an environment as one comparable key: a digest of its names
// and values in order, "" for none. It is what a remembered command rule
// keeps of the environment (never the values themselves, which may be
// secrets).
func EnvKey(env []hub.EnvVar) string {
	if len(env) == 0 {
		return ""
	}
	h := sha256.New()
	for _, v := range env {
		fmt.Fprintf(h, "%d:%s%d:%s", len(v.Name), v.Name, len(v.Value), v.Value)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Subject is what match tests and what an execute rule remembers: the
// command when the request names one, else its title.
func (r *Request) Subject() string {
	if r.HasCommand {
		return r.Command
	}
	return r.Title
}

// ToolCall is what an agent's tool call says about itself (ReadToolCall):
// raw material for the hub's description, nothing in it decided yet.
type ToolCall struct {
	Kind, Title string
	// Commands are the fields that name a command, in the order command,
	// cmd, argv.
	Commands []NamedCommand
	// Cwd is rawInput.cwd (or workdir), as written.
	Cwd string
	// Env is rawInput.env (an object or a list of {name, value}), in
	// order (an object's keys sorted).
	Env []hub.EnvVar
	// Paths are its locations' paths and its diffs' paths, as written.
	Paths []string
	// Malformed is set when the JSON repeats a member name, or a field
	// the hub reads is of the wrong type (a command that is neither a
	// string nor a list of strings, a location without a path).
	Malformed bool
}

// NamedCommand is one field naming a command: the line as written (a
// list is shell-quoted and joined), its argv, and whether that argv is
// what runs (Plain: no shell syntax; see ParseCommand).
type NamedCommand struct {
	Field string
	Line  string
	Argv  []string
	Plain bool
}

// strict decodes an agent's JSON as the hub describes it: member names
// match case-sensitively ("KIND" is not "kind") and a repeated name is an
// error, so that what the hub reads is what every other reader of the
// same bytes reads.
func strict(b []byte, v any) error {
	return jsonv2.Unmarshal(b, v)
}

// ReadToolCall reads an ACP tool call (the toolCall of
// session/request_permission): its kind, title (white space and
// surrounding backquotes trimmed), the fields naming a command
// (rawInput.command, rawInput.cmd, rawInput.argv: a string, read as a
// shell would, or a list of strings, the argv itself), rawInput's cwd and
// env, and the paths of its locations and diffs. Unreadable JSON, a
// repeated member name or a field of the wrong type is Malformed.
func ReadToolCall(toolCall json.RawMessage) ToolCall {
	var tc struct {
		Kind      json.RawMessage            `json:"kind"`
		Title     json.RawMessage            `json:"title"`
		RawInput  map[string]json.RawMessage `json:"rawInput"`
		Locations []struct {
			Path *string `json:"path"`
		} `json:"locations"`
		Content []json.RawMessage `json:"content"`
	}
	var out ToolCall
	if strict(toolCall, &tc) != nil {
		out.Malformed = true
		return out
	}
	var ok bool
	if out.Kind, ok = optString(tc.Kind); !ok {
		out.Malformed = true
	}
	title, ok := optString(tc.Title)
	out.Malformed = out.Malformed || !ok
	out.Title = strings.Trim(strings.TrimSpace(title), "`")
	for _, k := range []string{"command", "cmd", "argv"} {
		raw, present := tc.RawInput[k]
		if !present || string(raw) == "null" {
			continue
		}
		c, ok := readCommand(raw)
		if !ok {
			out.Malformed = true
			continue
		}
		c.Field = k
		out.Commands = append(out.Commands, c)
	}
	for _, k := range []string{"cwd", "workdir"} {
		if raw, present := tc.RawInput[k]; present && out.Cwd == "" {
			s, ok := optString(raw)
			out.Malformed = out.Malformed || !ok
			out.Cwd = s
		}
	}
	if raw, present := tc.RawInput["env"]; present && string(raw) != "null" {
		env, ok := readEnv(raw)
		out.Malformed = out.Malformed || !ok
		out.Env = env
	}
	for _, loc := range tc.Locations {
		if loc.Path == nil || *loc.Path == "" {
			out.Malformed = true
			continue
		}
		out.Paths = append(out.Paths, *loc.Path)
	}
	for _, c := range tc.Content {
		var d struct {
			Type string  `json:"type"`
			Path *string `json:"path"`
		}
		if strict(c, &d) != nil {
			out.Malformed = true
			continue
		}
		if d.Type == "diff" {
			if d.Path == nil || *d.Path == "" {
				out.Malformed = true
				continue
			}
			out.Paths = append(out.Paths, *d.Path)
		}
	}
	return out
}

// readCommand reads a command field: a string is a command line (parsed
// as a shell would), a list of strings is the argv itself — unless its
// program is a shell told to run a line (sh -c, bash -lc …), which is not
// plain.
func readCommand(raw json.RawMessage) (NamedCommand, bool) {
	var s string
	if strict(raw, &s) == nil {
		s = strings.TrimSpace(s)
		argv, plain := ParseCommand(s)
		return NamedCommand{Line: s, Argv: argv, Plain: plain}, true
	}
	var argv []string
	if strict(raw, &argv) != nil || len(argv) == 0 {
		return NamedCommand{}, false
	}
	c := NamedCommand{Line: QuoteArgv(argv), Argv: argv, Plain: !runsShell(argv)}
	return c, true
}

// shells are programs that run a command line given to them with -c.
var shells = []string{"sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "ash", "busybox", "env", "cmd", "cmd.exe", "powershell", "pwsh"}

// runsShell reports whether argv runs a shell on a command line of its
// own (its program is a shell or env and an argument starts with "-" and
// holds "c", or it is env/busybox, which run anything).
func runsShell(argv []string) bool {
	prog := path.Base(strings.ReplaceAll(argv[0], `\`, "/"))
	if !slices.Contains(shells, prog) {
		return false
	}
	if prog == "env" || prog == "busybox" {
		return true
	}
	for _, a := range argv[1:] {
		if strings.HasPrefix(a, "-") && strings.ContainsAny(a, "cC") {
			return true
		}
	}
	return false
}

// readEnv reads an environment: an object of strings, or a list of
// {name, value}.
func readEnv(raw json.RawMessage) ([]hub.EnvVar, bool) {
	var m map[string]string
	if strict(raw, &m) == nil {
		names := make([]string, 0, len(m))
		for k := range m {
			names = append(names, k)
		}
		slices.Sort(names)
		out := make([]hub.EnvVar, 0, len(m))
		for _, k := range names {
			out = append(out, hub.EnvVar{Name: k, Value: m[k]})
		}
		return out, true
	}
	var list []struct {
		Name  *string `json:"name"`
		Value string  `json:"value"`
	}
	if strict(raw, &list) != nil {
		return nil, false
	}
	out := make([]hub.EnvVar, 0, len(list))
	for _, v := range list {
		if v.Name == nil {
			return nil, false
		}
		out = append(out, hub.EnvVar{Name: *v.Name, Value: v.Value})
	}
	return out, true
}

// optString reads an optional JSON string: absent or null is "", true.
func optString(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", true
	}
	var s string
	if strict(raw, &s) != nil {
		return "", false
	}
	return s, true
}
