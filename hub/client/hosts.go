package client

import (
	"context"
	"net/http"
	"net/url"
	"strings"

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

// hostKey marks a context whose requests go to a host's policy routes
// (HostPolicy): /v1/x becomes /v1/hosts/{host}/x.
type hostKey struct{}

// hostPath is path as a request made under ctx sends it: under a host's
// policy (onHost), the host's route for it.
func hostPath(ctx context.Context, path string) string {
	if host, ok := ctx.Value(hostKey{}).(string); ok {
		return "/v1/hosts/" + esc(host) + strings.TrimPrefix(path, "/v1")
	}
	return path
}

// HostPolicy implements hub.HostHubs over the API: host's settings,
// rules, usage and budgets through this hub's /v1/hosts/{host}/… (the
// same calls as the hub's own, each sent to the host's route).
func (r *Remote) HostPolicy(_ context.Context, host string) (hub.HostPolicy, error) {
	return hostPolicy{r: r, host: host}, nil
}

type hostPolicy struct {
	r    *Remote
	host string
}

func (p hostPolicy) on(ctx context.Context) context.Context {
	return context.WithValue(ctx, hostKey{}, p.host)
}

// Settings is GET /v1/hosts/{host}/settings.
func (p hostPolicy) Settings(ctx context.Context) (hub.Settings, error) {
	return p.r.Settings(p.on(ctx))
}

// UpdateSettings is PATCH /v1/hosts/{host}/settings.
func (p hostPolicy) UpdateSettings(ctx context.Context, patch hub.SettingsPatch) (hub.Settings, error) {
	return p.r.UpdateSettings(p.on(ctx), patch)
}

// Usage is GET /v1/hosts/{host}/usage.
func (p hostPolicy) Usage(ctx context.Context, c hub.Caller, q hub.UsageQuery) (hub.UsageReport, error) {
	return p.r.Usage(p.on(ctx), c, q)
}

// OverrideBudget is POST /v1/hosts/{host}/budgets/override.
func (p hostPolicy) OverrideBudget(ctx context.Context, c hub.Caller, req hub.OverrideRequest) (hub.BudgetOverride, error) {
	return p.r.OverrideBudget(p.on(ctx), c, req)
}

// ListRules is GET /v1/hosts/{host}/rules.
func (p hostPolicy) ListRules(ctx context.Context, c hub.Caller) ([]hub.RememberedRule, error) {
	return p.r.ListRules(p.on(ctx), c)
}

// DeleteRule is DELETE /v1/hosts/{host}/rules/{id}.
func (p hostPolicy) DeleteRule(ctx context.Context, c hub.Caller, id string) error {
	return p.r.DeleteRule(p.on(ctx), c, id)
}
