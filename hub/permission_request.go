package hub

// What a permission allows, described by the hub (docs/SECURITY.md, "What
// an approval covers"). The agent's tool call is its own account of what
// it wants, in fields it chose (title, rawInput, locations); the hub reads
// it once, builds a PermissionRequest from it, stores it with the
// permission, and from then on every decision reads only the description:
// the config rules and remembered decisions match it, a terminal's reuse
// of an approval compares it, the audit keeps it, and every surface
// (window, browser, tray, notification, editor bridge) shows it. The
// agent's title is shown as the agent's words, never as what runs.

// Permission kinds (Permission.Kind): who raised the permission and what
// it is about, beside the tool call's ACP kind (PermissionRequest.Kind).
const (
	// PermKindAgent is an agent's own session/request_permission.
	PermKindAgent = "agent"
	// PermKindTerminal is the hub's question before it runs an agent's
	// terminal/create.
	PermKindTerminal = "terminal"
	// PermKindFile is the hub's question before it serves an agent's
	// fs/* request for a file outside the thread's folders.
	PermKindFile = "file"
	// PermKindGit is a change to git's own settings (a path with a .git
	// component, .gitattributes, .gitmodules): always asked of a person,
	// never decided by a rule or a remembered decision.
	PermKindGit = "git"
	// PermKindBudget is a running turn that crossed a spending limit
	// (the spend issue): never decided by a rule.
	PermKindBudget = "budget"
)

// Flags on a PermissionRequest (PermissionRequest.Flags). Each is shown on
// the card; those marked "undecidable" keep every rule and remembered
// decision from deciding the request (a person is asked), and keep an
// approval of it from covering a terminal.
const (
	// FlagShell: the command has shell syntax outside quotes (; & | `
	// $( < > newline, globs, expansions): it runs through /bin/sh -c, so
	// its program and arguments are not known before it runs.
	// Undecidable.
	FlagShell = "shell"
	// FlagConflicting: the tool call names its command in more than one
	// field (rawInput.command, rawInput.cmd, rawInput.argv) and they
	// disagree. Undecidable.
	FlagConflicting = "conflicting_command"
	// FlagTitleDiffers: the agent's title does not show the command that
	// runs (it holds neither its line nor its argv: "npm test" for touch
	// X, not "Run make clean" for make clean): the person reads the
	// command, not the title. Undecidable, and such an approval never
	// covers a terminal.
	FlagTitleDiffers = "title_differs"
	// FlagMalformed: a field the hub reads is of the wrong type, a key is
	// repeated, or a path cannot be resolved. Undecidable.
	FlagMalformed = "malformed"
	// FlagDotDot: a path still contains ".." as the agent wrote it (the
	// OS follows links before ".."): never approved by a rule.
	FlagDotDot = "dot_dot"
	// FlagOutside: a path or the working folder lies outside the thread's
	// folders.
	FlagOutside = "outside_folder"
	// FlagGitSettings: the request writes git's own settings (a path with
	// a .git component, .gitattributes, .gitmodules). Undecidable.
	FlagGitSettings = "git_settings"
	// FlagEnvProgram: the command's environment sets a variable that
	// changes what runs (PATH, LD_*, DYLD_*, *_SOCK, GIT_*, shell startup
	// files): its value is shown.
	FlagEnvProgram = "env_changes_program"
	// FlagOverlap: the request edits a file that another live thread of
	// the same repository changed (Thread.Overlaps, ADR 0042): the two
	// agents are about to collide. Shown only; rules still decide.
	FlagOverlap = "overlap"
)

// PermissionRequest is the hub's description of what a permission
// allows, built once when the permission is raised and stored with it.
// Paths and Cwd are resolved (symbolic links followed the way the OS
// follows them); Argv is the program and its arguments as they run.
type PermissionRequest struct {
	// Kind is the tool call's ACP kind (read, edit, execute, …; "" when
	// the agent gave none).
	Kind string `json:"kind,omitempty"`
	// Title is the agent's title, trimmed: the agent's words, shown as
	// such.
	Title string `json:"title,omitempty"`
	// Command is the command line as the agent wrote it (a terminal's
	// command and arguments, shell-quoted), "" when none is named.
	Command string `json:"command,omitempty"`
	// Argv is the program and arguments that run: the command line
	// parsed as a POSIX shell would (quotes removed) when it has no shell
	// syntax; with FlagShell, ["/bin/sh","-c",Command].
	Argv []string `json:"argv,omitempty"`
	// Cwd is the folder the command runs in, resolved.
	Cwd string `json:"cwd,omitempty"`
	// Env is the environment the agent sets for the command, in its
	// order.
	Env []EnvVar `json:"env,omitempty"`
	// Paths are the files the request touches (its locations and diffs),
	// resolved, in order, without repeats.
	Paths []string `json:"paths,omitempty"`
	// Flags say what the card must point out (Flag…), sorted.
	Flags []string `json:"flags,omitempty"`
	// Budget are a budget permission's amounts (PermKindBudget): its
	// details, beside its title.
	Budget *BudgetDetails `json:"budget,omitempty"`
	// Subagent names the agent's sub-agent session that asked, when one
	// did (issue 32): decided and audited as any other request of the
	// thread, this says who asked.
	Subagent *SubagentRef `json:"subagent,omitempty"`
}

// SubagentRef names a sub-agent session of a thread's agent: its ACP
// session id and the title the agent gave it ("" when none).
type SubagentRef struct {
	SessionID string `json:"sessionId"`
	Title     string `json:"title,omitempty"`
}

// EnvVar is one variable an agent sets for a command. Value is given for
// the variables that change what runs (FlagEnvProgram: PATH, LD_*, …);
// for any other only its name is shown (Value "", Hidden true).
type EnvVar struct {
	Name   string `json:"name"`
	Value  string `json:"value,omitempty"`
	Hidden bool   `json:"hidden,omitempty"`
}

// Has reports whether r carries flag f. A nil r has no flags.
func (r *PermissionRequest) Has(f string) bool {
	if r == nil {
		return false
	}
	for _, x := range r.Flags {
		if x == f {
			return true
		}
	}
	return false
}

// Undecidable reports whether no rule or remembered decision may decide
// r (a person is asked): shell syntax, a command the tool call's fields
// or title name in different ways, malformed fields, or git's own
// settings.
func (r *PermissionRequest) Undecidable() bool {
	return r.Has(FlagShell) || r.Has(FlagConflicting) || r.Has(FlagTitleDiffers) || r.Has(FlagMalformed) || r.Has(FlagGitSettings)
}
