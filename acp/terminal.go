package acp

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// EnvVariable is one environment variable of a terminal command.
type EnvVariable struct {
	Name  string          `json:"name"`
	Value string          `json:"value"`
	Meta  json.RawMessage `json:"_meta,omitempty"`
}

// CreateTerminalRequest is the params of terminal/create.
type CreateTerminalRequest struct {
	SessionID string        `json:"sessionId"`
	Command   string        `json:"command"`
	Args      []string      `json:"args,omitempty"`
	Env       []EnvVariable `json:"env,omitempty"`
	// Cwd is an absolute directory; empty means the session's.
	Cwd string `json:"cwd,omitempty"`
	// OutputByteLimit caps the retained output; nil means the default.
	OutputByteLimit *int            `json:"outputByteLimit,omitempty"`
	Meta            json.RawMessage `json:"_meta,omitempty"`
}

// CreateTerminalResponse is the result of terminal/create.
type CreateTerminalResponse struct {
	TerminalID string          `json:"terminalId"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
}

// TerminalExitStatus says how a terminal command ended: exactly one of
// ExitCode and Signal is set.
type TerminalExitStatus struct {
	ExitCode *int            `json:"exitCode"`
	Signal   *string         `json:"signal"`
	Meta     json.RawMessage `json:"_meta,omitempty"`
}

// TerminalOutputRequest is the params of terminal/output.
type TerminalOutputRequest struct {
	SessionID  string          `json:"sessionId"`
	TerminalID string          `json:"terminalId"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
}

// TerminalOutputResponse is the result of terminal/output. ExitStatus is nil
// while the command runs.
type TerminalOutputResponse struct {
	Output     string              `json:"output"`
	Truncated  bool                `json:"truncated"`
	ExitStatus *TerminalExitStatus `json:"exitStatus,omitempty"`
	Meta       json.RawMessage     `json:"_meta,omitempty"`
}

// WaitForTerminalExitRequest is the params of terminal/wait_for_exit.
type WaitForTerminalExitRequest struct {
	SessionID  string          `json:"sessionId"`
	TerminalID string          `json:"terminalId"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
}

// WaitForTerminalExitResponse is the result of terminal/wait_for_exit.
type WaitForTerminalExitResponse struct {
	ExitCode *int            `json:"exitCode"`
	Signal   *string         `json:"signal"`
	Meta     json.RawMessage `json:"_meta,omitempty"`
}

// KillTerminalRequest is the params of terminal/kill.
type KillTerminalRequest struct {
	SessionID  string          `json:"sessionId"`
	TerminalID string          `json:"terminalId"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
}

