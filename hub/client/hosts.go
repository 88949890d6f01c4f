package client

import (
	"context"
	"net/http"
	"net/url"

	"github.com/switchboard-hub/switchboard/hub"
)

// HostFolders is GET /v1/hosts/{host}/folders?path= (host "local": the
// hub's own machine).
func (c *Client) HostFolders(ctx context.Context, host, path string) (hub.FolderList, error) {
	var out hub.FolderList
	q := url.Values{}
	if path != "" {
		q.Set("path", path)
	}
	err := c.call(ctx, request{method: http.MethodGet, path: "/v1/hosts/" + esc(host) + "/folders", query: q}, &out)
	return out, err
}

// HostAgents is GET /v1/hosts/{host}/agents.
func (c *Client) HostAgents(ctx context.Context, host string) ([]hub.Agent, error) {
	var out struct {
		Agents []hub.Agent `json:"agents"`
	}
	err := c.call(ctx, request{method: http.MethodGet, path: "/v1/hosts/" + esc(host) + "/agents"}, &out)
	return out.Agents, err
}

// HostFolders implements hub.HostHubs over the API.
func (r *Remote) HostFolders(ctx context.Context, host, path string) (hub.FolderList, error) {
	return r.c.HostFolders(ctx, host, path)
}

// HostAgents implements hub.HostHubs over the API.
func (r *Remote) HostAgents(ctx context.Context, host string) ([]hub.Agent, error) {
	return r.c.HostAgents(ctx, host)
}
