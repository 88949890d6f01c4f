package agentsetup

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// SignInOptions wire SignIns to a running hub. Every func field is
// required.
type SignInOptions struct {
	// Catalogue is the live catalogue (Installs.Live).
	Catalogue func() []acp.AgentSpec
	// Authenticate runs an agent's own sign-in method (ACP authenticate,
	// the engine's AuthenticateAgent).
	Authenticate func(ctx context.Context, agentID, methodID string) error
	// SignedIn tells the engine a terminal or env_var sign-in of agentID succeeded:
	// it restarts the agent and retries the turn that needed it.
	SignedIn func(agentID string)
	// Logout signs an agent out (the engine's LogoutAgent).
	Logout func(ctx context.Context, agentID string) error
	// AgentOptions start the probe that lists an agent's methods (the
	// hub's supervised agents).
	AgentOptions acp.AgentOptions
	Logger       *slog.Logger
}

// SignIns implements hub.AgentAuth for a running hub: agent methods
// through the engine (ACP authenticate), terminal methods as the agent's
// own command in a PTY here (terminal.go). A terminal's output lives in
// memory only (at most authOutputMax, never stored nor logged) and goes to
// whoever watches the session; a session is forgotten once it ended and
// was watched, or after signInTerminalMax.
type SignIns struct {
	o   SignInOptions
	log *slog.Logger

	mu       sync.Mutex
	sessions map[string]*signInTerminal
}

const (
	authOutputMax     = 256 << 10
	signInTerminalMax = 30 * time.Minute
)

var _ hub.AgentAuth = (*SignIns)(nil)

// NewSignIns returns the sign-ins of a hub.
func NewSignIns(o SignInOptions) *SignIns {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &SignIns{o: o, log: o.Logger, sessions: map[string]*signInTerminal{}}
}

// SignIn implements hub.AgentAuth.
func (a *SignIns) SignIn(ctx context.Context, agentID, methodID string) (hub.SignInResult, error) {
	var spec acp.AgentSpec
	found := false
	for _, s := range a.o.Catalogue() {
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
		return hub.SignInResult{}, a.o.Authenticate(ctx, agentID, methodID)
	case acp.AuthTerminal:
		id, err := a.startTerminal(spec, *m)
		return hub.SignInResult{AuthSessionID: id}, err
	case acp.AuthEnvVar:
		// The client saved the key in the agent's env first (PATCH
		// /v1/settings); signing in checks it is there, then restarts the
		// agent and retries the turn that needed it (DECISIONS.md 0036).
		if missing := missingVars(spec, *m); len(missing) > 0 {
			return hub.SignInResult{}, hub.Errorf(hub.CodeInvalidArgument, "%s's key is not set (%s): enter it first", spec.Name, strings.Join(missing, ", "))
		}
		a.o.SignedIn(spec.ID)
		return hub.SignInResult{}, nil
	}
	return hub.SignInResult{}, hub.Errorf(hub.CodeInvalidArgument, "%s's method %q is of a type Switchboard does not know (%q)", spec.Name, methodID, m.Type)
}

// SignOut implements hub.AgentAuth: the engine runs ACP logout.
func (a *SignIns) SignOut(ctx context.Context, agentID string) error {
	return a.o.Logout(ctx, agentID)
}

// missingVars are the variables an env_var method needs that the agent's
// process would not get (its env from the config, and what it passes
// through from the hub's own), empty ones counted as missing.
func missingVars(spec acp.AgentSpec, m acp.AuthMethod) []string {
	var need []string
	for _, v := range m.Vars {
		if !v.Optional {
			need = append(need, v.Name)
		}
	}
	if len(m.Vars) == 0 && m.VarName != "" {
		need = []string{m.VarName}
	}
	set := map[string]bool{}
	for _, kv := range acp.BuildEnv(os.Environ(), spec.Command) {
		if k, v, ok := strings.Cut(kv, "="); ok {
			set[k] = v != ""
		}
	}
	var missing []string
	for _, n := range need {
		if !set[n] {
			missing = append(missing, n)
		}
	}
	return missing
}

// methods are the agent's sign-in methods, from a probe (initialize only).
func (a *SignIns) methods(ctx context.Context, spec acp.AgentSpec) ([]acp.AuthMethod, error) {
	if d := acp.Detect(spec); !d.Available {
		return nil, hub.Errorf(hub.CodeInvalidArgument, "%s is not available: %s", spec.Name, d.Reason)
	}
	cmd := spec.Command
	if home, err := os.UserHomeDir(); err == nil {
		cmd.Dir = home
	}
	r, err := acp.Probe(ctx, cmd, a.o.AgentOptions, 0)
	if err != nil {
		return nil, &hub.Error{Code: hub.CodeUpstreamUnavailable, Message: fmt.Sprintf("starting %s failed: %v", spec.Name, err), Err: err}
	}
	return r.AuthMethods, nil
}

// startTerminal runs the agent's program with m's args (instead of its
// ACP ones) and env in a new PTY.
func (a *SignIns) startTerminal(spec acp.AgentSpec, m acp.AuthMethod) (string, error) {
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
	s := &signInTerminal{agent: spec.ID, cmd: cmd, tty: tty, watchers: map[chan hub.AuthFrame]struct{}{}, done: make(chan struct{})}
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
			a.o.SignedIn(spec.ID) // restarts the agent, retries the turn that needed the sign-in
		}
		s.finish(code)
		a.log.Info("agents: terminal sign-in ended", "agent", spec.ID, "exit", code)
		time.AfterFunc(signInTerminalMax, func() { a.forget(id) })
	}()
	return id, nil
}

func (a *SignIns) terminal(id string) (*signInTerminal, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[id]
	if !ok {
		return nil, hub.Errorf(hub.CodeNotFound, "no sign-in session %q", id)
	}
	return s, nil
}

func (a *SignIns) forget(id string) {
	a.mu.Lock()
	delete(a.sessions, id)
	a.mu.Unlock()
}

// WatchAuth implements hub.AgentAuth.
func (a *SignIns) WatchAuth(ctx context.Context, id string) (<-chan hub.AuthFrame, error) {
	s, err := a.terminal(id)
	if err != nil {
		return nil, err
	}
	return s.watch(ctx), nil
}

// AuthInput implements hub.AgentAuth.
func (a *SignIns) AuthInput(_ context.Context, id, data string) error {
	s, err := a.terminal(id)
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
func (a *SignIns) AuthResize(_ context.Context, id string, cols, rows int) error {
	if cols < 1 || rows < 1 || cols > 1000 || rows > 1000 {
		return hub.Errorf(hub.CodeInvalidArgument, "cols and rows must be between 1 and 1000")
	}
	s, err := a.terminal(id)
	if err != nil {
		return err
	}
	return pty.Setsize(s.tty, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)})
}

// CloseAuth implements hub.AgentAuth.
func (a *SignIns) CloseAuth(_ context.Context, id string) error {
	s, err := a.terminal(id)
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

// Stop kills every sign-in program (the hub is stopping).
func (a *SignIns) Stop() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for id, s := range a.sessions {
		if s.cmd.Process != nil {
			_ = s.cmd.Process.Kill()
		}
		delete(a.sessions, id)
	}
}
