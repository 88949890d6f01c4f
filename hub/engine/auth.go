package engine

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// Signing agents in (docs/API.md "Sign in"). An agent method runs
// `authenticate` (AuthenticateAgent); the engine then remembers it for the
// agent, and a process of that agent whose session/new is refused with
// -32000 (authentication required) is sent `authenticate` with it and asked
// again, once. A terminal method runs outside the engine (the app's PTY);
// when it succeeds, the app calls SignedIn, which stops the agent's idle
// processes so the next turn starts one that finds the new credentials,
// and retries the turns that failed for want of the sign-in (authretry.go).

// authTimeout bounds an agent method's authenticate (it may wait on a
// browser sign-in).
const authTimeout = 5 * time.Minute

// AuthenticateAgent signs agent id in with its agent method methodID: it
// starts the agent, runs initialize and authenticate, and stops it. On
// success the method is remembered for the agent's later processes.
// INVALID_ARGUMENT for an unknown agent or a method it does not advertise
// as an agent method; UPSTREAM_UNAVAILABLE when the agent refuses.
func (e *Engine) AuthenticateAgent(ctx context.Context, id, methodID string) error {
	spec, ok := e.agentSpec(id)
	if !ok || spec.Disabled || spec.NotInstalled != "" {
		return hub.Errorf(hub.CodeInvalidArgument, "unknown agent %q", id)
	}
	ctx, cancel := context.WithTimeout(ctx, authTimeout)
	defer cancel()
	cmd := spec.Command
	if home, err := os.UserHomeDir(); err == nil {
		cmd.Dir = home
	}
	a, err := acp.Launch(ctx, cmd, signInClient{}, e.agentOpts)
	if err != nil {
		return &hub.Error{Code: hub.CodeUpstreamUnavailable, Message: fmt.Sprintf("starting %s failed: %v", spec.Name, err), Err: err}
	}
	defer a.Close(context.Background())
	e.rememberInit(id, a.Init)
	m, ok := findAuthMethod(a.Init.AuthMethods, methodID)
	if !ok || m.Kind() != acp.AuthAgent {
		return hub.Errorf(hub.CodeInvalidArgument, "%s offers no agent sign-in method %q", spec.Name, methodID)
	}
	if err := a.Authenticate(ctx, methodID); err != nil {
		return &hub.Error{Code: hub.CodeUpstreamUnavailable, Message: fmt.Sprintf("%s refused the sign-in: %v", spec.Name, err), Err: err,
			Details: map[string]any{"reason": "AUTH_FAILED"}}
	}
	e.mu.Lock()
	if e.authed == nil {
		e.authed = map[string]string{}
	}
	e.authed[id] = methodID
	e.mu.Unlock()
	e.SignedIn(id) // restarts the agent's idle processes, retries its failed turns
	return nil
}

func findAuthMethod(ms []acp.AuthMethod, id string) (acp.AuthMethod, bool) {
	for _, m := range ms {
		if m.ID == id {
			return m, true
		}
	}
	return acp.AuthMethod{}, false
}

// RestartAgent stops agent id's processes that run no turn, so the next
// turn starts a fresh one (after a sign-in). Running turns keep theirs.
func (e *Engine) RestartAgent(id string) {
	e.mu.Lock()
	var idle []*threadRT
	for _, rt := range e.threads {
		rt.mu.Lock()
		if rt.agent != nil && rt.spec.ID == id && rt.turn == nil {
			idle = append(idle, rt)
		}
		rt.mu.Unlock()
	}
	e.mu.Unlock()
	for _, rt := range idle {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		e.stopAgent(ctx, rt)
		cancel()
	}
}

// signInClient serves the agent started to sign in: it has no session, so
// it grants nothing.
type signInClient struct{}

func (signInClient) SessionUpdate(context.Context, acp.SessionNotification) {}

func (signInClient) RequestPermission(context.Context, acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	return acp.Cancelled(), nil
}
