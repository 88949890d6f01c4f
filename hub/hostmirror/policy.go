package hostmirror

import (
	"context"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

// HostPolicy implements hub.HostHubs (ADR 0048): host's settings, rules,
// usage and budgets, each call answered by its hub through its link (the
// host's own GET|PATCH /v1/settings, /v1/rules, /v1/usage,
// /v1/budgets/override). Nothing of it is copied here: each hub applies
// its own policy to the agents it runs.
func (hs *Hosts) HostPolicy(_ context.Context, host string) (hub.HostPolicy, error) {
	rem, err := hs.Remote(host)
	if err != nil {
		return nil, err
	}
	return policy{rem: rem, host: host}, nil
}

// policy is one host's hub.HostPolicy over its link: ids of the host's
// threads and permissions local (<id>@<host>) both ways, a failed link
// HostUnreachable.
type policy struct {
	rem  *client.Remote
	host string
}

func (p policy) Settings(ctx context.Context) (hub.Settings, error) {
	st, err := p.rem.Settings(ctx)
	return st, fail(p.host, err)
}

func (p policy) UpdateSettings(ctx context.Context, patch hub.SettingsPatch) (hub.Settings, error) {
	st, err := p.rem.UpdateSettings(ctx, patch)
	return st, fail(p.host, err)
}

func (p policy) Usage(ctx context.Context, c hub.Caller, q hub.UsageQuery) (hub.UsageReport, error) {
	var err error
	if q.ThreadID, err = p.remoteID(q.ThreadID); err != nil {
		return hub.UsageReport{}, err
	}
	rep, err := p.rem.Usage(ctx, c, q)
	if err != nil {
		return hub.UsageReport{}, fail(p.host, err)
	}
	for i := range rep.Buckets {
		b := &rep.Buckets[i]
		b.ThreadID = hub.HostID(b.ThreadID, p.host)
		if q.By == hub.UsageByThread {
			b.Key = hub.HostID(b.Key, p.host)
		}
	}
	return rep, nil
}

func (p policy) OverrideBudget(ctx context.Context, c hub.Caller, req hub.OverrideRequest) (hub.BudgetOverride, error) {
	var err error
	if req.ThreadID, err = p.remoteID(req.ThreadID); err != nil {
		return hub.BudgetOverride{}, err
	}
	o, err := p.rem.OverrideBudget(ctx, c, req)
	if err != nil {
		return hub.BudgetOverride{}, fail(p.host, err)
	}
	o.ThreadID, o.UsedBy = hub.HostID(o.ThreadID, p.host), hub.HostID(o.UsedBy, p.host)
	return o, nil
}

func (p policy) ListRules(ctx context.Context, c hub.Caller) ([]hub.RememberedRule, error) {
	rules, err := p.rem.ListRules(ctx, c)
	if err != nil {
		return nil, fail(p.host, err)
	}
	for i := range rules {
		rules[i].ThreadID = hub.HostID(rules[i].ThreadID, p.host)
		rules[i].PermissionID = hub.HostID(rules[i].PermissionID, p.host)
	}
	return rules, nil
}

func (p policy) DeleteRule(ctx context.Context, c hub.Caller, id string) error {
	return fail(p.host, p.rem.DeleteRule(ctx, c, id))
}

// remoteID is the host's own id of one of its threads given in local form
// (or already its own); another host's id is INVALID_ARGUMENT.
func (p policy) remoteID(id string) (string, error) {
	rid, host := hub.SplitHostID(id)
	switch host {
	case "":
		return id, nil
	case p.host:
		return rid, nil
	}
	return "", hub.Errorf(hub.CodeInvalidArgument, "thread %s is not on host %s", id, p.host)
}
