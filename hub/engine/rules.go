package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/policy"
)

// Rules (hub/policy) decide a permission before anyone is asked: the
// config's permissions.rules first, then the remembered rules. What they
// read is the hub's description of the request (Permission.Request,
// describe.go), never the agent's words: its ACP kind, its argv as one
// shell-quoted line, its resolved paths.

// policyRequest is permission p of thread t as the rules see it. A
// request the hub did not describe, whose description is Undecidable, or
// whose hub kind is git or budget, is Undecidable: only a person decides
// it. The environment a command sets is the agent's tool call's
// (rawInput.env) for its own request; a terminal the hub asks about
// passes the terminal's as env.
func policyRequest(t hub.Thread, p hub.Permission, env ...hub.EnvVar) *policy.Request {
	d := p.Request
	r := &policy.Request{
		Agent: t.Agent, ThreadID: t.ID, ClientID: t.ClientID, Folder: filepath.Clean(t.Cwd), Options: p.Options,
		Undecidable: d == nil || d.Undecidable() || p.Kind == hub.PermKindGit || p.Kind == hub.PermKindBudget,
	}
	root, err := resolvePath(confinementRoots(t)[0])
	if err != nil {
		r.Unresolved = true
	}
	r.Root = root
	if d == nil {
		return r
	}
	r.Kind, r.Title, r.Locations, r.Cwd = d.Kind, d.Title, d.Paths, d.Cwd
	if env == nil && p.Kind == hub.PermKindAgent {
		env = policy.ReadToolCall(p.ToolCall).Env
	}
	r.Env = policy.EnvKey(env)
	r.Unresolved = r.Unresolved || d.Has(hub.FlagDotDot)
	if len(d.Argv) > 0 {
		r.HasCommand, r.Command = true, policy.QuoteArgv(d.Argv)
	}
	return r
}

// verdict is what the rules in effect say about r.
func (e *Engine) verdict(r *policy.Request) policy.Verdict {
	e.mu.Lock()
	pol, remembered := e.cfg.Rules, e.remembered
	e.mu.Unlock()
	// remembered is only ever replaced, never changed in place (append
	// to a copy, delete by copy), so reading it unlocked is safe.
	return pol.Evaluate(r, remembered)
}

// decideByRule stores p decided by v (resolved, with v's option) and
// emits only permission_resolved: nobody is asked, nothing is notified.
// The decision is committed before the agent is told.
func (e *Engine) decideByRule(t hub.Thread, p hub.Permission, v policy.Verdict) (hub.Permission, error) {
	p, err := e.storeDecided(t, p, v.Status, v.OptionID, v.DecidedBy())
	if err == nil {
		e.log.Info("hub: permission decided by rule", "thread", t.ID, "permission", p.ID, "decidedBy", p.DecidedBy, "status", p.Status)
	}
	return p, err
}

// recordCovered stores, for the audit, the terminal that ran in turn tr
// of thread t without a card of its own because the approval coveredBy
// covered it (approvals.go): a permission of kind terminal with desc,
// approved by "covered:<coveredBy>", and its permission_resolved event.
func (e *Engine) recordCovered(t hub.Thread, tr *turnRT, coveredBy string, desc *hub.PermissionRequest) error {
	now := e.now()
	tc, err := json.Marshal(map[string]any{"toolCallId": fmt.Sprintf("hub_terminal_%d", e.hubCalls.Add(1)), "kind": "execute", "title": desc.Command})
	if err != nil {
		return err
	}
	p := hub.Permission{ID: newID("pm"), ThreadID: t.ID, TurnID: tr.turn.ID, Kind: hub.PermKindTerminal, Request: e.redactRequest(desc),
		ToolCall: e.redactJSON(tc), Options: []hub.PermissionOption{{OptionID: hubAllow, Name: "Allow", Kind: "allow_once"}, {OptionID: hubReject, Name: "Reject", Kind: "reject_once"}},
		Deadline: now, CreatedAt: now, Agent: t.Agent}
	_, err = e.storeDecided(t, p, hub.PermissionApproved, hubAllow, hub.DecidedByCoveredPrefix+coveredBy)
	return err
}

