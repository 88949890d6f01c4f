package engine

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/policy"
)

// The hub's description of a permission (hub.PermissionRequest): built
// here, once, when the permission is raised, and never again from the
// agent's words. Rules (rules.go) match it, a terminal's reuse of an
// approval (approvals.go) compares it, it is stored with the permission
// and every surface shows it.

// maxRuleLocations bounds the paths a description resolves; a request
// with more is malformed (never decided by a rule).
const maxRuleLocations = 256

// describeToolCall describes an agent's tool call for thread t (toolCall
// as stored: redacted when redaction is on).
func (e *Engine) describeToolCall(t hub.Thread, toolCall json.RawMessage) *hub.PermissionRequest {
	tc := policy.ReadToolCall(toolCall)
	r := &hub.PermissionRequest{Kind: tc.Kind, Title: tc.Title}
	flags := map[string]bool{hub.FlagMalformed: tc.Malformed}
	if len(tc.Commands) > 0 {
		c := tc.Commands[0]
		r.Command = c.Line
		r.Argv = c.Argv
		if !c.Plain {
			r.Argv = []string{"/bin/sh", "-c", c.Line}
			if len(c.Argv) > 0 { // a list that runs a shell: the list itself
				r.Argv = c.Argv
			}
			flags[hub.FlagShell] = true
		}
		for _, o := range tc.Commands[1:] {
			if !slices.Equal(o.Argv, c.Argv) || o.Plain != c.Plain || !c.Plain && o.Line != c.Line {
				flags[hub.FlagConflicting] = true
			}
		}
		if tc.Title != "" && !titleNames(tc.Title, c) {
			flags[hub.FlagTitleDiffers] = true
		}
		cwd := tc.Cwd
		if cwd == "" {
			cwd = agentDir(t)
		}
		if d, err := resolvePath(cwd); err == nil {
			r.Cwd = d
		} else {
			r.Cwd, flags[hub.FlagMalformed] = cwd, true
		}
	}
	r.Env = describeEnv(tc.Env, flags)
	folders := e.allowedFolders(t) // resolved once for every path
	describePaths(r, tc.Paths, folders, flags)
	if r.Cwd != "" && !insideAny(r.Cwd, folders) {
		flags[hub.FlagOutside] = true
	}
	r.Flags = flagList(flags)
	return r
}

// titleNames reports whether an agent's title shows the command c: it
// holds c's line as written, or its argv joined (quoted or not). "Run
// make clean" and "`make clean`" name make clean; "npm test" does not
// name touch X.
func titleNames(title string, c policy.NamedCommand) bool {
	return strings.Contains(title, c.Line) || len(c.Argv) > 0 &&
		(strings.Contains(title, policy.QuoteArgv(c.Argv)) || strings.Contains(title, strings.Join(c.Argv, " ")))
}

// describeTerminal describes an agent's terminal/create: command and
// args as they run (see acp.Terminals.Create: with no args, a line with
// white space or shell syntax runs through /bin/sh -c), in the resolved
// folder dir, with the environment the agent sets.
func (e *Engine) describeTerminal(command string, args []string, dir string, env []hub.EnvVar) *hub.PermissionRequest {
	flags := map[string]bool{}
	r := &hub.PermissionRequest{Kind: "execute", Cwd: dir}
	if len(args) > 0 {
		r.Argv = append([]string{command}, args...)
		r.Command = policy.QuoteArgv(r.Argv)
	} else {
		r.Command = command
		argv, plain := policy.ParseCommand(command)
		switch {
		case !strings.ContainsAny(command, acp.ShellChars):
			r.Argv = []string{command}
		case plain:
			r.Argv = argv
		default:
			r.Argv = []string{"/bin/sh", "-c", command}
			flags[hub.FlagShell] = true
		}
	}
	r.Env = describeEnv(env, flags)
	r.Flags = flagList(flags)
	return r
}

