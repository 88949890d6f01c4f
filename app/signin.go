package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/creack/pty"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// agentAuth implements hub.AgentAuth for a running hub: agent methods
// through the engine (ACP authenticate), terminal methods as the agent's
// own command in a PTY here. A terminal's output lives in memory only
// (at most authOutputMax, never stored nor logged) and goes to whoever
// watches the session; a session is forgotten once it ended and was
// watched, or after authSessionMax.
type agentAuth struct {
	h *runningHub

	mu       sync.Mutex
	sessions map[string]*authSession
}

const (
	authOutputMax  = 256 << 10
	authSessionMax = 30 * time.Minute
)

var _ hub.AgentAuth = (*agentAuth)(nil)

func newAgentAuth(h *runningHub) *agentAuth {
	return &agentAuth{h: h, sessions: map[string]*authSession{}}
}

// authSession is one terminal sign-in.
type authSession struct {
	agent string
	cmd   *exec.Cmd
	tty   *os.File

	mu       sync.Mutex
	out      []byte // everything printed, capped
	watchers map[chan hub.AuthFrame]struct{}
	exit     *int
	done     chan struct{}
}

// SignIn implements hub.AgentAuth.
func (a *agentAuth) SignIn(ctx context.Context, agentID, methodID string) (hub.SignInResult, error) {
	var spec acp.AgentSpec
	found := false
	for _, s := range a.h.installs.catalogue(a.h.currentConfig()) {
		if s.ID == agentID {
			spec, found = s, true
		}
	}
	if !found || spec.Disabled {
		return hub.SignInResult{}, hub.Errorf(hub.CodeInvalidArgument, "unknown agent %q", agentID)
	}
	methods, err := a.methods(ctx, spec)
	if err != nil {
		return hub.SignInResult{}, err
	}
	var m *acp.AuthMethod
	for i := range methods {
		if methods[i].ID == methodID {
			m = &methods[i]
		}
	}
	if m == nil {
		return hub.SignInResult{}, hub.Errorf(hub.CodeInvalidArgument, "%s offers no sign-in method %q", spec.Name, methodID)
	}
	switch m.Kind() {
	case acp.AuthAgent:
		return hub.SignInResult{}, a.h.engine.AuthenticateAgent(ctx, agentID, methodID)
	case acp.AuthTerminal:
		id, err := a.startTerminal(spec, *m)
		return hub.SignInResult{AuthSessionID: id}, err
	}
	return hub.SignInResult{}, hub.Errorf(hub.CodeInvalidArgument, "%s's method %q is an environment variable: set it in the agent's environment (Settings → Agents)", spec.Name, methodID)
}

// methods are the agent's sign-in methods, from a probe (initialize only).
func (a *agentAuth) methods(ctx context.Context, spec acp.AgentSpec) ([]acp.AuthMethod, error) {
	if d := acp.Detect(spec); !d.Available {
		return nil, hub.Errorf(hub.CodeInvalidArgument, "%s is not available: %s", spec.Name, d.Reason)
	}
	cmd := spec.Command
	if home, err := os.UserHomeDir(); err == nil {
		cmd.Dir = home
	}
	r, err := acp.Probe(ctx, cmd, supervisedAgents(a.h.log), 0)
	if err != nil {
		return nil, &hub.Error{Code: hub.CodeUpstreamUnavailable, Message: fmt.Sprintf("starting %s failed: %v", spec.Name, err), Err: err}
	}
	return r.AuthMethods, nil
}

// startTerminal runs the agent's program with m's args (instead of its
// ACP ones) and env in a new PTY.
func (a *agentAuth) startTerminal(spec acp.AgentSpec, m acp.AuthMethod) (string, error) {
	c := spec.Command
	c.Args = m.Args
	for k, v := range m.Env {
		c.Env = append(c.Env, k+"="+v)
	}
	path, err := exec.LookPath(c.Path)
	if err != nil {
		return "", hub.Errorf(hub.CodeInvalidArgument, "%s: %v", spec.Name, err)
	}
	cmd := exec.Command(path, c.Args...)
	cmd.Env = append(acp.BuildEnv(os.Environ(), c), "TERM=xterm-256color")
	if home, err := os.UserHomeDir(); err == nil {
		cmd.Dir = home
	}
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 100, Rows: 30})
	if err != nil {
		return "", &hub.Error{Code: hub.CodeUpstreamUnavailable, Message: fmt.Sprintf("starting %s's sign-in failed: %v", spec.Name, err), Err: err}
	}
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	id := "auth_" + hex.EncodeToString(b)
	s := &authSession{agent: spec.ID, cmd: cmd, tty: tty, watchers: map[chan hub.AuthFrame]struct{}{}, done: make(chan struct{})}
	a.mu.Lock()
	a.sessions[id] = s
	a.mu.Unlock()
	go s.pump()
	go func() {
		err := cmd.Wait()
		<-s.done // all output read
		code := 0
		if err != nil {
			code = -1
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
		}
		if code == 0 {
			a.h.engine.SignedIn(spec.ID) // restarts the agent, retries the turn that needed the sign-in
		}
		s.finish(code)
		a.h.log.Info("agents: terminal sign-in ended", "agent", spec.ID, "exit", code)
		time.AfterFunc(authSessionMax, func() { a.forget(id) })
	}()
	return id, nil
}

