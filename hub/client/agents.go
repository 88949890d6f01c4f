package client

import (
	"context"
	"net/http"
	"net/url"
)

// InstallAgent starts installing (or updating, with the registry's
// version) agent id: POST /v1/agents/{id}/install. Progress arrives as
// agent_install events on Events (with Options.All).
func (c *Client) InstallAgent(ctx context.Context, id, version string) error {
	body := map[string]string{}
	if version != "" {
		body["version"] = version
	}
	return c.call(ctx, request{method: http.MethodPost, path: "/v1/agents/" + url.PathEscape(id) + "/install", body: body}, nil)
}

// RemoveAgent removes what the hub installed for agent id: DELETE
// /v1/agents/{id}/install.
func (c *Client) RemoveAgent(ctx context.Context, id string) error {
	return c.call(ctx, request{method: http.MethodDelete, path: "/v1/agents/" + url.PathEscape(id) + "/install"}, nil)
}

// InstallNode starts installing Node 22 into the hub's data dir: POST
// /v1/node/install.
func (c *Client) InstallNode(ctx context.Context) error {
	return c.call(ctx, request{method: http.MethodPost, path: "/v1/node/install"}, nil)
}
