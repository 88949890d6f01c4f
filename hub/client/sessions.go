package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/switchboard-hub/switchboard/hub"
)

// The agent's own sessions (issue 16).

// AgentSessions lists one page of agent's own sessions in cwd (GET
// /v1/agents/{id}/sessions?cwd&cursor); cursor "" is the first page.
func (c *Client) AgentSessions(ctx context.Context, agent, cwd, cursor string) (hub.AgentSessionPage, error) {
	q := url.Values{"cwd": {cwd}}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	var out hub.AgentSessionPage
	err := c.call(ctx, request{method: http.MethodGet, path: "/v1/agents/" + esc(agent) + "/sessions", query: q}, &out)
	return out, err
}

// ImportSession makes a thread of one of the agent's sessions (POST
// /v1/threads/import-session); Created is false when the hub answered
// 200 with the thread already bound to it.
func (c *Client) ImportSession(ctx context.Context, req hub.ImportSessionRequest) (hub.ImportSessionResult, error) {
	t, created, err := c.importSession(ctx, req)
	return hub.ImportSessionResult{Thread: t, Created: created}, err
}

func (c *Client) importSession(ctx context.Context, req hub.ImportSessionRequest) (hub.Thread, bool, error) {
	r := request{method: http.MethodPost, path: "/v1/threads/import-session", body: req}
	resp, err := c.send(ctx, r)
	if err != nil {
		return hub.Thread{}, false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated {
		return hub.Thread{}, false, decodeError(resp)
	}
	var out struct {
		Thread hub.Thread `json:"thread"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxAnswer)).Decode(&out); err != nil {
		return hub.Thread{}, false, fmt.Errorf("hub: %s %s: decoding the answer: %w", r.method, r.path, err)
	}
	return out.Thread, resp.StatusCode == http.StatusCreated, nil
}
