package acp

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
)

// SupervisorArg is the hidden first argument that makes the hub's binary a
// supervisor (see Supervisor): `switchboard __supervise PATH ARGV0 ARGS...`.
// The program that dispatches it must call SuperviseMain with the arguments
// after it, before anything else.
const SupervisorArg = "__supervise"

// SupervisorSupported reports whether this system runs supervisors (Linux:
// they need a child subreaper). Elsewhere a Supervisor is ignored and
// commands start directly, as before.
const SupervisorSupported = runtime.GOOS == "linux"

// Supervisor is how the hub starts the small process it puts between itself
// and every agent and terminal command, so that their whole process trees
// die with the hub, even when the hub is SIGKILLed (docs/DECISIONS.md,
// ADR 0029).
//
// The supervisor is the hub's own binary re-executed with SupervisorArg. It
// is the leader of a new process group, in which it starts the command
// (stdin, stdout and stderr are the hub's pipes, passed as they are: the
// supervisor copies no byte; the command's environment comes on fd 4, the
// supervisor itself runs with the hub's), makes itself a child subreaper,
// and holds the read end of a control pipe (fd 3) whose only writer is
// the hub. When the command
// exits, when the hub asks (Kill), or when the pipe reports EOF (the hub is
// gone, however it went), it SIGKILLs every process of its group and every
// descendant (orphans reparent to it), reaps them, and exits as the command
// did (same code, or killed by the same signal).
type Supervisor struct {
	// Path is the executable, normally os.Executable().
	Path string
	// Args are the arguments before SupervisorArg's (rarely any: a test
	// binary's own flags). SupervisorArg is added by the hub.
	Args []string
}

// NewSupervisor returns the Supervisor that re-executes this program, or
// nil when this system does not run supervisors.
func NewSupervisor() (*Supervisor, error) {
	if !SupervisorSupported {
		return nil, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("acp: supervisor: %w", err)
	}
	return &Supervisor{Path: exe}, nil
}

// child is what the hub started for an agent or a terminal command: the
// command itself, or its supervisor. pid is the hub's child and the id of
// the process group it leads.
type child struct {
	pid int
	ctl *os.File // write end of the supervisor's control pipe; nil without one
}

// startChild starts c as the leader of a new process group, behind sup when
// it is set and supported. c must have no ExtraFiles.
func startChild(c *exec.Cmd, sup *Supervisor) (*child, error) {
	if sup == nil || !SupervisorSupported {
		if err := startGroup(c); err != nil {
			return nil, err
		}
		return &child{pid: c.Process.Pid}, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	er, ew, err := os.Pipe()
	if err != nil {
		closeAll(r, w)
		return nil, err
	}
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	args := append(append([]string{sup.Path}, sup.Args...), SupervisorArg, c.Path)
	c.Args = append(args, c.Args...)
	c.Path = sup.Path
	// The supervisor runs with the hub's environment; the command's
	// (which a terminal's request shapes) reaches it on fd 4, so that
	// it never configures the supervisor's own runtime or loader.
	c.Env = nil
	c.ExtraFiles = []*os.File{r, er} // fds 3 and 4
	err = startGroup(c)
	closeAll(r, er)
	if err != nil {
		closeAll(w, ew)
		return nil, err
	}
	go func() { // the pipe may hold less than the environment
		_, _ = ew.Write([]byte(strings.Join(env, "\x00")))
		_ = ew.Close()
	}()
	return &child{pid: c.Process.Pid, ctl: w}, nil
}

// signal sends sig to the child's process group. SIGKILL to a supervised
// child is a request on the control pipe instead: the supervisor kills the
// whole tree, itself last (SIGKILL would end it before it could).
func (ch *child) signal(sig syscall.Signal) error {
	if sig == syscall.SIGKILL && ch.ctl != nil {
		if _, err := ch.ctl.Write([]byte{'K'}); err == nil {
			return nil
		}
	}
	return signalGroup(ch.pid, sig)
}

// reaped is called once Wait has returned: it kills whatever is left of the
// group and closes the control pipe.
func (ch *child) reaped() {
	_ = signalGroup(ch.pid, syscall.SIGKILL)
	if ch.ctl != nil {
		_ = ch.ctl.Close()
	}
}
