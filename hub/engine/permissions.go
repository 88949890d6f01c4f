package engine

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// permRT is a pending permission an agent is waiting on. answer receives
// exactly one response, from whoever won resolve.
type permRT struct {
	perm   hub.Permission
	req    acp.RequestPermissionRequest
	turn   *turnRT
	answer chan acp.RequestPermissionResponse
	stored chan struct{} // closed once the pending permission's insert is done
	env    []hub.EnvVar  // a terminal permission's environment (policyRequest); nil for the agent's own
}

// RequestPermission puts the agent's request in front of the user and
// waits. Fail-closed: a timeout answers the agent's reject_once option (or
// cancelled when it offers none), a cancelled turn, a closed connection, a
// shutdown or a store failure answer cancelled or an error — never an
// approval. The permission is stored before anyone can see it, and each
// decision is stored before the agent is told.
func (c *threadClient) RequestPermission(ctx context.Context, req acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	if err := c.holdForBudget(ctx, "session/request_permission"); err != nil { // spend.go
		return refusal(req), nil
	}
	return c.requestPermission(ctx, req, hub.PermKindAgent, nil, nil)
}

// requestPermission is RequestPermission for a permission of hub kind
// kind: the agent's own (described here from its tool call), or one the
// hub raised itself (askUser, with its description desc): the same path,
// events and rules. env is the environment of the command a terminal
// permission runs (nil for any other: policyRequest).
func (c *threadClient) requestPermission(ctx context.Context, req acp.RequestPermissionRequest, kind string, desc *hub.PermissionRequest, env []hub.EnvVar) (acp.RequestPermissionResponse, error) {
	e := c.e
	if err := c.holdForCheckpoint(ctx); err != nil { // snapshots.go: asked only once the checkpoint is stored
		return acp.RequestPermissionResponse{}, err
	}
	c.rt.mu.Lock()
	tr := c.rt.turn
	c.rt.mu.Unlock()
	if tr == nil {
		return acp.Cancelled(), nil // no turn, no user to ask
	}
	now := e.now()
	cfg := e.config()
	p := hub.Permission{ID: newID("pm"), ThreadID: c.thread.ID, TurnID: tr.turn.ID, Status: hub.PermissionPending, Kind: kind,
		ToolCall: e.redactJSON(req.ToolCall), Deadline: now.Add(cfg.PermissionTimeout), CreatedAt: now, Agent: c.thread.Agent}
	if desc == nil { // the tool call as its updates built it, as a person sees it: redacted
		desc = e.describeToolCall(c.thread, e.redactJSON(tr.toolCallState(req.ToolCall)))
	}
	e.markOverlap(c.thread, desc) // overlaps.go
	p.Request = e.redactRequest(desc)
	if ref := c.subagentRef(req.SessionID); ref != nil && p.Request != nil { // subagent.go
		p.Request.Subagent = ref
	}
	for _, o := range req.Options {
		p.Options = append(p.Options, hub.PermissionOption{OptionID: o.OptionID, Name: o.Name, Kind: o.Kind})
	}
	// The rules first: a request they decide is stored resolved and never
	// asked (no permission_required, no notification).
	if v := e.verdict(policyRequest(c.thread, p, env...)); v.Decided() {
		d, err := e.decideByRule(c.thread, p, v)
		if err != nil {
			return acp.RequestPermissionResponse{}, err
		}
		if d.Status == hub.PermissionApproved {
			tr.noteApproval(*d.DecidedAt, d)
		}
		return acp.Selected(d.OptionID), nil
	}
	pr := &permRT{perm: p, req: req, turn: tr, answer: make(chan acp.RequestPermissionResponse, 1), stored: make(chan struct{}), env: env}
	e.mu.Lock()
	limit := e.cfg.PendingPermissionsPerTurn
	if limit <= 0 {
		limit = DefaultPendingPermissionsPerTurn
	}
	if pending := len(ofTurnLocked(e.perms, tr)); pending >= limit {
		e.mu.Unlock()
		// Never raised: a flood of requests must not bury the window in
		// cards or the store in rows. The agent is refused at once.
		e.log.Warn("hub: permission refused: too many pending in the turn",
			"thread", c.thread.ID, "turn", tr.turn.ID, "toolCallId", toolCallID(req.ToolCall), "pending", pending, "limit", limit)
		return refusal(req), nil
	}
	e.perms[p.ID] = pr
	e.mu.Unlock()
	tr.wd.touch()
	tr.wd.pause()                   // the user's time is not the agent's silence
	if kind != hub.PermKindBudget { // nor its agent time (spend.go); a budget question holds no agent by itself
		tr.spend.waitBegin(now)
		defer func() { tr.spend.waitEnd(e.now()) }()
	}
	defer func() {
		e.mu.Lock()
		delete(e.perms, p.ID)
		e.mu.Unlock()
		tr.wd.resume()
	}()
	ev, _ := hub.NewEvent(hub.EventPermissionRequired, c.thread, tr.turn.ID, now, map[string]any{"permission": p})
	err := e.commit(&hub.Write{Permissions: []hub.Permission{p}, Events: []hub.Event{ev}})
	close(pr.stored)
	if err != nil {
		return acp.RequestPermissionResponse{}, err
	}

	expired, stop := e.after(e.until(p.Deadline)) // the engine's clock: clock.go
	defer stop()
	var escalation <-chan struct{} // nil: never
	if cfg.EscalateAfter > 0 && cfg.EscalateAfter < cfg.PermissionTimeout {
		var stopEscalation func() bool
		escalation, stopEscalation = e.after(e.until(now.Add(cfg.EscalateAfter)))
		defer stopEscalation()
	}
wait:
	select {
	case r := <-pr.answer:
		return r, nil
	case <-escalation:
		escalation = nil
		e.escalate(pr)
		goto wait
	case <-expired:
		e.resolve(pr, hub.PermissionExpired, "", hub.DecidedByTimeout)
	case <-ctx.Done():
		e.resolve(pr, hub.PermissionCancelled, "", tr.refuser())
	}
	select {
	case r := <-pr.answer: // ours, or a decision that won the race
		return r, nil
	case <-time.After(5 * time.Second): // the store failed: refuse
		return refusal(req), nil
	}
}

