package client

import (
	"context"
	"net/http"

	"github.com/switchboard-hub/switchboard/hub"
)

// Hosts (docs/API.md "Hosts"): the calls, and Remote as hub.HostService.

// Hosts lists the local machine and every host (GET /v1/hosts).
func (c *Client) Hosts(ctx context.Context) ([]hub.Host, error) {
	var out struct {
		Hosts []hub.Host `json:"hosts"`
	}
	err := c.call(ctx, request{method: http.MethodGet, path: "/v1/hosts"}, &out)
	return out.Hosts, err
}

// Host returns one host (GET /v1/hosts/{name}).
func (c *Client) Host(ctx context.Context, name string) (hub.Host, error) {
	var out hub.Host
	err := c.call(ctx, request{method: http.MethodGet, path: "/v1/hosts/" + esc(name)}, &out)
	return out, err
}

// AddHost adds a host (POST /v1/hosts).
func (c *Client) AddHost(ctx context.Context, name, ssh string) (hub.Host, error) {
	var out hub.Host
	body := struct {
		Name string `json:"name"`
		SSH  string `json:"ssh"`
	}{name, ssh}
	err := c.call(ctx, request{method: http.MethodPost, path: "/v1/hosts", body: body}, &out)
	return out, err
}

// RemoveHost removes a host (DELETE /v1/hosts/{name}).
func (c *Client) RemoveHost(ctx context.Context, name string) error {
	return c.call(ctx, request{method: http.MethodDelete, path: "/v1/hosts/" + esc(name)}, nil)
}

// ConnectHost connects a host now (POST /v1/hosts/{name}/connect).
func (c *Client) ConnectHost(ctx context.Context, name string, req hub.HostConnect) (hub.Host, error) {
	var out hub.Host
	err := c.call(ctx, request{method: http.MethodPost, path: "/v1/hosts/" + esc(name) + "/connect", body: req}, &out)
	return out, err
}

var _ hub.HostService = (*Remote)(nil)

// ListHosts implements hub.HostService (GET /v1/hosts).
func (r *Remote) ListHosts(ctx context.Context) ([]hub.Host, error) { return r.c.Hosts(ctx) }

// Host implements hub.HostService (GET /v1/hosts/{name}).
func (r *Remote) Host(ctx context.Context, name string) (hub.Host, error) { return r.c.Host(ctx, name) }

// AddHost implements hub.HostService (POST /v1/hosts).
func (r *Remote) AddHost(ctx context.Context, name, ssh string) (hub.Host, error) {
	return r.c.AddHost(ctx, name, ssh)
}

// RemoveHost implements hub.HostService (DELETE /v1/hosts/{name}).
func (r *Remote) RemoveHost(ctx context.Context, name string) error { return r.c.RemoveHost(ctx, name) }

// ConnectHost implements hub.HostService (POST /v1/hosts/{name}/connect).
func (r *Remote) ConnectHost(ctx context.Context, name string, req hub.HostConnect) (hub.Host, error) {
	return r.c.ConnectHost(ctx, name, req)
}
