package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ProcessOptions tunes StartProcess. The zero value is usable.
type ProcessOptions struct {
	// Logger receives lifecycle messages; nil discards them.
	Logger *slog.Logger
	// StderrBytes is how much of the agent's stderr is kept (the most
	// recent bytes); 0 means 64 KiB.
	StderrBytes int
	// Grace is how long Close waits after stdin EOF before SIGTERM, and
	// again after SIGTERM before SIGKILL; 0 means 3s.
	Grace time.Duration
	// BaseEnv is the environment BuildEnv filters for the child; nil means
	// os.Environ().
	BaseEnv []string
	// Supervisor, when set (and SupervisorSupported), is started in front
	// of the agent so that its whole process tree dies with the hub.
	Supervisor *Supervisor
}

const (
	defaultStderrBytes = 64 << 10
	defaultGrace       = 3 * time.Second
)

// Process is a running agent: a child process in its own process group with
// its stdin and stdout connected to the hub and its stderr drained into a
// Ring. With ProcessOptions.Supervisor the child is the supervisor, the
// agent runs in its group with the same stdio, and the whole tree dies
// with the hub (see Supervisor). Its methods are safe for concurrent use.
//
// One goroutine calls Wait exactly once. When the agent (the group leader)
// exits, whatever is left of its process group is killed (wrappers such as
// npx or sh leave grandchildren behind that would keep pipes open), the rest
// of stderr is collected, and Done is closed. Done is closed even when a
// process that left the group holds stderr open: the drain is cut short
// after Grace.
//
// The caller must keep reading Stdout until it returns an error, or the agent
// blocks once the pipe is full. Stdout reports EOF when every writer is gone;
// it is closed by the Process Grace after Done at the latest.
type Process struct {
	log    *slog.Logger
	grace  time.Duration
	cmd    *exec.Cmd
	child  *child
	pid    int
	start  time.Time
	stdin  io.WriteCloser
	stdout *os.File
	stderr *Ring

	done chan struct{}
	exit ExitInfo // written once before done is closed; read only after

	closeOnce sync.Once
}

// ExitInfo describes how a process ended.
type ExitInfo struct {
	// ExitCode is the exit status, or -1 when the process was ended by a
	// signal (or its status is unknown).
	ExitCode int
	// Signal names the signal that ended the process ("SIGKILL"), if any.
	Signal string
	// Err is what exec.Cmd.Wait returned: nil after exit code 0, an
	// *exec.ExitError after a non-zero code or a signal.
	Err error
	// StderrTail is the end of the process's stderr (for terminals, empty).
	StderrTail string
}

// String describes the exit for an error report, with the last lines of
// stderr: "agent exited with code 3: <last stderr lines>".
func (e ExitInfo) String() string {
	var s string
	switch {
	case e.Signal != "":
		s = "agent terminated by signal " + e.Signal
	case e.ExitCode >= 0:
		s = fmt.Sprintf("agent exited with code %d", e.ExitCode)
	case e.Err != nil:
		s = "agent exited: " + e.Err.Error()
	default:
		s = "agent exited"
	}
	if tail := lastLines(e.StderrTail, 10, 2048); tail != "" {
		s += ": " + tail
	}
	return s
}

