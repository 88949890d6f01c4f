//go:build unix

package acp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
)

// startSh starts sh -c script as an agent with a short grace.
func startSh(t *testing.T, script string, opts ProcessOptions) *Process {
	t.Helper()
	if opts.Grace == 0 {
		opts.Grace = 300 * time.Millisecond
	}
	p, err := StartProcess(Command{Path: "sh", Args: []string{"-c", script}}, opts)
	if err != nil {
		t.Fatalf("StartProcess: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		p.Close(ctx)
	})
	return p
}

// waitDone fails the test unless p is done within d.
func waitDone(t *testing.T, p *Process, d time.Duration) {
	t.Helper()
	select {
	case <-p.Done():
	case <-time.After(d):
		t.Fatalf("process %d not done after %v", p.PID(), d)
	}
}

// readLine reads one line from r within 5s.
func readLine(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	ch := make(chan string, 1)
	go func() {
		s, _ := r.ReadString('\n')
		ch <- s
	}()
	select {
	case s := <-ch:
		return strings.TrimSpace(s)
	case <-time.After(5 * time.Second):
		t.Fatal("no line on stdout after 5s")
		return ""
	}
}

// alive reports whether pid names a live process. A zombie counts as dead:
// an orphan killed in a container whose init does not reap stays one.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !os.IsNotExist(err) || !dirExists("/proc/self")
	}
	// Format: pid (comm) state ...; comm may contain spaces.
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z' && s[i+2] != 'X'
	}
	return true
}

func dirExists(p string) bool { fi, err := os.Stat(p); return err == nil && fi.IsDir() }

// waitGone fails the test unless pid dies within d.
func waitGone(t *testing.T, pid int, d time.Duration) {
	t.Helper()
	if !testkit.Until(d, func() bool { return !alive(pid) }) {
		t.Fatalf("process %d still alive after %v", pid, d)
	}
}

func TestProcessExitCodeAndStderr(t *testing.T) {
	p := startSh(t, `echo first >&2; echo "last words" >&2; exit 3`, ProcessOptions{})
	waitDone(t, p, 5*time.Second)
	e := p.Exit()
	if e.ExitCode != 3 || e.Signal != "" {
		t.Errorf("exit = %d %q, want 3 and no signal", e.ExitCode, e.Signal)
	}
	var ee *exec.ExitError
	if !errors.As(e.Err, &ee) {
		t.Errorf("Err = %v, want an *exec.ExitError", e.Err)
	}
	if e.StderrTail != "first\nlast words\n" || p.StderrTail() != e.StderrTail {
		t.Errorf("StderrTail = %q", e.StderrTail)
	}
	if got, want := e.String(), "agent exited with code 3: first\nlast words"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	if p.StartTime().IsZero() || time.Since(p.StartTime()) > time.Minute {
		t.Errorf("StartTime = %v", p.StartTime())
	}
}

func TestProcessStdioAndDir(t *testing.T) {
	dir := t.TempDir()
	p, err := StartProcess(Command{Path: "sh", Args: []string{"-c", `pwd; read line; echo "got $line"`}, Dir: dir}, ProcessOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(p.Stdout())
	want, _ := filepath.EvalSymlinks(dir)
	if got := readLine(t, out); got != want {
		t.Errorf("pwd = %q, want %q", got, want)
	}
	io.WriteString(p.Stdin(), "ping\n")
	if got := readLine(t, out); got != "got ping" {
		t.Errorf("echo = %q", got)
	}
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if e := p.Exit(); e.ExitCode != 0 || e.Err != nil {
		t.Errorf("exit = %+v", e)
	}
}

func TestProcessCloseOnEOF(t *testing.T) {
	p := startSh(t, `cat >/dev/null; echo bye >&2`, ProcessOptions{Grace: 5 * time.Second})
	start := time.Now()
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Close took %v; an agent that exits on EOF needs no grace", d)
	}
	if e := p.Exit(); e.ExitCode != 0 || e.StderrTail != "bye\n" {
		t.Errorf("exit = %+v", e)
	}
}