// toolCallID is the toolCallId of an agent's raw tool call, for logs ("" if
// it has none), at most 64 bytes of it.
func toolCallID(raw json.RawMessage) string {
	var tc struct {
		ToolCallID string `json:"toolCallId"`
	}
	_ = json.Unmarshal(raw, &tc)
	if len(tc.ToolCallID) > 64 {
		return tc.ToolCallID[:64] + "…"
	}
	return tc.ToolCallID
}

// refusal is what the agent is told when nobody approved: its reject_once
// option, or cancelled.
func refusal(req acp.RequestPermissionRequest) acp.RequestPermissionResponse {
	if o, ok := req.OptionOfKind(acp.RejectOnce); ok {
		return acp.Selected(o.OptionID)
	}
	return acp.Cancelled()
}

// resolve decides pr once: the decision is committed (single-use: a second
// one fails with CONFLICT), published, then handed to the waiting agent.
func (e *Engine) resolve(pr *permRT, status, optionID, decidedBy string) (hub.Permission, error) {
	return e.resolveRemember(pr, status, optionID, decidedBy, nil)
}

// resolveRemember is resolve that also stores rr (when not nil) in the
// same commit as the decision, and then puts it in effect.
func (e *Engine) resolveRemember(pr *permRT, status, optionID, decidedBy string, rr *hub.RememberedRule) (hub.Permission, error) {
	var r acp.RequestPermissionResponse
	switch status {
	case hub.PermissionApproved, hub.PermissionDeclined:
		r = acp.Selected(optionID)
		if optionID == "" { // declined, and the agent offered no reject option
			r = acp.Cancelled()
		}
	case hub.PermissionExpired:
		r = refusal(pr.req)
		optionID = r.Outcome.OptionID // the option sent, if any, is recorded (API.md)
	default:
		r = acp.Cancelled()
	}
	now := e.now()
	e.mu.Lock()
	p := pr.perm // escalate may have set EscalatedAt
	e.mu.Unlock()
	p.Status, p.OptionID, p.DecidedBy, p.DecidedAt = status, optionID, decidedBy, &now
	ev, _ := hub.NewEvent(hub.EventPermissionResolved, pr.turn.thread, p.TurnID, now, map[string]any{"permission": p})
	w := &hub.Write{Decide: &p, Events: []hub.Event{ev}}
	if rr != nil {
		// In effect before the decision is published: whoever sees the
		// decision (permission_resolved, the answer) finds its rule in
		// ListRules. Taken back if the write fails.
		w.Rules = []hub.RememberedRule{*rr}
		e.mu.Lock()
		e.addRememberedLocked(*rr)
		e.mu.Unlock()
	}
	if err := e.commit(w); err != nil {
		if rr != nil {
			e.mu.Lock()
			e.remembered = slices.DeleteFunc(slices.Clone(e.remembered), func(r hub.RememberedRule) bool { return r.ID == rr.ID })
			e.mu.Unlock()
		}
		return hub.Permission{}, err
	}
	if status == hub.PermissionApproved {
		pr.turn.noteApproval(now, p)
	}
	pr.answer <- r
	return p, nil
}

