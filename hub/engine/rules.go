package engine

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/policy"
)

// Rules (hub/policy) decide a permission before anyone is asked: the
// config's permissions.rules first, then the remembered rules. What they
// read is the tool call as stored (redacted: what a person would see),
// described once, its locations resolved once, outside the rule loop.

// maxRuleLocations bounds the locations a request's rules resolve; a
// request with more is never allowed by a rule.
const maxRuleLocations = 256

// policyRequest describes a permission of thread t for the rules:
// toolCall's labels, its locations resolved (symbolic links followed),
// the thread's folder and its resolved root.
func policyRequest(t hub.Thread, toolCall json.RawMessage, opts []hub.PermissionOption) *policy.Request {
	l := policy.Describe(toolCall)
	r := &policy.Request{
		Agent: t.Agent, ThreadID: t.ID, ClientID: t.ClientID, Folder: filepath.Clean(t.Cwd),
		Kind: l.Kind, Title: l.Title, Command: l.Command, HasCommand: l.HasCommand,
		Unresolved: l.Malformed, Options: opts,
	}
	root, err := resolvePath(confinementRoots(t)[0])
	if err != nil {
		r.Unresolved = true
	}
	r.Root = root
	if len(l.Locations) > maxRuleLocations {
		// Not resolved one by one (an lstat per element each): such a
		// request is never allowed by a rule, only asked or denied.
		r.Unresolved = true
		return r
	}
	for _, loc := range l.Locations {
		p, err := resolvePath(loc)
		if err != nil {
			r.Unresolved = true
			continue
		}
		r.Locations = append(r.Locations, p)
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
	now := e.now()
	p.Status, p.OptionID, p.DecidedBy, p.DecidedAt = v.Status, v.OptionID, v.DecidedBy(), &now
	ev, err := hub.NewEvent(hub.EventPermissionResolved, t, p.TurnID, now, map[string]any{"permission": p})
	if err != nil {
		return hub.Permission{}, err
	}
	if err := e.commit(&hub.Write{Permissions: []hub.Permission{p}, Events: []hub.Event{ev}}); err != nil {
		return hub.Permission{}, err
	}
	e.log.Info("hub: permission decided by rule", "thread", t.ID, "permission", p.ID, "decidedBy", p.DecidedBy, "status", p.Status)
	return p, nil
}

// rememberRule builds the rule a decision with d.Remember adds (nil when
// it adds none: no Remember, or the agent's own allow_always option was
// chosen, which the agent remembers itself), and the config rule that
// shadows it. INVALID_ARGUMENT when the request cannot be remembered.
func (e *Engine) rememberRule(c hub.Caller, t hub.Thread, p hub.Permission, d hub.Decision, status, optionID string) (*hub.RememberedRule, string, error) {
	switch d.Remember {
	case "":
		return nil, "", nil
	case hub.RememberThread, hub.RememberFolder, hub.RememberAgent:
	default:
		return nil, "", hub.Errorf(hub.CodeInvalidArgument, `remember must be "thread", "folder" or "agent"`)
	}
	for _, o := range p.Options {
		if o.OptionID == optionID && o.Kind == "allow_always" {
			return nil, "", nil
		}
	}
	decision := hub.RuleDeny
	if status == hub.PermissionApproved {
		decision = hub.RuleAllow
	}
	r := policyRequest(t, p.ToolCall, p.Options)
	rr, ok := policy.RememberAs(r, d.Remember, decision)
	if !ok {
		return nil, "", hub.Errorf(hub.CodeInvalidArgument, "this request cannot be remembered: it has no kind, no command or title, or paths the hub cannot resolve")
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
