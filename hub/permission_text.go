package hub

import (
	"strconv"
	"strings"
	"unicode"
)

// Plain-text renderings of a PermissionRequest, for the surfaces that
// show text only: the tray, the desktop notification and the editor
// bridge. The window and the browser render the same description in
// frontend/src/lib/permissionView.ts; the two keep the same words.
//
// Every rendering leads with what runs (the argv, quoted), where it runs
// and the environment the agent sets, then the paths; the agent's title
// comes last, labelled as the agent's words, never as the command.

// KindWords names what a permission is about in product words: kind is
// Permission.Kind (PermKind…), acpKind the tool call's ACP kind (read,
// edit, execute, …) that refines a file or agent request. An unknown or
// empty kind reads "Agent request".
func KindWords(kind, acpKind string) string {
	switch kind {
	case PermKindTerminal:
		return "Run a command"
	case PermKindFile:
		switch acpKind {
		case "edit", "delete", "move":
			return "Write a file outside the folder"
		}
		return "Read a file outside the folder"
	case PermKindGit:
		return "Change git's own settings"
	case PermKindBudget:
		return "Spending limit"
	}
	if w := acpKindWords[acpKind]; w != "" {
		return "Agent request: " + w
	}
	return "Agent request"
}

// acpKindWords are ACP tool kinds as product words.
var acpKindWords = map[string]string{
	"read":    "read files",
	"edit":    "edit files",
	"delete":  "delete files",
	"move":    "move files",
	"search":  "search",
	"execute": "run a command",
	"think":   "think",
	"fetch":   "fetch from the web",
}

// FlagWords is a flag (Flag…) as a short warning in plain words. An
// unknown flag still warns.
func FlagWords(flag string) string {
	switch flag {
	case FlagShell:
		return "Runs through a shell: the exact program is not known in advance"
	case FlagConflicting:
		return "The agent named two different commands"
	case FlagTitleDiffers:
		return "The agent's title is not the command that runs"
	case FlagMalformed:
		return "Part of the request could not be read: check it closely"
	case FlagDotDot:
		return "A path goes up with “..”: where it lands depends on links"
	case FlagOutside:
		return "Reaches outside the thread's folder"
	case FlagGitSettings:
		return "Changes git's own settings — git may run commands from these files"
	case FlagEnvProgram:
		return "Sets variables that change which program runs"
	case FlagOverlap:
		return "Another agent changed this file too: their work may collide"
	}
	return "Unusual request: check it closely"
}

// CommandLine is the argv as one shell-quoted line, each argument
// visible: an argument with anything but letters, digits and
// _@%+=:,./- is single-quoted, one with control or invisible characters
// is written $'…' with them escaped. Without Argv it is Command as the
// agent wrote it, with its control characters escaped. A nil r gives "".
func (r *PermissionRequest) CommandLine() string {
	if r == nil {
		return ""
	}
	if len(r.Argv) == 0 {
		return visible(r.Command)
	}
	parts := make([]string, len(r.Argv))
	for i, a := range r.Argv {
		parts[i] = ShellQuote(a)
	}
	return strings.Join(parts, " ")
}