// waiting is what a turn waits on a person for: a pending permission
// (permRT) or elicitation (elicitRT).
type waiting interface{ waitingTurn() *turnRT }

func (pr *permRT) waitingTurn() *turnRT   { return pr.turn }
func (er *elicitRT) waitingTurn() *turnRT { return er.turn }

// ofTurnLocked lists the entries of m (e.perms, e.elicits) that tr waits
// on. e.mu must be held.
func ofTurnLocked[T waiting](m map[string]T, tr *turnRT) []T {
	var out []T
	for _, w := range m {
		if w.waitingTurn() == tr {
			out = append(out, w)
		}
	}
	return out
}

// cancelPending ends whatever tr still waits on a person for — its
// pending permissions, then its pending elicitations — since the turn is
// over and nobody may answer any more: decided by "cancel" when a caller
// cancelled the turn, else by "hub". Each end follows the insert it
// updates (stored); CONFLICT when one was decided meanwhile is fine.
func (e *Engine) cancelPending(tr *turnRT) {
	e.mu.Lock()
	perms := ofTurnLocked(e.perms, tr)
	e.mu.Unlock()
	for _, pr := range perms {
		<-pr.stored
		e.resolve(pr, hub.PermissionCancelled, "", tr.refuser())
	}
	e.mu.Lock()
	elicits := ofTurnLocked(e.elicits, tr)
	e.mu.Unlock()
	for _, er := range elicits {
		<-er.stored
		e.resolveElicitation(er, hub.ElicitationCancelled, tr.refuser(), nil)
	}
}

// escalate marks pr, still pending after permissions.escalateAfter, as
// escalated: EscalatedAt stored and a permission_escalated event. It
// decides nothing; when pr was decided meanwhile it does nothing.
func (e *Engine) escalate(pr *permRT) {
	now := e.now()
	e.mu.Lock()
	p := pr.perm
	e.mu.Unlock()
	p.EscalatedAt = &now
	ev, _ := hub.NewEvent(hub.EventPermissionEscalated, pr.turn.thread, p.TurnID, now, map[string]any{"permission": p})
	if err := e.commit(&hub.Write{Escalate: &p, Events: []hub.Event{ev}}); err != nil {
		if hub.ErrorCode(err) != hub.CodeConflict {
			e.log.Warn("hub: permission not escalated", "permission", p.ID, "err", err)
		}
		return
	}
	e.mu.Lock()
	pr.perm.EscalatedAt = &now
	e.mu.Unlock()
}

