package app

import (
	"github.com/switchboard-hub/switchboard/hub"
)

// usageOf is hub.Services.Usage, the ledger (NOT_FOUND when the hub has
// none).
func (b *Bindings) usageOf() (hub.UsageService, error) {
	if b.svcs.Usage == nil {
		return nil, hub.ErrNoUsage
	}
	return b.svcs.Usage, nil
}

// GetUsage is UsageService.Usage (GET /v1/usage?by&from&to&tz&threadId&limit&cursor),
// every client's threads (the window's scope is all).
func (b *Bindings) GetUsage(p hub.UsageParams) (hub.UsageReport, error) {
	us, err := b.usageOf()
	if err != nil {
		return hub.UsageReport{}, err
	}
	q, err := hub.ParseUsageQuery(p)
	if err != nil {
		return hub.UsageReport{}, err
	}
	return us.Usage(b.ctx, windowCaller, q)
}

// OverrideBudget is UsageService.OverrideBudget (POST
// /v1/budgets/override), recorded as decidedBy "window".
func (b *Bindings) OverrideBudget(req hub.OverrideRequest) (hub.BudgetOverride, error) {
	us, err := b.usageOf()
	if err != nil {
		return hub.BudgetOverride{}, err
	}
	return us.OverrideBudget(b.ctx, windowCaller, req)
}