// describePaths resolves paths into r.Paths (in order, without repeats)
// and sets the flags they call for: dot_dot for a path written with
// "..", malformed for one that cannot be resolved (or too many),
// outside_folder (outside every one of folders, resolved), and
// git_settings for a change to git's own files.
func describePaths(r *hub.PermissionRequest, paths, folders []string, flags map[string]bool) {
	if len(paths) > maxRuleLocations {
		// Not resolved one by one (an lstat per element each).
		flags[hub.FlagMalformed] = true
		return
	}
	writes := !slices.Contains([]string{"read", "search", "think", "fetch"}, r.Kind)
	for _, raw := range paths {
		if slices.Contains(strings.Split(filepath.ToSlash(raw), "/"), "..") {
			flags[hub.FlagDotDot] = true
		}
		p, err := resolvePath(raw)
		if err != nil {
			flags[hub.FlagMalformed] = true
			continue
		}
		if writes && (gitSettingsPath(raw) || gitSettingsPath(p)) {
			flags[hub.FlagGitSettings] = true
		}
		if !insideAny(p, folders) {
			flags[hub.FlagOutside] = true
		}
		if !slices.Contains(r.Paths, p) {
			r.Paths = append(r.Paths, p)
		}
	}
}

// insideFolders reports whether the resolved path p lies in one of t's
// allowed folders.
func (e *Engine) insideFolders(t hub.Thread, p string) bool {
	return insideAny(p, e.allowedFolders(t))
}

// insideAny reports whether the resolved path p lies in one of folders.
func insideAny(p string, folders []string) bool {
	for _, dir := range folders {
		if within(p, dir) {
			return true
		}
	}
	return false
}

// gitSettingsPath reports whether writing p changes what git runs or
// where it looks: any path with a .git element (a repository's config,
// hooks, info/attributes, a worktree's .git file), .gitattributes and
// .gitmodules. Compared without case: on a case-insensitive file system
// .GIT is .git.
func gitSettingsPath(p string) bool {
	for _, el := range strings.Split(filepath.ToSlash(p), "/") {
		switch strings.ToLower(el) {
		case ".git", ".gitattributes", ".gitmodules":
			return true
		}
	}
	return false
}

// describeEnv is the environment as a card shows it: the value of each
// variable that changes what runs (programEnv; flagged), others by name.
func describeEnv(env []hub.EnvVar, flags map[string]bool) []hub.EnvVar {
	out := make([]hub.EnvVar, 0, len(env))
	for _, v := range env {
		if programEnv(v.Name) {
			flags[hub.FlagEnvProgram] = true
			out = append(out, hub.EnvVar{Name: v.Name, Value: v.Value})
			continue
		}
		out = append(out, hub.EnvVar{Name: v.Name, Hidden: v.Value != ""})
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// programEnv reports whether a variable changes which program runs or
// what it loads: the search path, the dynamic loader, sockets to agents
// and buses, git's own variables, and the startup files and options of
// shells and interpreters.
func programEnv(name string) bool {
	n := strings.ToUpper(name) // Windows folds case; elsewhere stricter is safe
	switch n {
	case "PATH", "HOME", "BASH_ENV", "ENV", "ZDOTDIR", "SHELLOPTS", "BASHOPTS", "PROMPT_COMMAND", "PS4", "IFS",
		"CDPATH", "GLOBIGNORE", "XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "NODE_OPTIONS", "NODE_PATH", "PYTHONPATH",
		"PYTHONSTARTUP", "PYTHONHOME", "PERL5OPT", "PERL5LIB", "RUBYOPT", "RUBYLIB", "JAVA_TOOL_OPTIONS",
		"_JAVA_OPTIONS", "GOFLAGS", "CARGO_HOME", "RUSTC_WRAPPER", "NPM_CONFIG_PREFIX", "PAGER", "EDITOR",
		"VISUAL", "SSH_ASKPASS", "SUDO_ASKPASS":
		return true
	}
	for _, p := range []string{"LD_", "DYLD_", "GIT_", "BASH_FUNC_"} {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	return strings.HasSuffix(n, "_SOCK") || strings.HasSuffix(n, "_SOCKET")
}

// flagList is the set flags, sorted.
func flagList(flags map[string]bool) []string {
	var out []string
	for f, on := range flags {
		if on {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}

// sameRun reports whether two descriptions run the same argv (a shell
// line only as the same line) in the same folder.
func sameRun(a, b *hub.PermissionRequest) bool {
	return a != nil && b != nil && len(a.Argv) > 0 && a.Has(hub.FlagShell) == b.Has(hub.FlagShell) &&
		slices.Equal(a.Argv, b.Argv) && a.Cwd == b.Cwd
}