func TestProcessCloseTermsWhenEOFIgnored(t *testing.T) {
	p := startSh(t, `exec sleep 30`, ProcessOptions{Grace: 200 * time.Millisecond})
	start := time.Now()
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	d := time.Since(start)
	if e := p.Exit(); e.Signal != "SIGTERM" || e.ExitCode != -1 {
		t.Errorf("exit = %+v, want SIGTERM", e)
	}
	if d < 200*time.Millisecond || d > 3*time.Second {
		t.Errorf("Close took %v, want about one grace", d)
	}
}

func TestProcessCloseKillsWhenTermTrapped(t *testing.T) {
	p := startSh(t, `trap "" TERM; echo ready; while :; do sleep 1; done`, ProcessOptions{Grace: 200 * time.Millisecond})
	if got := readLine(t, bufio.NewReader(p.Stdout())); got != "ready" {
		t.Fatalf("stdout = %q", got)
	}
	start := time.Now()
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	d := time.Since(start)
	if e := p.Exit(); e.Signal != "SIGKILL" {
		t.Errorf("exit = %+v, want SIGKILL", e)
	}
	if d < 400*time.Millisecond || d > 4*time.Second {
		t.Errorf("Close took %v, want about two graces", d)
	}
	if got := p.Exit().String(); got != "agent terminated by signal SIGKILL" {
		t.Errorf("String = %q", got)
	}
}

func TestProcessGrandchildHoldingStdout(t *testing.T) {
	// The leader exits at once; its background child keeps stdout and
	// stderr open. Done must not wait for it, and it must be killed.
	p := startSh(t, `sleep 60 & echo $!; exit 0`, ProcessOptions{Grace: 5 * time.Second})
	out := bufio.NewReader(p.Stdout())
	gpid, err := strconv.Atoi(readLine(t, out))
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, p, 2*time.Second) // well under Grace
	if e := p.Exit(); e.ExitCode != 0 {
		t.Errorf("exit = %+v", e)
	}
	waitGone(t, gpid, 2*time.Second)
	// With every writer dead, stdout ends.
	if _, err := io.ReadAll(out); err != nil {
		t.Errorf("reading stdout to the end: %v", err)
	}
}

func TestProcessCloseKillsGrandchild(t *testing.T) {
	// The leader exits on EOF; the grandchild ignores it all.
	p := startSh(t, `sleep 60 & echo $!; cat >/dev/null`, ProcessOptions{Grace: 5 * time.Second})
	gpid, err := strconv.Atoi(readLine(t, bufio.NewReader(p.Stdout())))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Close took %v", d)
	}
	waitGone(t, gpid, 2*time.Second)
}

// TestReadTextFileFIFO lives here because fs_test.go builds everywhere.
func TestReadTextFileFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := LocalFS{}.ReadTextFile(context.Background(), ReadTextFileRequest{Path: fifo})
	wantCode(t, err, CodeInvalidParams, "not a regular file")
}

func TestProcessReaped(t *testing.T) {
	p := startSh(t, `exit 0`, ProcessOptions{})
	waitDone(t, p, 5*time.Second)
	// Our own child: if Wait had not reaped it, it would be a zombie and
	// kill(pid, 0) would succeed.
	if err := syscall.Kill(p.PID(), 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("kill(%d, 0) = %v, want ESRCH (reaped)", p.PID(), err)
	}
}

func TestProcessEnvClean(t *testing.T) {
	base := []string{"PATH=" + os.Getenv("PATH"), "SWITCHBOARD_TOKEN=secret", "SECRET_KEY=k", "ANTHROPIC_API_KEY=a"}
	p, err := StartProcess(Command{
		Path:    "sh",
		Args:    []string{"-c", `echo "${SWITCHBOARD_TOKEN-unset} ${SECRET_KEY-unset} ${ANTHROPIC_API_KEY-unset} ${EXTRA-unset}"`},
		PassEnv: []string{"SWITCHBOARD_*", "ANTHROPIC_*"},
		Env:     []string{"SWITCHBOARD_TOKEN=leak", "EXTRA=x"},
	}, ProcessOptions{BaseEnv: base})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	if got, want := readLine(t, bufio.NewReader(p.Stdout())), "unset unset a x"; got != want {
		t.Fatalf("child sees %q, want %q", got, want)
	}
}