// storeDecided stores p decided (status, optionID, decidedBy, now) and
// emits only permission_resolved: nobody is asked, nothing is notified.
// The decision is committed before the caller tells the agent.
func (e *Engine) storeDecided(t hub.Thread, p hub.Permission, status, optionID, decidedBy string) (hub.Permission, error) {
	now := e.now()
	p.Status, p.OptionID, p.DecidedBy, p.DecidedAt = status, optionID, decidedBy, &now
	ev, err := hub.NewEvent(hub.EventPermissionResolved, t, p.TurnID, now, map[string]any{"permission": p})
	if err != nil {
		return hub.Permission{}, err
	}
	if err := e.commit(&hub.Write{Permissions: []hub.Permission{p}, Events: []hub.Event{ev}}); err != nil {
		return hub.Permission{}, err
	}
	return p, nil
}

// rememberRule builds the rule a decision with d.Remember adds, and the
// config rule that shadows it; nil when it adds none. The agent's own
// allow_always option, which the agent remembers itself, adds one only
// for a command (ACP kind execute with an argv, ADR 0035): the exact run
// (its line, folder and environment) in d.Remember's scope, this thread
// when none is given — so the terminal the agent later creates for that
// command is not asked again, and no other is. env is the environment a
// terminal permission's command sets (nil: the agent's tool call's).
// INVALID_ARGUMENT when the request cannot be remembered.
func (e *Engine) rememberRule(c hub.Caller, t hub.Thread, p hub.Permission, d hub.Decision, status, optionID string, env []hub.EnvVar) (*hub.RememberedRule, string, error) {
	switch d.Remember {
	case "", hub.RememberThread, hub.RememberFolder, hub.RememberAgent:
	default:
		return nil, "", hub.Errorf(hub.CodeInvalidArgument, `remember must be "thread", "folder" or "agent"`)
	}
	for _, o := range p.Options {
		if o.OptionID == optionID && o.Kind == "allow_always" {
			if p.Kind != hub.PermKindAgent || p.Request == nil || p.Request.Kind != "execute" || len(p.Request.Argv) == 0 || p.Request.Undecidable() {
				return nil, "", nil
			}
			if d.Remember == "" {
				d.Remember = hub.RememberThread
			}
		}
	}
	if d.Remember == "" {
		return nil, "", nil
	}
	decision := hub.RuleDeny
	if status == hub.PermissionApproved {
		decision = hub.RuleAllow
	}
	if p.Kind == hub.PermKindGit || p.Kind == hub.PermKindBudget {
		return nil, "", &hub.Error{Code: hub.CodeInvalidArgument, Message: "this request is always asked: a " + p.Kind + " permission cannot be remembered",
			Details: map[string]any{"reason": "ALWAYS_ASKED"}}
	}
	r := policyRequest(t, p, env...)
	rr, ok := policy.RememberAs(r, d.Remember, decision)
	if !ok {
		return nil, "", hub.Errorf(hub.CodeInvalidArgument, "this request cannot be remembered: it has no kind, no command or title, paths the hub cannot resolve, or shell syntax, conflicting or malformed fields")
	}
	rr.ID, rr.CreatedAt, rr.CreatedBy, rr.PermissionID = newID("ru"), e.now(), hub.DecidedByOf(c), p.ID
	if !c.All {
		rr.ClientID = c.ClientID
	}
	e.mu.Lock()
	pol := e.cfg.Rules
	e.mu.Unlock()
	return &rr, pol.Shadow(r), nil
}

// sameRule reports whether a and b decide the same requests the same way.
func sameRule(a, b hub.RememberedRule) bool {
	a.ID, a.Title, a.CreatedAt, a.CreatedBy, a.PermissionID = b.ID, b.Title, b.CreatedAt, b.CreatedBy, b.PermissionID
	return a == b
}

// existingRule returns a stored rule equal to rr (sameRule), if any.
func (e *Engine) existingRule(rr hub.RememberedRule) (hub.RememberedRule, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, x := range e.remembered {
		if sameRule(rr, x) {
			return x, true
		}
	}
	return hub.RememberedRule{}, false
}

// addRememberedLocked adds rr to the rules in effect. e.mu must be held.
func (e *Engine) addRememberedLocked(rr hub.RememberedRule) {
	e.remembered = append(slices.Clip(e.remembered), rr)
}

// forgetThreadRules drops the rules of a deleted thread from those in
// effect.
func (e *Engine) forgetThreadRules(threadID string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.remembered = slices.DeleteFunc(slices.Clone(e.remembered), func(r hub.RememberedRule) bool {
		return r.ThreadID == threadID
	})
}

// ruleVisible reports whether c may see rr: every rule with All, else
// only the rules c made.
func ruleVisible(c hub.Caller, rr hub.RememberedRule) bool {
	return c.All || rr.ClientID == c.ClientID
}

