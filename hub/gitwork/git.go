// Package gitwork runs the user's git through its command line for the
// hub's worktrees, merges and checkpoints (docs/DECISIONS.md, ADR 0017).
// The repository is the agent's to write, so git the hub runs for itself
// runs nothing the repository names — no hook, filter, merge or diff
// driver, signing program or file-system monitor — and reads the work
// tree only through a git dir of the hub's own (space.go; ADR 0028,
// docs/SECURITY.md "What git the hub runs"); only Merge runs the user's
// git as they configured it. It imports nothing internal; every function
// takes the folder it works in and never changes the user's index, branch
// or stash unless its doc says so.
package gitwork

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
)

// Bin is the git executable (looked up on PATH).
var Bin = "git"

// Error is a git command that failed: its arguments, exit code and
// standard error (trimmed).
type Error struct {
	Args   []string
	Code   int
	Stderr string
}

func (e *Error) Error() string {
	return fmt.Sprintf("git %s: exit %d: %s", strings.Join(e.Args, " "), e.Code, e.Stderr)
}

// cmd describes one git invocation.
type cmd struct {
	dir   string
	env   []string // added to the hub's environment
	stdin []byte
	args  []string
	// sp, when set, runs git on the hub's own git dir (space.go) instead
	// of the repository's: the only way a command that reads or writes
	// the work tree, the index or attributes may run.
	sp *space
	// user runs the user's git as configured — their hooks, filters,
	// merge drivers and signing: only for what the user asked for and was
	// told so (Merge; docs/SECURITY.md "What git the hub runs").
	user bool
}

// baseEnv keeps git from prompting (no terminal, no askpass, no editor,
// no pager) and its messages stable.
var baseEnv = []string{"GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=", "LC_ALL=C", "GIT_EDITOR=true", "GIT_SEQUENCE_EDITOR=true", "GIT_MERGE_AUTOEDIT=no", "GIT_PAGER=cat"}

// always are options of every git the hub runs: no file-system monitor
// (core.fsmonitor names a command, and a repository's config is writable
// by the agent working in it), no automatic gc or maintenance (they run
// hooks and programs of their own).
var always = []string{"-c", "core.fsmonitor=false", "-c", "gc.auto=0", "-c", "maintenance.auto=false"}

// hubOnly are options of every git the hub runs for itself (all but
// cmd.user): no hooks, no global attributes file, no signing. Command-line
// configuration wins over every file, so what the repository's config says
// later cannot undo them.
var hubOnly = []string{
	"-c", "core.hooksPath=" + os.DevNull,
	"-c", "core.attributesFile=" + os.DevNull,
	"-c", "commit.gpgSign=false", "-c", "tag.gpgSign=false",
}

// hubEnv is hubOnly's environment: no system attributes file.
var hubEnv = []string{"GIT_ATTR_NOSYSTEM=1"}

// pickEnv are variables of the hub's environment that would choose
// another repository, index or work tree than the one a command names.
var pickEnv = []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_PREFIX", "GIT_EXTERNAL_DIFF"}

// hubEnviron is the hub's environment without pickEnv.
func hubEnviron() []string {
	env := os.Environ()
	out := env[:0:0]
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(pickEnv, k) {
			out = append(out, kv)
		}
	}
	return out
}

// run runs git and returns its standard output; a non-zero exit is *Error.
// Every git the package runs goes through here.
func run(ctx context.Context, c cmd) ([]byte, error) {
	args := append([]string{}, always...)
	env := append(hubEnviron(), baseEnv...)
	if !c.user {
		args = append(args, hubOnly...)
		env = append(env, hubEnv...)
	}
	if c.sp != nil {
		args = append(args, spaceArgs...)
		env = append(env, c.sp.environ()...)
	}
	x := exec.CommandContext(ctx, Bin, append(args, c.args...)...)
	x.Dir = c.dir
	x.Env = append(env, c.env...)
	if c.stdin != nil {
		x.Stdin = bytes.NewReader(c.stdin)
	}
	var out, errb bytes.Buffer
	x.Stdout, x.Stderr = &out, &errb
	err := x.Run()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return out.Bytes(), &Error{Args: c.args, Code: ee.ExitCode(), Stderr: strings.TrimSpace(errb.String())}
		}
		return nil, fmt.Errorf("git %s: %w", strings.Join(c.args, " "), err)
	}
	return out.Bytes(), nil
}

// git runs git in dir with args and returns its trimmed output.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := run(ctx, cmd{dir: dir, args: args})
	return strings.TrimSpace(string(out)), err
}

// exitCode returns the exit code of a git *Error, -1 for any other error.
func exitCode(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return -1
}

// splitZ splits NUL-terminated output.
func splitZ(b []byte) []string {
	s := strings.TrimSuffix(string(b), "\x00")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\x00")
}
