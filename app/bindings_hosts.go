package app

import "github.com/switchboard-hub/switchboard/hub"

// The window's bindings for the hosts' hubs (issue 30): what New thread
// reads of a host. The hosts' list and states are the hosts registry's.

// HostFolders is HostHubs.HostFolders (GET /v1/hosts/{name}/folders?path=).
func (b *Bindings) HostFolders(host, path string) (hub.FolderList, error) {
	if b.svcs.HostHubs == nil {
		return hub.FolderList{}, hub.ErrNoHostHubs
	}
	return b.svcs.HostHubs.HostFolders(b.ctx, host, path)
}

// HostAgents is HostHubs.HostAgents (GET /v1/hosts/{name}/agents); "local"
// is ListAgents'.
func (b *Bindings) HostAgents(host string) ([]hub.Agent, error) {
	if host == hub.LocalHost {
		return b.svcs.Service.ListAgents(b.ctx)
	}
	if b.svcs.HostHubs == nil {
		return nil, hub.ErrNoHostHubs
	}
	return b.svcs.HostHubs.HostAgents(b.ctx, host)
}

// hostPolicy is HostHubs.HostPolicy: a host's settings, rules and usage,
// answered by its hub over the link (ADR 0048; HOST_UNREACHABLE while the
// link is down). The window's host settings screen (HostSettings.svelte)
// reads and edits a host only through the bindings below, as the HTTP API
// does under /v1/hosts/{name}/….
func (b *Bindings) hostPolicy(host string) (hub.HostPolicy, error) {
	if b.svcs.HostHubs == nil {
		return nil, hub.ErrNoHostHubs
	}
	return b.svcs.HostHubs.HostPolicy(b.ctx, host)
}

// HostSettings is GET /v1/hosts/{name}/settings.
func (b *Bindings) HostSettings(host string) (hub.Settings, error) {
	p, err := b.hostPolicy(host)
	if err != nil {
		return hub.Settings{}, err
	}
	return p.Settings(b.ctx)
}

// UpdateHostSettings is PATCH /v1/hosts/{name}/settings.
func (b *Bindings) UpdateHostSettings(host string, patch hub.SettingsPatch) (hub.Settings, error) {
	p, err := b.hostPolicy(host)
	if err != nil {
		return hub.Settings{}, err
	}
	return p.UpdateSettings(b.ctx, patch)
}

// HostRules is GET /v1/hosts/{name}/rules.
func (b *Bindings) HostRules(host string) ([]hub.RememberedRule, error) {
	p, err := b.hostPolicy(host)
	if err != nil {
		return nil, err
	}
	return p.ListRules(b.ctx, windowCaller)
}

// DeleteHostRule is DELETE /v1/hosts/{name}/rules/{id}.
func (b *Bindings) DeleteHostRule(host, id string) error {
	p, err := b.hostPolicy(host)
	if err != nil {
		return err
	}
	return p.DeleteRule(b.ctx, windowCaller, id)
}

// HostUsage is GET /v1/hosts/{name}/usage: the host's ledger, never counted here.
func (b *Bindings) HostUsage(host string, params hub.UsageParams) (hub.UsageReport, error) {
	p, err := b.hostPolicy(host)
	if err != nil {
		return hub.UsageReport{}, err
	}
	q, err := hub.ParseUsageQuery(params)
	if err != nil {
		return hub.UsageReport{}, err
	}
	return p.Usage(b.ctx, windowCaller, q)
}

// OverrideHostBudget is POST /v1/hosts/{name}/budgets/override: one more
// turn past the host's own spent budget (a host's threads are held by its
// budgets, never this hub's; req.ThreadID is the copy's "<id>@<host>").
func (b *Bindings) OverrideHostBudget(host string, req hub.OverrideRequest) (hub.BudgetOverride, error) {
	p, err := b.hostPolicy(host)
	if err != nil {
		return hub.BudgetOverride{}, err
	}
	return p.OverrideBudget(b.ctx, windowCaller, req)
}
