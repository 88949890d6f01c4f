package editorbridge

import (
	"context"
	"encoding/json"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

// A permission pending in the hub is asked of the editor too; the first
// decision wins. The editor's answer goes to the hub (decidedBy
// "client:acp-<editor>", the bridge's client id: a token holder like any); a
// decision made in the hub first withdraws the editor's request.

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
	opts := make([]acp.PermissionOption, len(p.Options))
	for i, o := range p.Options {
		opts[i] = acp.PermissionOption{OptionID: o.OptionID, Name: o.Name, Kind: o.Kind}
	}
	req := acp.RequestPermissionRequest{SessionID: t.sessionID, ToolCall: p.ToolCall, Options: opts}
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
		var d hub.Decision
		if res.Outcome.Outcome == "selected" && res.Outcome.OptionID != "" {
			d.OptionID = res.Outcome.OptionID
		} else {
			d.Outcome = hub.PermissionDeclined
		}
		pctx, pcancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer pcancel()
		_, err = b.hub.Decide(pctx, p.ID, d)
		if client.IsCode(err, hub.CodeConflict) {
			return // the hub decided first: the editor's answer is moot
		}
		if err != nil {
			b.log.Warn("switchboard acp: sending the editor's decision failed", "permission", p.ID, "err", err)
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
