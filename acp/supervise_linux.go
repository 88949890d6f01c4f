//go:build linux

package acp

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// supervisorReap bounds how long a supervisor waits for the killed tree
// to be reaped before it exits anyway (a process stuck in the kernel).
const supervisorReap = 5 * time.Second

// SuperviseMain runs this process as a Supervisor and exits: args are the
// program's path, its argv[0] and its arguments (what follows
// SupervisorArg). File descriptor 3 must be the read end of the control
// pipe, 4 a pipe that holds the program's environment (NUL-separated,
// then EOF). It never returns.
func SuperviseMain(args []string) {
	os.Exit(supervise(args))
}

// supervise runs the supervisor and returns the exit status; a command
// killed by a signal ends the supervisor by the same signal instead.
func supervise(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "switchboard supervisor: usage: "+SupervisorArg+" PATH ARGV0 [ARGS...]")
		return 2
	}
	ctl := os.NewFile(3, "supervisor-control")
	if ctl == nil {
		fmt.Fprintln(os.Stderr, "switchboard supervisor: no control pipe on fd 3")
		return 2
	}
	unix.CloseOnExec(3)
	env, err := readEnv()
	if err != nil {
		fmt.Fprintf(os.Stderr, "switchboard supervisor: the command's environment: %v\n", err)
		return 2
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "switchboard supervisor: PR_SET_CHILD_SUBREAPER: %v\n", err)
		return 2
	}
	// The hub signals the whole group, so the command gets these itself;
	// the supervisor outlives them to clean up after it.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	go func() {
		for range sigs {
		}
	}()
	c := &exec.Cmd{Path: args[0], Args: args[1:], Env: env, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	if err := c.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "switchboard supervisor: %v\n", err)
		return 127
	}
	releaseStdio()
	self := os.Getpid()
	// Any byte on the control pipe asks for the kill; EOF says the hub is
	// gone. Either way the whole tree dies.
	go func() {
		var b [1]byte
		_, _ = ctl.Read(b[:])
		killMembers(self, supervisorReap)
	}()
	ws := waitChild(c.Process.Pid)
	killMembers(self, supervisorReap)
	reapAll(time.Now().Add(supervisorReap))
	return mirror(ws)
}

// readEnv reads the command's environment from fd 4, NUL-separated, to
// EOF, and closes it.
func readEnv() ([]string, error) {
	f := os.NewFile(4, "supervisor-env")
	if f == nil {
		return nil, errors.New("no environment pipe on fd 4")
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	if len(b) == 0 {
		return []string{}, nil
	}
	return strings.Split(string(b), "\x00"), nil
}

// releaseStdio points stdin and stdout at /dev/null, so that the
// supervisor holds neither end of the command's protocol pipes (stdout's
// EOF must mean the command and its children are gone). Stderr stays for
// the supervisor's own errors.
func releaseStdio() {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return
	}
	_ = unix.Dup3(int(null.Fd()), 0, 0)
	_ = unix.Dup3(int(null.Fd()), 1, 0)
	_ = null.Close()
}

// waitChild reaps children, adopted orphans included, until pid exits,
// and returns pid's status.
func waitChild(pid int) syscall.WaitStatus {
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil { // ECHILD: cannot happen while pid lives
			return ws
		}
		if got == pid {
			return ws
		}
	}
}

// reapAll reaps every child left until none is left or deadline passes.
func reapAll(deadline time.Time) {
	for time.Now().Before(deadline) {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
		case err != nil: // ECHILD: all reaped
			return
		case got == 0:
			time.Sleep(2 * time.Millisecond)
		}
	}
}

// mirror ends the supervisor as ws says the command ended: with its exit
// code, or by its signal when that is SIGKILL, SIGTERM, SIGINT or SIGHUP
// (those a Go program dies of by default); any other signal becomes exit
// code 128+n, the shell's convention.
func mirror(ws syscall.WaitStatus) int {
	if !ws.Signaled() {
		return ws.ExitStatus()
	}
	sig := ws.Signal()
	switch sig {
	case syscall.SIGKILL, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP:
		signal.Reset(sig)
		_ = syscall.Kill(os.Getpid(), sig)
		time.Sleep(time.Second) // the signal is on its way
	}
	return 128 + int(sig)
}