func TestProcessMissingProgram(t *testing.T) {
	_, err := StartProcess(Command{Path: "switchboard-no-such-agent"}, ProcessOptions{})
	if err == nil || !strings.Contains(err.Error(), `"switchboard-no-such-agent"`) || !errors.Is(err, exec.ErrNotFound) {
		t.Fatalf("err = %v, want not found naming the program", err)
	}
	_, err = StartProcess(Command{Path: "/nonexistent/agent"}, ProcessOptions{})
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/agent") {
		t.Fatalf("err = %v", err)
	}
	_, err = StartProcess(Command{Path: "sh", Dir: "/nonexistent-dir"}, ProcessOptions{})
	if err == nil || !strings.Contains(err.Error(), "/nonexistent-dir") {
		t.Fatalf("err = %v", err)
	}
}

func TestProcessLooksUpChildPath(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "fake-agent")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho fake \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := StartProcess(Command{Path: "fake-agent", Args: []string{"--acp"}, Env: []string{"PATH=" + dir + ":/usr/bin:/bin"}}, ProcessOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	if got := readLine(t, bufio.NewReader(p.Stdout())); got != "fake --acp" {
		t.Fatalf("stdout = %q", got)
	}
}

func TestProcessStderrFlood(t *testing.T) {
	const flood = 50 << 20
	p := startSh(t, `head -c 52428800 /dev/zero | tr '\0' x >&2; echo done`, ProcessOptions{StderrBytes: 4096})
	if got := readLine(t, bufio.NewReader(p.Stdout())); got != "done" {
		t.Fatalf("stdout = %q", got)
	}
	waitDone(t, p, 8*time.Second)
	tail := p.Exit().StderrTail
	if len(tail) != 4096 || strings.Trim(tail, "x") != "" {
		t.Errorf("tail: %d bytes, want 4096 x's", len(tail))
	}
	if got := p.stderr.Dropped(); got != flood-4096 {
		t.Errorf("Dropped = %d, want %d", got, flood-4096)
	}
}

func TestProcessCloseConcurrent(t *testing.T) {
	p := startSh(t, `exec sleep 30`, ProcessOptions{Grace: 100 * time.Millisecond})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() { errs <- p.Close(context.Background()) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	}
	select {
	case <-p.Done():
	default:
		t.Fatal("Close returned before Done")
	}
	if err := p.Close(context.Background()); err != nil {
		t.Errorf("Close again: %v", err)
	}
	if err := p.Signal(syscall.SIGTERM); !errors.Is(err, os.ErrProcessDone) {
		t.Errorf("Signal after exit = %v, want os.ErrProcessDone", err)
	}
}

func TestProcessCloseContext(t *testing.T) {
	p := startSh(t, `trap "" TERM; echo ready; while :; do sleep 1; done`, ProcessOptions{Grace: 10 * time.Second})
	readLine(t, bufio.NewReader(p.Stdout()))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := p.Close(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Close = %v, want DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Close took %v despite ctx", d)
	}
	if e := p.Exit(); e.Signal != "SIGKILL" {
		t.Errorf("exit = %+v, want SIGKILL", e)
	}
}

func TestProcessSignal(t *testing.T) {
	p := startSh(t, `exec sleep 30`, ProcessOptions{})
	if err := p.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	waitDone(t, p, 5*time.Second)
	if e := p.Exit(); e.Signal != "SIGINT" {
		t.Errorf("exit = %+v, want SIGINT", e)
	}
}

func TestExitInfoString(t *testing.T) {
	long := strings.Repeat("line\n", 50) + "final"
	tests := []struct {
		e    ExitInfo
		want string
	}{
		{ExitInfo{ExitCode: 0}, "agent exited with code 0"},
		{ExitInfo{ExitCode: 1, StderrTail: "  \n"}, "agent exited with code 1"},
		{ExitInfo{ExitCode: -1, Signal: "SIGTERM", StderrTail: "bye\n"}, "agent terminated by signal SIGTERM: bye"},
		{ExitInfo{ExitCode: -1, Err: errors.New("boom")}, "agent exited: boom"},
		{ExitInfo{ExitCode: 2, StderrTail: long}, "agent exited with code 2: " + strings.Repeat("line\n", 9) + "final"},
		{ExitInfo{ExitCode: 2, StderrTail: strings.Repeat("é", 3000)}, "agent exited with code 2: " + strings.Repeat("é", 1024)},
	}
	for _, tt := range tests {
		if got := tt.e.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}
