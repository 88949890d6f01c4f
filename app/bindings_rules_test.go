//go:build unix

package app

import (
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// The window's approvals bindings over a real engine: remember (recorded
// as made by the window), the rules list and delete, a batch, the audit.
func TestBindingsApprovals(t *testing.T) {
	b, rec, _, cwd := bindingsHub(t)
	if err := b.Subscribe(-1); err != nil {
		t.Fatal(err)
	}
	pending := func(turnID string) hub.Permission {
		t.Helper()
		e := rec.waitFor(t, "permission_required", func(_ emitted, e hub.Event) bool {
			return e.Type == hub.EventPermissionRequired && e.TurnID == turnID
		})
		page, err := b.QueryPermissions(hub.PermissionQuery{Status: hub.PermissionPending, ThreadID: e.ThreadID})
		if err != nil || len(page.Permissions) != 1 {
			t.Fatalf("QueryPermissions = %+v, %v", page, err)
		}
		return page.Permissions[0]
	}
	done := func(turnID string) {
		t.Helper()
		rec.waitFor(t, "turn_completed", func(_ emitted, e hub.Event) bool { return e.Type == hub.EventTurnCompleted && e.TurnID == turnID })
	}

	th, err := b.CreateThread(hub.CreateThreadRequest{Agent: "fake", Cwd: cwd})
	if err != nil {
		t.Fatal(err)
	}
	turn, _ := b.StartTurn(th.ID, hub.TurnInput{Input: "permission"})
	p := pending(turn.ID)
	res, err := b.DecidePermission(p.ID, hub.Decision{Outcome: "approved", Remember: hub.RememberThread})
	if err != nil || res.Rule == nil || res.Rule.CreatedBy != "window" || res.Rule.ClientID != "" || res.Permission.DecidedBy != "window" {
		t.Fatalf("DecidePermission = %+v, %v", res, err)
	}
	done(turn.ID)
	rules, err := b.ListRules()
	if err != nil || len(rules) != 1 || rules[0].ID != res.Rule.ID {
		t.Fatalf("ListRules = %+v, %v", rules, err)
	}
	turn, _ = b.StartTurn(th.ID, hub.TurnInput{Input: "permission"})
	done(turn.ID)
	page, err := b.QueryPermissions(hub.PermissionQuery{DecidedBy: hub.DecidedByRememberedPrefix})
	if err != nil || len(page.Permissions) != 1 || page.Permissions[0].TurnID != turn.ID {
		t.Fatalf("audit = %+v, %v", page, err)
	}
	if err := b.DeleteRule(res.Rule.ID); err != nil {
		t.Fatal(err)
	}
	if err := b.DeleteRule(res.Rule.ID); hub.ErrorCode(err) != hub.CodeNotFound {
		t.Fatalf("second delete: %v", err)
	}

	turn, _ = b.StartTurn(th.ID, hub.TurnInput{Input: "permission"})
	p = pending(turn.ID)
	batch, err := b.DecidePermissions(hub.BatchDecision{IDs: []string{p.ID, p.ID}, Outcome: "declined"})
	if err != nil || len(batch.Results) != 2 || batch.Results[0].Permission == nil || batch.Results[0].Permission.DecidedBy != "window" ||
		batch.Results[1].Error == nil || batch.Results[1].Error.Code != hub.CodeConflict {
		t.Fatalf("DecidePermissions = %+v, %v", batch, err)
	}
	done(turn.ID)
}
