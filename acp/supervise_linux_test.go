//go:build linux

package acp

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
)

// testSupervisor re-executes this test binary as the supervisor (TestMain
// dispatches SupervisorArg).
func testSupervisor(t *testing.T) *Supervisor {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return &Supervisor{Path: exe}
}

// escapeScript starts a grandchild in a session of its own (out of every
// process group the hub knows) and one in the group, prints both pids,
// then runs rest.
const escapeScript = `setsid sleep 60 </dev/null >/dev/null 2>&1 & echo $!; sleep 60 & echo $!; `

// readPids reads n pids, one a line.
func readPids(t *testing.T, r *bufio.Reader, n int) []int {
	t.Helper()
	var pids []int
	for range n {
		pid, err := strconv.Atoi(readLine(t, r))
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, pid)
	}
	return pids
}

func TestSupervisorKillsTreeOnControlEOF(t *testing.T) {
	// The hub's side of the control pipe closes as it does when the hub
	// is SIGKILLed: the supervisor kills the whole tree, even the
	// grandchild in a session of its own, and exits.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	sup := testSupervisor(t)
	c := exec.Command(sup.Path, SupervisorArg, "/bin/sh", "sh", "-c", escapeScript+"exec cat")
	c.ExtraFiles = []*os.File{r, emptyEnv(t)}
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, _ := c.StdinPipe()
	defer stdin.Close()
	out, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	pids := readPids(t, bufio.NewReader(out), 2)
	for _, pid := range pids {
		if !alive(pid) {
			t.Fatalf("grandchild %d not running", pid)
		}
	}
	w.Close()
	for _, pid := range pids {
		waitGone(t, pid, 3*time.Second)
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the supervisor did not exit")
	}
	if ws := c.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("supervisor ended %v, want killed by SIGKILL as its command was", c.ProcessState)
	}
}

func TestSupervisedProcessCloseKillsEscapedGrandchild(t *testing.T) {
	p := startSh(t, escapeScript+"cat >/dev/null", ProcessOptions{Grace: 5 * time.Second, Supervisor: testSupervisor(t)})
	pids := readPids(t, bufio.NewReader(p.Stdout()), 2)
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		waitGone(t, pid, 2*time.Second)
	}
}

func TestSupervisedProcessStdioAndExit(t *testing.T) {
	sup := testSupervisor(t)
	p := startSh(t, `read line; echo "got $line"; echo oops >&2; exit 3`, ProcessOptions{Supervisor: sup})
	io.WriteString(p.Stdin(), "hello\n")
	if got := readLine(t, bufio.NewReader(p.Stdout())); got != "got hello" {
		t.Errorf("stdout %q", got)
	}
	waitDone(t, p, 5*time.Second)
	if e := p.Exit(); e.ExitCode != 3 || !strings.Contains(e.StderrTail, "oops") {
		t.Errorf("exit %+v, want code 3 with stderr", e)
	}

	p = startSh(t, `kill -TERM $$`, ProcessOptions{Supervisor: sup})
	waitDone(t, p, 5*time.Second)
	if e := p.Exit(); e.Signal != "SIGTERM" {
		t.Errorf("exit %+v, want SIGTERM", e)
	}

	p = startSh(t, `exec sleep 60`, ProcessOptions{Supervisor: sup})
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitDone(t, p, 5*time.Second)
	if e := p.Exit(); e.Signal != "SIGTERM" {
		t.Errorf("after Signal(SIGTERM): exit %+v, want SIGTERM (the supervisor outlives it)", e)
	}

	p = startSh(t, `exec sleep 60`, ProcessOptions{Supervisor: sup})
	p.Kill()
	waitDone(t, p, 5*time.Second)
	if e := p.Exit(); e.Signal != "SIGKILL" {
		t.Errorf("after Kill: exit %+v, want SIGKILL", e)
	}
}

func TestSupervisedTerminalReleaseKillsEscapedGrandchild(t *testing.T) {
	ts := NewTerminals(TerminalOptions{Grace: time.Second, Supervisor: testSupervisor(t)})
	defer ts.Close()
	ctx := context.Background()
	res, err := ts.Create(ctx, t.TempDir(), CreateTerminalRequest{SessionID: "s", Command: "sh", Args: []string{"-c", escapeScript + "wait"},
		Env: []EnvVariable{{Name: "GORACE", Value: "atexit_sleep_ms=0"}}})
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	if !testkit.Until(5*time.Second, func() bool {
		out, _ := ts.Output(ctx, TerminalOutputRequest{SessionID: "s", TerminalID: res.TerminalID})
		pids = pids[:0]
		for _, f := range strings.Fields(out.Output) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
		return len(pids) >= 2
	}) {
		t.Fatalf("no pids in the output: %v", pids)
	}
	if _, err := ts.Release(ctx, ReleaseTerminalRequest{SessionID: "s", TerminalID: res.TerminalID}); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		waitGone(t, pid, 2*time.Second)
	}
}

func TestKillTree(t *testing.T) {
	// What recovery does to a recorded group whose leader still runs: the
	// leader, its group and its descendants in other sessions die.
	c := exec.Command("sh", "-c", escapeScript+"wait")
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	go c.Wait()
	pids := readPids(t, bufio.NewReader(out), 2)
	KillTree(c.Process.Pid)
	for _, pid := range append(pids, c.Process.Pid) {
		waitGone(t, pid, 2*time.Second)
	}
}

// emptyEnv is the read end of a pipe that holds an empty environment.
func emptyEnv(t *testing.T) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() { r.Close() })
	return r
}

func TestSupervisorPassesEnvironment(t *testing.T) {
	// The command gets its own environment; the supervisor keeps the
	// hub's (a terminal's request never configures it).
	t.Setenv("SUPERVISOR_TEST_HUB", "hub")
	p, err := StartProcess(Command{Path: "sh", Args: []string{"-c", `echo "cmd=$SUPERVISOR_TEST_CMD hub=${SUPERVISOR_TEST_HUB:-unset}"; exec cat`},
		Env: []string{"SUPERVISOR_TEST_CMD=cmd"}}, ProcessOptions{Supervisor: testSupervisor(t), BaseEnv: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	if got := readLine(t, bufio.NewReader(p.Stdout())); got != "cmd=cmd hub=unset" {
		t.Errorf("the command's environment: %q", got)
	}
	env, _ := os.ReadFile("/proc/" + strconv.Itoa(p.PID()) + "/environ")
	if !strings.Contains(string(env), "SUPERVISOR_TEST_HUB=hub") {
		t.Errorf("the supervisor's environment lacks the hub's")
	}
}
