package engine

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// LogoutAgent signs agent id out (Settings → Agents → Sign out, ADR 0047):
// it starts the agent, runs initialize and ACP logout, and stops it; then
// it forgets the agent method the engine signed it in with (so no process
// of the agent is signed in again behind the user's back, auth.go) and
// stops the agent's idle processes, so each thread's next turn starts one
// that finds no credentials and shows the sign-in prompt
// (AUTH_REQUIRED). A running turn keeps its process until it ends.
// NOT_FOUND for an unknown, disabled or uninstalled agent; CONFLICT with
// details.reason LOGOUT_UNSUPPORTED when the agent does not advertise
// logout; UPSTREAM_UNAVAILABLE when it cannot start or refuses.
func (e *Engine) LogoutAgent(ctx context.Context, id string) error {
	spec, ok := e.agentSpec(id)
	if !ok || spec.Disabled || spec.NotInstalled != "" {
		return hub.Errorf(hub.CodeNotFound, "unknown agent %q", id)
	}
	if caps, known := e.knownCaps(id); known && !hasJSON(caps.Auth.Logout) {
		return logoutUnsupported(spec)
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
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
	if err := a.Logout(ctx); errors.Is(err, acp.ErrUnsupported) {
		return logoutUnsupported(spec)
	} else if err != nil {
		return &hub.Error{Code: hub.CodeUpstreamUnavailable, Message: fmt.Sprintf("%s refused to sign out: %v", spec.Name, err), Err: err}
	}
	e.mu.Lock()
	delete(e.authed, id)
	e.mu.Unlock()
	e.RestartAgent(id)
	e.log.Info("hub: agent signed out", "agent", id)
	return nil
}

func logoutUnsupported(spec acp.AgentSpec) error {
	return &hub.Error{Code: hub.CodeConflict, Message: fmt.Sprintf("%s cannot sign out from Switchboard (it does not offer logout): sign out with its own command", spec.Name),
		Details: map[string]any{"reason": hub.ReasonLogoutUnsupported, "agent": spec.ID}}
}