// pump copies the PTY's output to the buffer and the watchers until the
// program's side closes.
func (s *authSession) pump() {
	defer close(s.done)
	buf := make([]byte, 4096)
	var pending []byte
	for {
		n, err := s.tty.Read(buf)
		if n > 0 {
			pending = append(pending, buf[:n]...)
			// Whole UTF-8 characters only, the rest waits for more.
			cut := len(pending)
			for cut > 0 && !utf8.Valid(pending[:cut]) && len(pending)-cut < 4 {
				cut--
			}
			text := strings.ToValidUTF8(string(pending[:cut]), "\uFFFD")
			pending = pending[cut:]
			s.emit(text)
		}
		if err != nil {
			if len(pending) > 0 {
				s.emit(strings.ToValidUTF8(string(pending), "\uFFFD"))
			}
			return
		}
	}
}

func (s *authSession) emit(text string) {
	if text == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.out)+len(text) <= authOutputMax {
		s.out = append(s.out, text...)
	}
	for w := range s.watchers {
		select {
		case w <- hub.AuthFrame{Output: text}:
		default: // a watcher that does not read loses output, never blocks the program
		}
	}
}

func (s *authSession) finish(code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.exit = &code
	for w := range s.watchers {
		select {
		case w <- hub.AuthFrame{Exit: &code}:
		default:
		}
		close(w)
	}
	s.watchers = nil
	s.tty.Close()
}

func (a *agentAuth) session(id string) (*authSession, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[id]
	if !ok {
		return nil, hub.Errorf(hub.CodeNotFound, "no sign-in session %q", id)
	}
	return s, nil
}

func (a *agentAuth) forget(id string) {
	a.mu.Lock()
	delete(a.sessions, id)
	a.mu.Unlock()
}

// WatchAuth implements hub.AgentAuth.
func (a *agentAuth) WatchAuth(ctx context.Context, id string) (<-chan hub.AuthFrame, error) {
	s, err := a.session(id)
	if err != nil {
		return nil, err
	}
	ch := make(chan hub.AuthFrame, 256)
	s.mu.Lock()
	if len(s.out) > 0 {
		ch <- hub.AuthFrame{Output: string(s.out)}
	}
	if s.exit != nil {
		ch <- hub.AuthFrame{Exit: s.exit}
		close(ch)
		s.mu.Unlock()
		return ch, nil
	}
	s.watchers[ch] = struct{}{}
	s.mu.Unlock()
	go func() {
		select {
		case <-ctx.Done():
			s.mu.Lock()
			if _, ok := s.watchers[ch]; ok {
				delete(s.watchers, ch)
				close(ch)
			}
			s.mu.Unlock()
		case <-s.done:
		}
	}()
	return ch, nil
}

// AuthInput implements hub.AgentAuth.
func (a *agentAuth) AuthInput(_ context.Context, id, data string) error {
	s, err := a.session(id)
	if err != nil {
		return err
	}
	s.mu.Lock()
	ended := s.exit != nil
	s.mu.Unlock()
	if ended {
		return hub.Errorf(hub.CodeConflict, "the sign-in has ended")
	}
	_, err = s.tty.Write([]byte(data))
	return err
}

// AuthResize implements hub.AgentAuth.
func (a *agentAuth) AuthResize(_ context.Context, id string, cols, rows int) error {
	if cols < 1 || rows < 1 || cols > 1000 || rows > 1000 {
		return hub.Errorf(hub.CodeInvalidArgument, "cols and rows must be between 1 and 1000")
	}
	s, err := a.session(id)
	if err != nil {
		return err
	}
	return pty.Setsize(s.tty, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)})
}

// CloseAuth implements hub.AgentAuth.
func (a *agentAuth) CloseAuth(_ context.Context, id string) error {
	s, err := a.session(id)
	if err != nil {
		return err
	}
	if s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		time.AfterFunc(3*time.Second, func() { _ = s.cmd.Process.Kill() })
	}
	a.forget(id)
	return nil
}

// stop kills every sign-in program (the hub is stopping).
func (a *agentAuth) stop() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for id, s := range a.sessions {
		if s.cmd.Process != nil {
			_ = s.cmd.Process.Kill()
		}
		delete(a.sessions, id)
	}
}
