// Package gitwork runs the user's git through its command line for the
// hub's worktrees, merges and checkpoints: hooks, config and signing
// behave as the user expects (docs/DECISIONS.md, ADR 0017). It imports
// nothing internal; every function takes the folder it works in and never
// changes the user's index, branch or stash unless its doc says so.
package gitwork

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
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
}

// baseEnv keeps git from prompting (no terminal, no askpass) and its
// messages stable.
var baseEnv = []string{"GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=", "LC_ALL=C", "GIT_EDITOR=true", "GIT_MERGE_AUTOEDIT=no"}

// always are options of every git the hub runs: no file-system monitor
// (core.fsmonitor names a command, and a repository's config is writable
// by the agent working in it).
var always = []string{"-c", "core.fsmonitor=false"}

// run runs git and returns its standard output; a non-zero exit is *Error.
func run(ctx context.Context, c cmd) ([]byte, error) {
	x := exec.CommandContext(ctx, Bin, append(append([]string{}, always...), c.args...)...)
	x.Dir = c.dir
	x.Env = append(append(os.Environ(), baseEnv...), c.env...)
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