// ListRules implements Service.
func (e *Engine) ListRules(ctx context.Context, c hub.Caller) ([]hub.RememberedRule, error) {
	if err := checkCaller(c); err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	out := []hub.RememberedRule{}
	for _, r := range e.remembered {
		if ruleVisible(c, r) {
			out = append(out, r)
		}
	}
	return out, nil
}

// DeleteRule implements Service.
func (e *Engine) DeleteRule(ctx context.Context, c hub.Caller, id string) error {
	if err := checkCaller(c); err != nil {
		return err
	}
	e.mu.Lock()
	i := slices.IndexFunc(e.remembered, func(r hub.RememberedRule) bool { return r.ID == id })
	visible := i >= 0 && ruleVisible(c, e.remembered[i])
	e.mu.Unlock()
	if !visible {
		return hub.Errorf(hub.CodeNotFound, "rule %s not found", id)
	}
	if err := e.commit(&hub.Write{DeleteRules: []string{id}}); err != nil {
		return err
	}
	e.mu.Lock()
	e.remembered = slices.DeleteFunc(slices.Clone(e.remembered), func(r hub.RememberedRule) bool { return r.ID == id })
	e.mu.Unlock()
	return nil
}

// DecidePermissions implements Service.
func (e *Engine) DecidePermissions(ctx context.Context, c hub.Caller, b hub.BatchDecision) (hub.BatchResult, error) {
	if err := checkCaller(c); err != nil {
		return hub.BatchResult{}, err
	}
	switch {
	case len(b.IDs) == 0:
		return hub.BatchResult{}, hub.Errorf(hub.CodeInvalidArgument, "ids is required")
	case len(b.IDs) > hub.MaxBatch:
		return hub.BatchResult{}, hub.Errorf(hub.CodeInvalidArgument, "at most %d ids at once", hub.MaxBatch)
	case b.Outcome != hub.PermissionApproved && b.Outcome != hub.PermissionDeclined:
		return hub.BatchResult{}, hub.Errorf(hub.CodeInvalidArgument, `outcome must be "approved" or "declined"`)
	}
	switch b.Remember {
	case "", hub.RememberThread, hub.RememberFolder, hub.RememberAgent:
	default:
		return hub.BatchResult{}, hub.Errorf(hub.CodeInvalidArgument, `remember must be "thread", "folder" or "agent"`)
	}
	res := hub.BatchResult{Results: make([]hub.BatchItem, 0, len(b.IDs))}
	for _, id := range b.IDs {
		r, err := e.DecidePermission(ctx, c, id, hub.Decision{Outcome: b.Outcome, Remember: b.Remember})
		if err != nil {
			res.Results = append(res.Results, hub.BatchItem{ID: id, Error: &hub.ItemError{Code: hub.ErrorCode(err), Message: hub.ErrorMessage(err)}})
			continue
		}
		p := r.Permission
		res.Results = append(res.Results, hub.BatchItem{ID: id, Permission: &p})
	}
	return res, nil
}

// QueryPermissions implements Service.
func (e *Engine) QueryPermissions(ctx context.Context, c hub.Caller, q hub.PermissionQuery) (hub.PermissionPage, error) {
	if err := checkCaller(c); err != nil {
		return hub.PermissionPage{}, err
	}
	f := hub.PermissionFilter{ClientID: c.ClientID, All: c.All, ThreadID: q.ThreadID, Status: q.Status,
		DecidedBy: q.DecidedBy, Agent: q.Agent, Limit: q.Limit, Cursor: q.Cursor}
	switch q.Status {
	case "", hub.PermissionPending, hub.PermissionApproved, hub.PermissionDeclined, hub.PermissionCancelled, hub.PermissionExpired:
	default:
		return hub.PermissionPage{}, hub.Errorf(hub.CodeInvalidArgument, "unknown permission status %q", q.Status)
	}
	if q.Limit < 0 || q.Limit > hub.MaxPermissionPage {
		return hub.PermissionPage{}, hub.Errorf(hub.CodeInvalidArgument, "limit must be between 1 and %d", hub.MaxPermissionPage)
	}
	var err error
	if f.From, err = parseBound("from", q.From); err != nil {
		return hub.PermissionPage{}, err
	}
	if f.To, err = parseBound("to", q.To); err != nil {
		return hub.PermissionPage{}, err
	}
	ps, next, err := e.store.QueryPermissions(ctx, f)
	if err != nil {
		return hub.PermissionPage{}, err
	}
	if ps == nil {
		ps = []hub.Permission{}
	}
	return hub.PermissionPage{Permissions: ps, NextCursor: next}, nil
}