// KillTerminalResponse is the result of terminal/kill.
type KillTerminalResponse struct {
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// ReleaseTerminalRequest is the params of terminal/release.
type ReleaseTerminalRequest struct {
	SessionID  string          `json:"sessionId"`
	TerminalID string          `json:"terminalId"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
}

// ReleaseTerminalResponse is the result of terminal/release.
type ReleaseTerminalResponse struct {
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// TerminalOptions tunes NewTerminals. The zero value is usable.
type TerminalOptions struct {
	// Logger receives lifecycle messages; nil discards them.
	Logger *slog.Logger
	// DefaultOutputLimit is the output kept when a request names no
	// outputByteLimit; 0 means 1 MiB.
	DefaultOutputLimit int
	// BaseEnv is the environment BuildEnv filters for commands; nil means
	// os.Environ().
	BaseEnv []string
	// Grace is how long Kill and Release wait after SIGTERM before SIGKILL;
	// 0 means 3s.
	Grace time.Duration
	// OnOutput, when set, receives every terminal's output while its
	// command runs, in order, coalesced: at most every ~200 ms or 32 KiB,
	// then one last call with the exit status after all the output. The
	// last call is made before WaitForExit returns and before Output
	// reports the exit status. See TerminalChunk.
	//
	// It is called from the goroutine that copies the command's output, so
	// it must be fast and must not block: a slow OnOutput stalls the
	// command once its pipe is full. Calls for one terminal never overlap;
	// calls for different terminals may run concurrently.
	OnOutput func(TerminalChunk)
	// StreamLimit caps the bytes of one terminal's output passed to
	// OnOutput (the rest is Dropped); 0 means 1 MiB.
	StreamLimit int
	// Supervisor, when set (and SupervisorSupported), is started in front
	// of each command so that its whole process tree dies with the hub.
	Supervisor *Supervisor
}

// Terminals runs the commands agents start with terminal/create as real
// processes and serves the other terminal methods. Its methods are safe for
// concurrent use.
//
// Each command runs directly (argv, no shell; only a whole command line
// that names no program goes through /bin/sh -c, see Create) in a process
// group of its own, stdin from /dev/null, stdout and stderr merged into one
// Ring of outputByteLimit bytes, with BuildEnv's environment minus
// TerminalWithheldEnv (see CreateWith). When a command exits, whatever is left of
// its process group is killed, so background jobs do not outlive it (with
// TerminalOptions.Supervisor, every descendant too, and all of them when
// the hub goes: see Supervisor). A
// terminal belongs to the session that created it: another session's id,
// like a released one, is CodeResourceNotFound.
type Terminals struct {
	log   *slog.Logger
	limit int
	base  []string
	grace time.Duration
	sup   *Supervisor
	// onOutput and streamLimit are TerminalOptions.OnOutput and StreamLimit.
	onOutput    func(TerminalChunk)
	streamLimit int

	mu     sync.Mutex
	terms  map[string]*terminal // guarded by mu
	closed bool                 // guarded by mu
}

// terminal is one command. exit is written once before done is closed.
type terminal struct {
	id, sessionID string
	pid           int
	child         *child
	out           *Ring
	done          chan struct{}
	exit          ExitInfo
}

// NewTerminals returns an empty terminal host. Call Close when done with it.
func NewTerminals(opts TerminalOptions) *Terminals {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.DefaultOutputLimit <= 0 {
		opts.DefaultOutputLimit = 1 << 20
	}
	if opts.BaseEnv == nil {
		opts.BaseEnv = os.Environ()
	}
	if opts.Grace <= 0 {
		opts.Grace = defaultGrace
	}
	if opts.StreamLimit <= 0 {
		opts.StreamLimit = defaultStreamLimit
	}
	return &Terminals{
		log:         opts.Logger,
		limit:       opts.DefaultOutputLimit,
		base:        opts.BaseEnv,
		grace:       opts.Grace,
		sup:         opts.Supervisor,
		onOutput:    opts.OnOutput,
		streamLimit: opts.StreamLimit,
		terms:       make(map[string]*terminal),
	}
}

// TerminalGrant is what a TerminalAuthorizer allows one terminal/create:
// the zero value runs the command as asked with the default environment.
type TerminalGrant struct {
	// Dir, when set, is the directory to run in instead of the one asked
	// (the authorizer's resolved form of it, so that what was checked is
	// what runs).
	Dir string
	// InheritEnv names variables of the base environment the command
	// inherits besides BuildEnv's allowlist (exact names, or prefixes
	// ending in '*'); the withheld ones (TerminalWithheldEnv) only when
	// named here.
	InheritEnv []string
}

// TerminalWithheldEnv are the variables of BuildEnv's allowlist a terminal
// command does not inherit unless its TerminalGrant names them: a command
// an agent runs gets neither the user's SSH agent nor the session bus
// (through which it could drive the desktop, the keyring, notifications).
var TerminalWithheldEnv = []string{"DBUS_SESSION_BUS_ADDRESS", "SSH_AUTH_SOCK"}

// checkCreate checks what a terminal/create request must hold before
// anyone is asked about it: a command, an absolute cwd, valid variables
// and a non-negative output limit.
func checkCreate(req CreateTerminalRequest) error {
	if req.Command == "" {
		return NewError(CodeInvalidParams, "command is required")
	}
	if req.Cwd != "" && !filepath.IsAbs(req.Cwd) {
		return NewError(CodeInvalidParams, "cwd must be absolute: %q", req.Cwd)
	}
	if req.OutputByteLimit != nil && *req.OutputByteLimit < 0 {
		return NewError(CodeInvalidParams, "outputByteLimit must not be negative")
	}
	for _, v := range req.Env {
		if v.Name == "" || strings.ContainsAny(v.Name, "=\x00") || strings.ContainsRune(v.Value, 0) {
			return NewError(CodeInvalidParams, "invalid environment variable %q", v.Name)
		}
	}
	return nil
}

// Create starts req.Command with req.Args in req.Cwd, or in sessionCwd when
// req.Cwd is empty, and returns the new terminal's id. It is CreateWith
// and the zero TerminalGrant.
//
// Agents such as claude-agent-acp send a whole shell command line in Command
// with no Args. So when Args is empty and Command holds white space or
// shell syntax (ShellChars), it is run as /bin/sh -c Command.
func (ts *Terminals) Create(ctx context.Context, sessionCwd string, req CreateTerminalRequest) (CreateTerminalResponse, error) {
	return ts.CreateWith(ctx, sessionCwd, req, TerminalGrant{})
}

// CreateWith is Create as g allows it: in g.Dir when set, with the base
// environment's variables BuildEnv keeps (but TerminalWithheldEnv) plus
// those g.InheritEnv names, then req.Env on top.
func (ts *Terminals) CreateWith(ctx context.Context, sessionCwd string, req CreateTerminalRequest, g TerminalGrant) (CreateTerminalResponse, error) {
	if err := ctx.Err(); err != nil {
		return CreateTerminalResponse{}, fmt.Errorf("acp: create terminal: %w", err)
	}
	if err := checkCreate(req); err != nil {
		return CreateTerminalResponse{}, err
	}
	dir := sessionCwd
	if req.Cwd != "" {
		dir = req.Cwd
	}
	if g.Dir != "" {
		dir = g.Dir
	}
	if err := checkDir(dir); err != nil {
		return CreateTerminalResponse{}, NewError(CodeInvalidParams, "cwd: %v", err)
	}
	limit := ts.limit
	if req.OutputByteLimit != nil {
		limit = *req.OutputByteLimit
	}
	extra := make([]string, 0, len(req.Env))
	for _, v := range req.Env {
		extra = append(extra, v.Name+"="+v.Value)
	}
	env := BuildEnv(withhold(ts.base, g.InheritEnv), Command{Env: extra, PassEnv: g.InheritEnv})
	path, args, err := terminalProgram(req.Command, req.Args, dir, env)
	if err != nil {
		return CreateTerminalResponse{}, fmt.Errorf("acp: create terminal: %w", err)
	}
	if ts.isClosed() {
		return CreateTerminalResponse{}, errors.New("acp: create terminal: terminals closed")
	}

	r, w, err := os.Pipe()
	if err != nil {
		return CreateTerminalResponse{}, fmt.Errorf("acp: create terminal: %w", err)
	}
	c := &exec.Cmd{Path: path, Args: args, Dir: dir, Env: env, Stdout: w, Stderr: w, WaitDelay: ts.grace}
	ch, err := startChild(c, ts.sup)
	_ = w.Close()
	if err != nil {
		_ = r.Close()
		return CreateTerminalResponse{}, fmt.Errorf("acp: create terminal %q: %w", req.Command, err)
	}
	t := &terminal{
		id:        "term_" + rand.Text(),
		sessionID: req.SessionID,
		pid:       ch.pid,
		child:     ch,
		out:       NewRing(limit),
		done:      make(chan struct{}),
	}
	var stream *termStream
	var drained <-chan struct{}
	if ts.onOutput != nil {
		stream = &termStream{sessionID: t.sessionID, terminalID: t.id, fn: ts.onOutput, left: ts.streamLimit}
		drained = stream.drain(t.out, r)
	} else {
		drained = drain(t.out, r)
	}
	go t.wait(c, drained, r, ts.grace, stream)

	ts.mu.Lock()
	closed := ts.closed
	if !closed {
		ts.terms[t.id] = t
	}
	ts.mu.Unlock()
	if closed {
		t.stop(context.Background(), 0)
		return CreateTerminalResponse{}, errors.New("acp: create terminal: terminals closed")
	}
	ts.log.Debug("terminal started", "terminalId", t.id, "sessionId", t.sessionID, "pid", t.pid, "path", path)
	return CreateTerminalResponse{TerminalID: t.id}, nil
}

// withhold returns base without TerminalWithheldEnv's variables, but
// those inherit names.
func withhold(base, inherit []string) []string {
	out := make([]string, 0, len(base))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if matchAny(TerminalWithheldEnv, k) && !matchAny(inherit, k) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// ShellChars are the characters that make a terminal command with no
// arguments a shell line: it runs as /bin/sh -c Command, never as a
// program of that name (so that what runs is decided by the command's
// text alone, as a permission card shows it).
const ShellChars = " \t\n;&|<>()$`'\"\\*?[]{}~=#"

// terminalProgram returns the executable and argv for a terminal command:
// a command with no args holding ShellChars runs through /bin/sh -c;
// anything else is the program command with args.
func terminalProgram(command string, args []string, dir string, env []string) (string, []string, error) {
	if len(args) == 0 && strings.ContainsAny(command, ShellChars) {
		return "/bin/sh", []string{"sh", "-c", command}, nil
	}
	path, err := resolveProgram(command, dir, env)
	if err != nil {
		return "", nil, err
	}
	return path, append([]string{command}, args...), nil
}

// wait is the only caller of c.Wait for t. With a stream, it makes the
// stream's last call (all output read, exit status known) before done.
func (t *terminal) wait(c *exec.Cmd, drained <-chan struct{}, r *os.File, grace time.Duration, stream *termStream) {
	err := c.Wait()
	t.child.reaped()
	awaitDrain(drained, r, grace)
	t.exit = exitInfo(c.ProcessState, err)
	if stream != nil {
		st := exitStatus(t.exit)
		stream.flush(&st)
	}
	close(t.done)
}

// status returns the exit status once the command has exited.
func (t *terminal) status() (TerminalExitStatus, bool) {
	select {
	case <-t.done:
	default:
		return TerminalExitStatus{}, false
	}
	return exitStatus(t.exit), true
}

// exitStatus is info in the ACP form.
func exitStatus(info ExitInfo) TerminalExitStatus {
	var st TerminalExitStatus
	if info.Signal != "" {
		sig := info.Signal
		st.Signal = &sig
	} else {
		code := info.ExitCode
		st.ExitCode = &code
	}
	return st
}

// stop sends SIGTERM to t's group, then SIGKILL after grace (or at once when
// ctx is done), and waits until the command has exited.
func (t *terminal) stop(ctx context.Context, grace time.Duration) {
	if _, exited := t.status(); exited {
		return
	}
	if grace > 0 {
		_ = t.child.signal(syscall.SIGTERM)
		timer := time.NewTimer(grace)
		defer timer.Stop()
		select {
		case <-t.done:
			return
		case <-timer.C:
		case <-ctx.Done():
		}
	}
	if _, exited := t.status(); !exited {
		_ = t.child.signal(syscall.SIGKILL)
	}
	<-t.done
}

func (ts *Terminals) isClosed() bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.closed
}

// get returns the terminal id of session sessionID.
func (ts *Terminals) get(sessionID, id string) (*terminal, error) {
	ts.mu.Lock()
	t, ok := ts.terms[id]
	ts.mu.Unlock()
	if !ok || t.sessionID != sessionID {
		return nil, NewError(CodeResourceNotFound, "terminal not found: %s", id)
	}
	return t, nil
}

// Output returns the output kept so far and, once the command has exited,
// its exit status (then the output is complete).
func (ts *Terminals) Output(ctx context.Context, req TerminalOutputRequest) (TerminalOutputResponse, error) {
	t, err := ts.get(req.SessionID, req.TerminalID)
	if err != nil {
		return TerminalOutputResponse{}, err
	}
	var resp TerminalOutputResponse
	if st, ok := t.status(); ok { // before the output, so that it is complete
		resp.ExitStatus = &st
	}
	resp.Output, resp.Truncated = t.out.Snapshot()
	return resp, nil
}

// WaitForExit blocks until the command exits or ctx is done.
func (ts *Terminals) WaitForExit(ctx context.Context, req WaitForTerminalExitRequest) (WaitForTerminalExitResponse, error) {
	t, err := ts.get(req.SessionID, req.TerminalID)
	if err != nil {
		return WaitForTerminalExitResponse{}, err
	}
	select {
	case <-t.done:
	case <-ctx.Done():
		return WaitForTerminalExitResponse{}, fmt.Errorf("acp: wait for terminal: %w", context.Cause(ctx))
	}
	st, _ := t.status()
	return WaitForTerminalExitResponse{ExitCode: st.ExitCode, Signal: st.Signal}, nil
}

// Kill ends the command's whole process group (SIGTERM, then SIGKILL after
// Grace or when ctx is done) and returns once it has exited. The terminal
// stays valid for Output and WaitForExit until released.
func (ts *Terminals) Kill(ctx context.Context, req KillTerminalRequest) (KillTerminalResponse, error) {
	t, err := ts.get(req.SessionID, req.TerminalID)
	if err != nil {
		return KillTerminalResponse{}, err
	}
	t.stop(ctx, ts.grace)
	return KillTerminalResponse{}, nil
}

// Release kills the command if it still runs (as Kill does) and forgets the
// terminal: its id is CodeResourceNotFound from then on.
func (ts *Terminals) Release(ctx context.Context, req ReleaseTerminalRequest) (ReleaseTerminalResponse, error) {
	ts.mu.Lock()
	t, ok := ts.terms[req.TerminalID]
	if ok && t.sessionID == req.SessionID {
		delete(ts.terms, req.TerminalID)
	}
	ts.mu.Unlock()
	if !ok || t.sessionID != req.SessionID {
		return ReleaseTerminalResponse{}, NewError(CodeResourceNotFound, "terminal not found: %s", req.TerminalID)
	}
	t.stop(ctx, ts.grace)
	ts.log.Debug("terminal released", "terminalId", t.id, "sessionId", t.sessionID)
	return ReleaseTerminalResponse{}, nil
}

// ReleaseSession releases every terminal of the session, concurrently, and
// returns once their commands have exited (at most about Grace).
func (ts *Terminals) ReleaseSession(sessionID string) {
	ts.releaseWhere(func(t *terminal) bool { return t.sessionID == sessionID })
}

// Close releases every terminal and refuses new ones. It returns once every
// command has exited; it is idempotent.
func (ts *Terminals) Close() {
	ts.mu.Lock()
	ts.closed = true
	ts.mu.Unlock()
	ts.releaseWhere(func(*terminal) bool { return true })
}

func (ts *Terminals) releaseWhere(match func(*terminal) bool) {
	var doomed []*terminal
	ts.mu.Lock()
	for id, t := range ts.terms {
		if match(t) {
			doomed = append(doomed, t)
			delete(ts.terms, id)
		}
	}
	ts.mu.Unlock()
	var wg sync.WaitGroup
	for _, t := range doomed {
		wg.Go(func() { t.stop(context.Background(), ts.grace) })
	}
	wg.Wait()
}

// Running counts the terminals, not yet released, whose command has not
// exited yet.
func (ts *Terminals) Running() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	n := 0
	for _, t := range ts.terms {
		select {
		case <-t.done:
		default:
			n++
		}
	}
	return n
}