// StartProcess starts cmd as an agent.
//
// cmd.Path is looked up with exec.LookPath in the directories of the child's
// PATH (cmd.Env may set its own); a path containing a slash is used as is,
// relative to cmd.Dir. The child runs in cmd.Dir with the environment of
// BuildEnv(opts.BaseEnv, cmd), in a process group of its own.
//
// The caller owns the returned Process and must end it with Close (or wait
// for Done) so that its group is killed and its resources freed.
func StartProcess(cmd Command, opts ProcessOptions) (*Process, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.StderrBytes <= 0 {
		opts.StderrBytes = defaultStderrBytes
	}
	if opts.Grace <= 0 {
		opts.Grace = defaultGrace
	}
	if opts.BaseEnv == nil {
		opts.BaseEnv = os.Environ()
	}
	env := BuildEnv(opts.BaseEnv, cmd)
	path, err := resolveProgram(cmd.Path, cmd.Dir, env)
	if err == nil {
		err = checkDir(cmd.Dir)
	}
	if err != nil {
		return nil, fmt.Errorf("acp: start agent: %w", err)
	}
	c := &exec.Cmd{
		Path: path,
		Args: append([]string{cmd.Path}, cmd.Args...),
		Dir:  cmd.Dir,
		Env:  env,
		// All three stdio are *os.File, so Wait copies nothing and
		// WaitDelay is only a backstop should that change.
		WaitDelay: opts.Grace,
	}
	stdin, err := c.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("acp: start agent: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("acp: start agent: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(outR, outW)
		return nil, fmt.Errorf("acp: start agent: %w", err)
	}
	c.Stdout, c.Stderr = outW, errW
	ch, err := startChild(c, opts.Supervisor)
	closeAll(outW, errW) // the child has its copies
	if err != nil {
		closeAll(outR, errR)
		return nil, fmt.Errorf("acp: start agent %q: %w", cmd.Path, err)
	}
	p := &Process{
		log:    opts.Logger,
		grace:  opts.Grace,
		cmd:    c,
		child:  ch,
		pid:    ch.pid,
		start:  time.Now(),
		stdin:  stdin,
		stdout: outR,
		stderr: NewRing(opts.StderrBytes),
		done:   make(chan struct{}),
	}
	p.log.Debug("agent started", "pid", p.pid, "path", path)
	go p.wait(drain(p.stderr, errR), errR)
	return p, nil
}

// wait is the only caller of cmd.Wait.
func (p *Process) wait(drained <-chan struct{}, errR *os.File) {
	err := p.cmd.Wait()
	// The leader is reaped; kill what is left of its group so that no
	// grandchild outlives it or keeps the pipes open. (A supervisor has
	// killed its whole tree before it exited.)
	p.child.reaped()
	awaitDrain(drained, errR, p.grace)
	info := exitInfo(p.cmd.ProcessState, err)
	info.StderrTail = p.stderr.Tail()
	p.exit = info
	p.log.Info("agent exited", "pid", p.pid, "exitCode", info.ExitCode, "signal", info.Signal)
	close(p.done)
	time.AfterFunc(p.grace, func() { _ = p.stdout.Close() })
}

// Stdin is the agent's standard input. Closing it sends EOF.
func (p *Process) Stdin() io.WriteCloser { return p.stdin }

// Stdout is the agent's standard output (see Process about reading it).
func (p *Process) Stdout() io.Reader { return p.stdout }

// PID is the id of the process the hub started, which is also its process
// group id: the agent, or with a Supervisor the supervisor (the agent runs
// in its group).
func (p *Process) PID() int { return p.pid }

// StartTime is when the agent was started.
func (p *Process) StartTime() time.Time { return p.start }

// Done is closed once the agent has exited, been reaped, its group killed
// and its stderr collected.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exit reports how the agent ended. It is valid only after Done is closed;
// before, it returns an ExitInfo with ExitCode -1 and the stderr so far.
func (p *Process) Exit() ExitInfo {
	select {
	case <-p.done:
		return p.exit
	default:
		return ExitInfo{ExitCode: -1, StderrTail: p.stderr.Tail()}
	}
}

// StderrTail returns the end of the agent's stderr so far.
func (p *Process) StderrTail() string { return p.stderr.Tail() }

// Signal sends sig, which must be a syscall.Signal, to the agent's whole
// process group. It returns os.ErrProcessDone once the agent has exited.
func (p *Process) Signal(sig os.Signal) error {
	s, ok := sig.(syscall.Signal)
	if !ok {
		return fmt.Errorf("acp: signal agent: unsupported signal %v", sig)
	}
	select {
	case <-p.done:
		return os.ErrProcessDone
	default:
	}
	if err := p.child.signal(s); err != nil {
		return fmt.Errorf("acp: signal agent: %w", err)
	}
	return nil
}

// Kill sends SIGKILL to the agent's whole process group (with a Supervisor,
// to its whole process tree). It does not wait.
func (p *Process) Kill() error { return p.Signal(syscall.SIGKILL) }