// ShellQuote quotes one argument as a POSIX shell reads it back (see
// CommandLine).
func ShellQuote(s string) string {
	if s == "" {
		return "''"
	}
	plain, graphic := true, true
	for _, c := range s {
		if !unicode.IsGraphic(c) {
			graphic = false
		}
		if !(c <= unicode.MaxASCII && (unicode.IsLetter(c) || unicode.IsDigit(c) || strings.ContainsRune("_@%+=:,./-", c))) {
			plain = false
		}
	}
	switch {
	case plain:
		return s
	case graphic:
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	q := strconv.QuoteToGraphic(s) // "…" with Go escapes, which $'…' reads alike
	q = strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`)
	return "$'" + strings.ReplaceAll(q, "'", `\'`) + "'"
}

// visible escapes s's control and invisible characters (a newline is
// \n), so that text shown on one line cannot hide or reorder its parts.
func visible(s string) string {
	for _, c := range s {
		if !unicode.IsGraphic(c) {
			q := strconv.QuoteToGraphic(s)
			return strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`)
		}
	}
	return s
}

// EnvText is the environment the agent sets, one "NAME=value" or "NAME
// (value not shown)" per variable, in order.
func (r *PermissionRequest) EnvText() []string {
	if r == nil {
		return nil
	}
	out := make([]string, 0, len(r.Env))
	for _, e := range r.Env {
		if e.Hidden {
			out = append(out, visible(e.Name)+" (value not shown)")
		} else {
			out = append(out, visible(e.Name)+"="+ShellQuote(e.Value))
		}
	}
	return out
}

// Summary is r in one line: the command line, else the paths, else the
// agent's title in quotes (its words, not what runs). A nil r gives "".
func (r *PermissionRequest) Summary() string {
	if r == nil {
		return ""
	}
	if c := r.CommandLine(); c != "" {
		return c
	}
	if len(r.Paths) > 0 {
		ps := make([]string, len(r.Paths))
		for i, p := range r.Paths {
			ps[i] = visible(p)
		}
		return strings.Join(ps, ", ")
	}
	if r.Title != "" {
		return "“" + visible(r.Title) + "”"
	}
	return ""
}

// Lines is r in plain text, one fact a line, in the order a person should
// read them: "Runs: <command line>", "In: <cwd>", "Sets: <env>", one
// "File: <path>" each, "The agent says: <title>", then one "⚠ <warning>"
// per flag. A nil r gives nil.
func (r *PermissionRequest) Lines() []string {
	if r == nil {
		return nil
	}
	var out []string
	if c := r.CommandLine(); c != "" {
		out = append(out, "Runs: "+c)
	}
	if r.Cwd != "" {
		out = append(out, "In: "+visible(r.Cwd))
	}
	if env := r.EnvText(); len(env) > 0 {
		out = append(out, "Sets: "+strings.Join(env, " "))
	}
	for _, p := range r.Paths {
		out = append(out, "File: "+visible(p))
	}
	if r.Title != "" {
		out = append(out, "The agent says: “"+visible(r.Title)+"”")
	}
	out = append(out, r.Warnings()...)
	return out
}

// Warnings are r's flags as "⚠ <words>" lines, in r's order; nil when
// it has none.
func (r *PermissionRequest) Warnings() []string {
	if r == nil || len(r.Flags) == 0 {
		return nil
	}
	out := make([]string, 0, len(r.Flags))
	for _, f := range r.Flags {
		out = append(out, "⚠ "+FlagWords(f))
	}
	return out
}

// Rememberable reports whether a decision on a permission of kind may be
// remembered (remember "thread", an agent's allow_always): never for
// git's own settings, which a person always answers, nor for a spending
// limit, which no rule decides.
func Rememberable(kind string) bool {
	return kind != PermKindGit && kind != PermKindBudget
}

// AgentTitled reports whether a permission of kind carries the agent's
// own title (an agent's request, or one stored before kinds): the hub's
// own permissions (terminal, file, git, budget) carry the hub's words,
// which no surface labels as the agent's.
func AgentTitled(kind string) bool { return kind == "" || kind == PermKindAgent }

// Described reports whether p's request says more than the agent's
// title: a permission the hub raised (terminal, file, git, budget), or an
// agent's request whose description names a command or paths. A surface
// shows an undescribed one as before, from its tool call (an agent that
// puts its command in the tool_call before the request, not in it), with
// the description's warnings.
func (p *Permission) Described() bool {
	r := p.Request
	return r != nil && (!AgentTitled(p.Kind) || r.CommandLine() != "" || len(r.Paths) > 0)
}

// shown is p's request as the text surfaces show it: the title kept only
// when it is the agent's, and words, the hub's own to show unlabelled (a
// spending limit's title: its amounts; other hub titles restate the kind
// and the paths, and are left out).
func (p *Permission) shown() (r *PermissionRequest, words string) {
	if p.Request == nil || AgentTitled(p.Kind) {
		return p.Request, ""
	}
	q := *p.Request
	q.Title = ""
	if p.Kind == PermKindBudget {
		words = visible(p.Request.Title)
	}
	return &q, words
}

// Summary is p in one line for a surface that shows only text: what its
// request runs or touches (PermissionRequest.Summary), a spending limit's
// amounts, the agent's title in quotes only for an agent's request. ""
// without a request.
func (p *Permission) Summary() string {
	r, words := p.shown()
	if s := r.Summary(); s != "" {
		return s
	}
	return words
}

// Lines is p's request line by line (PermissionRequest.Lines), a spending
// limit's amounts first, "The agent says" only for an agent's request.
// nil without a request.
func (p *Permission) Lines() []string {
	r, words := p.shown()
	if words == "" {
		return r.Lines()
	}
	return append([]string{words}, r.Lines()...)
}
