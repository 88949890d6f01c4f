package editorbridge

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

// A permission pending in the hub is asked of the editor too; the first
// decision wins. The editor's answer goes to the hub (decidedBy
// "client:acp-<editor>", the bridge's client id: a token holder like any); a
// decision made in the hub first withdraws the editor's request.
//
// Beside the agent's own options, passed through unchanged, the editor is
// offered two of the bridge's: "Allow always in this thread (Switchboard)"
// and "Deny always in this thread (Switchboard)". Choosing one decides the
// request in the hub with remember "thread" (outcome approved or
// declined), so the hub decides the same request in this thread from then
// on, whatever the agent's own allow_always does. A request the hub never
// remembers (git's own settings, a spending limit: hub.Rememberable) gets
// neither, and loses the agent's own "always" options too.

// The option ids the bridge adds to a relayed permission request.
const (
	RememberAllowOptionID = "switchboard.remember.thread.allow"
	RememberDenyOptionID  = "switchboard.remember.thread.deny"
	// bridgeOptionPrefix marks the bridge's option ids: when an agent's
	// own options use it, the bridge adds none (an agent cannot make the
	// editor's choice of its option read as a remembered decision).
	bridgeOptionPrefix = "switchboard."
)

// editorOptions are the options the editor is offered for p: the agent's,
// unchanged, then the bridge's remember options (allow only when the
// agent offers allow_once, which outcome "approved" selects), and the
// hub decisions the bridge's options stand for.
func editorOptions(p hub.Permission) ([]acp.PermissionOption, map[string]hub.Decision) {
	if !hub.Rememberable(p.Kind) {
		var once []acp.PermissionOption
		for _, o := range agentOptions(p) {
			if o.Kind != acp.AllowAlways && o.Kind != acp.RejectAlways {
				once = append(once, o)
			}
		}
		return once, nil
	}
	opts := make([]acp.PermissionOption, 0, len(p.Options)+2)
	allowOnce := false
	for _, o := range p.Options {
		if strings.HasPrefix(o.OptionID, bridgeOptionPrefix) {
			return agentOptions(p), nil
		}
		allowOnce = allowOnce || o.Kind == acp.AllowOnce
		opts = append(opts, acp.PermissionOption{OptionID: o.OptionID, Name: o.Name, Kind: o.Kind})
	}
	ours := map[string]hub.Decision{
		RememberDenyOptionID: {Outcome: hub.PermissionDeclined, Remember: hub.RememberThread},
	}
	if allowOnce {
		ours[RememberAllowOptionID] = hub.Decision{Outcome: hub.PermissionApproved, Remember: hub.RememberThread}
		opts = append(opts, acp.PermissionOption{OptionID: RememberAllowOptionID, Name: "Allow always in this thread (Switchboard)", Kind: acp.AllowAlways})
	}
	opts = append(opts, acp.PermissionOption{OptionID: RememberDenyOptionID, Name: "Deny always in this thread (Switchboard)", Kind: acp.RejectAlways})
	return opts, ours
}

// agentOptions are p's options as ACP options, unchanged.
func agentOptions(p hub.Permission) []acp.PermissionOption {
	opts := make([]acp.PermissionOption, len(p.Options))
	for i, o := range p.Options {
		opts[i] = acp.PermissionOption{OptionID: o.OptionID, Name: o.Name, Kind: o.Kind}
	}
	return opts
}

// editorDecision is the hub decision for the editor's answer: one of the
// bridge's options (ours) is its remembered decision, any other selected
// option that exact option (the hub refuses one the agent did not offer),
// anything else declined.
func editorDecision(res acp.RequestPermissionResponse, ours map[string]hub.Decision) hub.Decision {
	if res.Outcome.Outcome != "selected" || res.Outcome.OptionID == "" {
		return hub.Decision{Outcome: hub.PermissionDeclined}
	}
	if d, ok := ours[res.Outcome.OptionID]; ok {
		return d
	}
	return hub.Decision{OptionID: res.Outcome.OptionID}
}

// permissionOf reads the permission of a permission_required or
// permission_resolved event.
func permissionOf(ev hub.Event) (hub.Permission, bool) {
	var p struct {
		Permission hub.Permission `json:"permission"`
	}
	return p.Permission, json.Unmarshal(ev.Payload, &p) == nil && p.Permission.ID != ""
}

// askEditor sends session/request_permission for a permission pending in
// the hub. The editor's answer is posted to the hub as the bridge's client; when
// the hub decides first (permission_resolved), the editor's request is
// cancelled with $/cancel_request and a late answer is ignored.
func (t *turnRelay) askEditor(p hub.Permission) {
	ctx, cancel := context.WithCancel(t.ctx)
	t.mu.Lock()
	if _, dup := t.perms[p.ID]; dup {
		t.mu.Unlock()
		cancel()
		return
	}
	t.perms[p.ID] = cancel
	t.mu.Unlock()
	b := t.b
	opts, ours := editorOptions(p)
	req := acp.RequestPermissionRequest{SessionID: t.sessionID, ToolCall: editorToolCall(p), Options: opts}
	b.bg.Go(func() {
		defer cancel()
		var res acp.RequestPermissionResponse
		err := b.conn.Call(ctx, "session/request_permission", req, &res)
		if ctx.Err() != nil {
			return // decided in the hub first (or the turn ended)
		}
		if err != nil {
			b.log.Warn("switchboard acp: the editor did not answer a permission request", "permission", p.ID, "err", err)
			return // still pending in the hub: decided there, or it expires
		}
		d := editorDecision(res, ours)
		pctx, pcancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer pcancel()
		r, err := b.hub.DecideResult(pctx, p.ID, d)
		if client.IsCode(err, hub.CodeConflict) {
			return // the hub decided first: the editor's answer is moot
		}
		if err != nil {
			b.log.Warn("switchboard acp: sending the editor's decision failed", "permission", p.ID, "err", err)
			return
		}
		if r.Rule != nil {
			b.log.Info("switchboard acp: the editor's decision is remembered for the thread", "permission", p.ID,
				"rule", r.Rule.ID, "decision", r.Rule.Decision, "shadowedBy", r.ShadowedBy)
		}
	})
}

// resolved cancels the editor's request for a permission the hub decided.
func (t *turnRelay) resolved(id string) {
	t.mu.Lock()
	cancel := t.perms[id]
	t.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}