// Close ends the agent and waits until it is gone: it closes stdin (EOF),
// waits up to Grace for the agent to exit, then sends SIGTERM to the group,
// waits Grace again, then sends SIGKILL. In every case it returns only after
// Wait has returned and the group has been killed (Done is closed).
//
// ctx bounds the sequence: when it is done first, the group is killed at once
// and Close returns ctx's error once the agent is reaped. Close is idempotent
// and safe to call concurrently; every call waits, each bounded by its ctx.
func (p *Process) Close(ctx context.Context) error {
	p.closeOnce.Do(func() { go p.shutdown() })
	select {
	case <-p.done:
		return nil
	default:
	}
	select {
	case <-p.done:
		return nil
	case <-ctx.Done():
	}
	p.log.Warn("agent close cut short; killing", "pid", p.pid)
	_ = p.Kill()
	<-p.done
	return fmt.Errorf("acp: close agent: %w", context.Cause(ctx))
}

// shutdown runs the polite part of Close; it stops as soon as Done closes.
func (p *Process) shutdown() {
	_ = p.stdin.Close()
	if waitFor(p.done, p.grace) {
		return
	}
	p.log.Info("agent ignored stdin EOF; sending SIGTERM", "pid", p.pid)
	_ = p.Signal(syscall.SIGTERM)
	if waitFor(p.done, p.grace) {
		return
	}
	p.log.Warn("agent ignored SIGTERM; sending SIGKILL", "pid", p.pid)
	_ = p.Kill()
}

// waitFor reports whether ch closed within d.
func waitFor(ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}

// lastLines returns at most n trailing lines of s, at most max bytes, with
// surrounding white space trimmed.
func lastLines(s string, n, max int) string {
	s = strings.TrimSpace(s)
	for i, idx := 0, len(s); i < n; i++ {
		idx = strings.LastIndexByte(s[:idx], '\n')
		if idx < 0 {
			break
		}
		if i == n-1 {
			s = s[idx+1:]
		}
	}
	if len(s) > max {
		s = strings.ToValidUTF8(s[len(s)-max:], "")
	}
	return strings.TrimSpace(s)
}

// checkDir reports a working directory that is not one, which exec would
// otherwise blame on the program ("fork/exec /bin/sh: no such file...").
func checkDir(dir string) error {
	if dir == "" {
		return nil
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("working directory: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("working directory %s: not a directory", dir)
	}
	return nil
}

// resolveProgram finds the executable for name: a name with a slash is used
// as is (relative to dir), anything else is looked up in the directories of
// the PATH in env (relative directories are skipped, like exec.ErrDot).
func resolveProgram(name, dir string, env []string) (string, error) {
	if name == "" {
		return "", errors.New("no program given")
	}
	if strings.Contains(name, "/") {
		p := name
		if dir != "" && !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		resolved, err := exec.LookPath(p)
		if err != nil {
			return "", fmt.Errorf("program %q: %w", name, err)
		}
		return resolved, nil
	}
	var pathEnv string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathEnv = v
		}
	}
	for _, d := range filepath.SplitList(pathEnv) {
		if !filepath.IsAbs(d) {
			continue
		}
		if p, err := exec.LookPath(filepath.Join(d, name)); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("program %q not found in PATH %q: %w", name, pathEnv, exec.ErrNotFound)
}

// drain copies r into w until r fails or reports EOF, then closes r. The
// returned channel is closed when it is done.
func drain(w io.Writer, r *os.File) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.Copy(w, r)
		_ = r.Close()
	}()
	return done
}

// awaitDrain waits up to d for a drain of r to finish; then it closes r,
// which ends the copy, and waits for it.
func awaitDrain(drained <-chan struct{}, r *os.File, d time.Duration) {
	if waitFor(drained, d) {
		return
	}
	_ = r.Close()
	<-drained
}

// exitInfo converts what Wait left into an ExitInfo (without StderrTail).
func exitInfo(state *os.ProcessState, err error) ExitInfo {
	info := ExitInfo{ExitCode: -1, Err: err}
	if state == nil {
		return info
	}
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		info.Signal = signalName(ws.Signal())
		return info
	}
	info.ExitCode = state.ExitCode()
	return info
}
