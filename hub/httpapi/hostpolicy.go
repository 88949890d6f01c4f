package httpapi

import (
	"context"
	"net/http"

	"github.com/switchboard-hub/switchboard/hub"
)

// A host's policy (ADR 0048, docs/API.md "Hosts"): the handlers of
// /v1/settings, /v1/rules, /v1/usage and /v1/budgets/override serve
// /v1/hosts/{name}/… too. Each reads its capability from policy: this
// hub's own on its own route and for {name} "local", the host's (over its
// link, hub.HostHubs.HostPolicy) otherwise.

// policy is the hub.HostPolicy the request names, or nil with the error
// written (NOT_FOUND for a host not known or a hub without hosts, 502
// HOST_UNREACHABLE for a host whose link is down).
func (s *Server) policy(w http.ResponseWriter, r *http.Request) hub.HostPolicy {
	name := r.PathValue("name")
	if name == "" || name == hub.LocalHost {
		return localPolicy{s.svcs}
	}
	if s.svcs.HostHubs == nil {
		s.writeError(w, r, hub.ErrNoHostHubs)
		return nil
	}
	p, err := s.svcs.HostHubs.HostPolicy(r.Context(), name)
	if err != nil {
		s.writeError(w, r, err)
		return nil
	}
	return p
}

// localPolicy is this hub's policy from its capabilities: a missing one
// answers its NOT_FOUND (ErrNoSettings, ErrNoUsage), as its routes did.
type localPolicy struct{ s hub.Services }

func (p localPolicy) Settings(ctx context.Context) (hub.Settings, error) {
	if p.s.Settings == nil {
		return hub.Settings{}, hub.ErrNoSettings
	}
	return p.s.Settings.Settings(ctx)
}

func (p localPolicy) UpdateSettings(ctx context.Context, patch hub.SettingsPatch) (hub.Settings, error) {
	if p.s.Settings == nil {
		return hub.Settings{}, hub.ErrNoSettings
	}
	return p.s.Settings.UpdateSettings(ctx, patch)
}

func (p localPolicy) Usage(ctx context.Context, c hub.Caller, q hub.UsageQuery) (hub.UsageReport, error) {
	if p.s.Usage == nil {
		return hub.UsageReport{}, hub.ErrNoUsage
	}
	return p.s.Usage.Usage(ctx, c, q)
}

func (p localPolicy) OverrideBudget(ctx context.Context, c hub.Caller, req hub.OverrideRequest) (hub.BudgetOverride, error) {
	if p.s.Usage == nil {
		return hub.BudgetOverride{}, hub.ErrNoUsage
	}
	return p.s.Usage.OverrideBudget(ctx, c, req)
}

func (p localPolicy) ListRules(ctx context.Context, c hub.Caller) ([]hub.RememberedRule, error) {
	return p.s.Service.ListRules(ctx, c)
}

func (p localPolicy) DeleteRule(ctx context.Context, c hub.Caller, id string) error {
	return p.s.Service.DeleteRule(ctx, c, id)
}
