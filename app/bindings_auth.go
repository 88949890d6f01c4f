package app

import "github.com/switchboard-hub/switchboard/hub"

// EventAuthFrame carries one frame of a terminal sign-in the window
// watches (WatchAuth): {"id", "output"?, "exit"?}.
const EventAuthFrame = "auth:frame"

// SignInAgent is AgentAuth.SignIn (POST /v1/agents/{id}/auth).
func (b *Bindings) SignInAgent(agentID, methodID string) (hub.SignInResult, error) {
	if b.svcs.AgentAuth == nil {
		return hub.SignInResult{}, hub.ErrNoAgentAuth
	}
	return b.svcs.AgentAuth.SignIn(b.ctx, agentID, methodID)
}

// SignOutAgent is AgentAuth.SignOut (POST /v1/agents/{id}/logout).
func (b *Bindings) SignOutAgent(agentID string) error {
	if b.svcs.AgentAuth == nil {
		return hub.ErrNoAgentAuth
	}
	return b.svcs.AgentAuth.SignOut(b.ctx, agentID)
}

// WatchAuth is AgentAuth.WatchAuth (GET /v1/auth-sessions/{id}/stream):
// each frame is emitted as the runtime event "auth:frame" with the
// session's id, until the exit frame or the app's end.
func (b *Bindings) WatchAuth(id string) error {
	if b.svcs.AgentAuth == nil {
		return hub.ErrNoAgentAuth
	}
	frames, err := b.svcs.AgentAuth.WatchAuth(b.ctx, id)
	if err != nil {
		return err
	}
	go func() {
		for f := range frames {
			b.emit.Emit(EventAuthFrame, map[string]any{"id": id, "output": f.Output, "exit": f.Exit})
		}
	}()
	return nil
}

// AuthInput is AgentAuth.AuthInput (POST /v1/auth-sessions/{id}/input).
func (b *Bindings) AuthInput(id, data string) error {
	if b.svcs.AgentAuth == nil {
		return hub.ErrNoAgentAuth
	}
	return b.svcs.AgentAuth.AuthInput(b.ctx, id, data)
}

// AuthResize is AgentAuth.AuthResize (POST /v1/auth-sessions/{id}/resize).
func (b *Bindings) AuthResize(id string, cols, rows int) error {
	if b.svcs.AgentAuth == nil {
		return hub.ErrNoAgentAuth
	}
	return b.svcs.AgentAuth.AuthResize(b.ctx, id, cols, rows)
}

// CloseAuth is AgentAuth.CloseAuth (DELETE /v1/auth-sessions/{id}).
func (b *Bindings) CloseAuth(id string) error {
	if b.svcs.AgentAuth == nil {
		return hub.ErrNoAgentAuth
	}
	return b.svcs.AgentAuth.CloseAuth(b.ctx, id)
}
