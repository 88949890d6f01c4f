package client

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/switchboard-hub/switchboard/hub"
)

// The calls that sign an agent in (docs/API.md "Agents": sign-in).

// SignInAgent runs the agent's sign-in method methodID (POST
// /v1/agents/{id}/auth): an agent method answers once it succeeded, a
// terminal method at once with its AuthSessionID (WatchAuth reads it).
func (c *Client) SignInAgent(ctx context.Context, agentID, methodID string) (hub.SignInResult, error) {
	var out hub.SignInResult
	err := c.call(ctx, request{method: http.MethodPost, path: "/v1/agents/" + esc(agentID) + "/auth",
		body: map[string]string{"methodId": methodID}}, &out)
	return out, err
}

// SignOutAgent signs the agent out with ACP logout (POST
// /v1/agents/{id}/logout): 404 for an unknown agent, 409
// LOGOUT_UNSUPPORTED for one that does not offer logout.
func (c *Client) SignOutAgent(ctx context.Context, agentID string) error {
	return c.call(ctx, request{method: http.MethodPost, path: "/v1/agents/" + esc(agentID) + "/logout"}, nil)
}

// WatchAuth streams a terminal sign-in (GET /v1/auth-sessions/{id}/stream):
// what it printed so far, then live output, then its exit. The channel
// closes after the exit frame, when ctx ends or when the stream breaks.
func (c *Client) WatchAuth(ctx context.Context, id string) (<-chan hub.AuthFrame, error) {
	resp, err := c.send(ctx, request{method: http.MethodGet, path: "/v1/auth-sessions/" + esc(id) + "/stream",
		header: http.Header{"Accept": {"text/event-stream"}}})
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		return nil, decodeError(resp)
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body.Close()
		return nil, &Error{Status: resp.StatusCode, Message: "the sign-in stream is not an event stream"}
	}
	ch := make(chan hub.AuthFrame, 16)
	go func() {
		defer close(ch)
		defer resp.Body.Close()
		rd := NewReader(resp.Body, c.options().MaxEventBytes)
		for {
			f, err := rd.Next()
			if err != nil {
				return
			}
			var af hub.AuthFrame
			if json.Unmarshal([]byte(f.Data), &af) != nil {
				continue
			}
			select {
			case ch <- af:
			case <-ctx.Done():
				return
			}
			if af.Exit != nil {
				return
			}
		}
	}()
	return ch, nil
}

// AuthInput types data into a terminal sign-in (POST
// /v1/auth-sessions/{id}/input).
func (c *Client) AuthInput(ctx context.Context, id, data string) error {
	return c.call(ctx, request{method: http.MethodPost, path: "/v1/auth-sessions/" + esc(id) + "/input",
		body: map[string]string{"data": data}}, nil)
}

// AuthResize sets a terminal sign-in's size (POST
// /v1/auth-sessions/{id}/resize).
func (c *Client) AuthResize(ctx context.Context, id string, cols, rows int) error {
	return c.call(ctx, request{method: http.MethodPost, path: "/v1/auth-sessions/" + esc(id) + "/resize",
		body: map[string]int{"cols": cols, "rows": rows}}, nil)
}

// CloseAuth ends a terminal sign-in (DELETE /v1/auth-sessions/{id}).
func (c *Client) CloseAuth(ctx context.Context, id string) error {
	return c.call(ctx, request{method: http.MethodDelete, path: "/v1/auth-sessions/" + esc(id)}, nil)
}