// ListPermissions implements Service: QueryPermissions' first page.
func (e *Engine) ListPermissions(ctx context.Context, c hub.Caller, status string) ([]hub.Permission, error) {
	page, err := e.QueryPermissions(ctx, c, hub.PermissionQuery{Status: status})
	return page.Permissions, err
}

// DecidePermission implements Service.
func (e *Engine) DecidePermission(ctx context.Context, c hub.Caller, id string, d hub.Decision) (hub.DecisionResult, error) {
	if err := checkCaller(c); err != nil {
		return hub.DecisionResult{}, err
	}
	p, err := e.store.GetPermission(ctx, id)
	if err != nil {
		return hub.DecisionResult{}, err
	}
	t, err := e.visibleThread(ctx, c, p.ThreadID)
	if err != nil {
		return hub.DecisionResult{}, hub.Errorf(hub.CodeNotFound, "permission %s not found", id)
	}
	if p.Status != hub.PermissionPending {
		return hub.DecisionResult{}, &hub.Error{Code: hub.CodeConflict, Message: "permission already " + p.Status, Details: map[string]any{"status": p.Status}}
	}
	status, optionID, err := chooseOption(p, d)
	if err != nil {
		return hub.DecisionResult{}, err
	}
	e.mu.Lock()
	pr := e.perms[id]
	e.mu.Unlock()
	if pr == nil {
		return hub.DecisionResult{}, hub.Errorf(hub.CodeConflict, "permission %s is no longer pending", id)
	}
	rr, shadow, err := e.rememberRule(c, t, p, d, status, optionID, pr.env)
	if err != nil {
		return hub.DecisionResult{}, err
	}
	res := hub.DecisionResult{ShadowedBy: shadow}
	store := rr
	if rr != nil {
		if x, ok := e.existingRule(*rr); ok {
			store, rr = nil, &x // already remembered: the same rule answers
		}
		res.Rule = rr
	}
	res.Permission, err = e.resolveRemember(pr, status, optionID, hub.DecidedByOf(c), store)
	if err != nil {
		return hub.DecisionResult{}, err
	}
	return res, nil
}

// chooseOption maps a decision to the agent's option: "approved" is its
// allow_once option, "declined" its reject_once (else reject_always), an
// optionId must be one it offered.
func chooseOption(p hub.Permission, d hub.Decision) (status, optionID string, err error) {
	byKind := func(kinds ...string) (string, bool) {
		for _, k := range kinds {
			for _, o := range p.Options {
				if o.Kind == k {
					return o.OptionID, true
				}
			}
		}
		return "", false
	}
	switch {
	case d.OptionID != "" && d.Outcome != "":
		return "", "", hub.Errorf(hub.CodeInvalidArgument, `give either "outcome" or "optionId"`)
	case d.OptionID != "":
		for _, o := range p.Options {
			if o.OptionID == d.OptionID {
				if strings.HasPrefix(o.Kind, "allow") {
					return hub.PermissionApproved, o.OptionID, nil
				}
				return hub.PermissionDeclined, o.OptionID, nil
			}
		}
		return "", "", hub.Errorf(hub.CodeInvalidArgument, "the agent offered no option %q", d.OptionID)
	case d.Outcome == "approved":
		if id, ok := byKind(acp.AllowOnce); ok {
			return hub.PermissionApproved, id, nil
		}
		return "", "", hub.Errorf(hub.CodeInvalidArgument, "the agent offers no allow_once option; choose one of its options by optionId")
	case d.Outcome == "declined":
		if id, ok := byKind(acp.RejectOnce, acp.RejectAlways); ok {
			return hub.PermissionDeclined, id, nil
		}
		return hub.PermissionDeclined, "", nil
	}
	return "", "", hub.Errorf(hub.CodeInvalidArgument, `outcome must be "approved" or "declined"`)
}
