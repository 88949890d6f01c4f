//go:build linux

package tray

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
	"github.com/switchboard-hub/switchboard/hub"
)

// The tray's "Always allow in this thread" and "Always deny in this
// thread" against the real headless hub: each decides the request with
// remember "thread" as the tray (client:switchboard-tray: a tray started
// by hand; the app's own tray is "tray", app/traychild_test.go), the hub
// adds a rule created by the tray, and the same request again in that
// thread is decided by the rule without ever showing in the tray; another
// thread is asked.
func TestRealHubRemember(t *testing.T) {
	h := newRealHub(t)
	h.start()
	got := newMenus()
	w := &Watcher{DataDir: h.dataDir, Publish: got.publish, Log: quietLog()}
	runWatcher(t, w)
	ctx := context.Background()
	got.waitFor(t, "idle", 10*time.Second, func(m Menu) bool { return m.Icon == IconIdle })

	th := h.createThread("Clean up")
	h.askPermission(th.ID)
	m := got.waitFor(t, "a permission", 10*time.Second, func(m Menu) bool { return len(m.Permissions) == 1 })
	it := m.Permissions[0]
	if it.RememberAllow == nil || it.RememberDeny == nil {
		t.Fatalf("entry %+v: want both remember choices", it)
	}
	if err := w.Decide(ctx, it.ID, *it.RememberAllow); err != nil {
		t.Fatal(err)
	}
	got.waitFor(t, "idle after the turn", 10*time.Second, func(m Menu) bool { return m.Icon == IconIdle })
	ps := h.permissions()
	if len(ps) != 1 || ps[0].Status != hub.PermissionApproved || ps[0].DecidedBy != "client:switchboard-tray" || ps[0].OptionID != "allow-once" {
		t.Fatalf("permissions %+v, want one approved (allow-once) by client:switchboard-tray", ps)
	}
	rules, err := w.Client().Rules(ctx)
	if err != nil || len(rules) != 1 {
		t.Fatalf("rules %+v %v, want one", rules, err)
	}
	allow := rules[0]
	if allow.Scope != hub.RememberThread || allow.ThreadID != th.ID || allow.Decision != hub.RuleAllow ||
		allow.CreatedBy != "client:switchboard-tray" || allow.PermissionID != it.ID {
		t.Errorf("rule %+v", allow)
	}

	// The same request again: the rule decides; the tray never shows it.
	got.mu.Lock()
	from := len(got.all)
	got.mu.Unlock()
	h.askPermission(th.ID)
	var again hub.Permission
	if !testkit.Until(10*time.Second, func() bool {
		for _, p := range h.permissions() {
			if p.ID != it.ID {
				again = p
			}
		}
		return again.Status != "" && again.Status != hub.PermissionPending
	}) {
		t.Fatalf("the same request again: %+v\n%s", again, h.logText())
	}
	if again.Status != hub.PermissionApproved || again.DecidedBy != "remembered:"+allow.ID {
		t.Errorf("the same request again: %+v, want approved by remembered:%s", again, allow.ID)
	}
	var turns []hub.TurnHistory
	var histErr error
	if !testkit.Until(10*time.Second, func() bool {
		turns, histErr = h.script.History(ctx, th.ID, false)
		return histErr == nil && len(turns) == 2 && turns[1].Ended()
	}) {
		t.Fatalf("the turn of the remembered request did not end: %+v %v", turns, histErr)
	}
	// A permission shown would be published within publishInterval.
	testkit.Never(t, 3*publishInterval, "the tray showed a request its rule decided", func() bool {
		got.mu.Lock()
		defer got.mu.Unlock()
		return slices.ContainsFunc(got.all[from:], func(m Menu) bool { return len(m.Permissions) > 0 || m.Title != "" })
	})
	got.mu.Lock()
	for _, m := range got.all[from:] {
		if len(m.Permissions) > 0 || m.Title != "" {
			t.Errorf("the tray showed a request its rule decided: %s", dump(m))
		}
	}
	got.mu.Unlock()

	// Another thread: asked; "Always deny in this thread" refuses it and
	// remembers that for its thread.
	th2 := h.createThread("Other")
	h.askPermission(th2.ID)
	m = got.waitFor(t, "the other thread's permission", 10*time.Second, func(m Menu) bool { return len(m.Permissions) == 1 })
	it2 := m.Permissions[0]
	if err := w.Decide(ctx, it2.ID, *it2.RememberDeny); err != nil {
		t.Fatal(err)
	}
	got.waitFor(t, "idle after the deny", 10*time.Second, func(m Menu) bool { return m.Icon == IconIdle })
	rules, err = w.Client().Rules(ctx)
	if err != nil || len(rules) != 2 {
		t.Fatalf("rules %+v %v, want two", rules, err)
	}
	for _, r := range rules {
		if r.ThreadID == th2.ID && (r.Decision != hub.RuleDeny || r.CreatedBy != "client:switchboard-tray") {
			t.Errorf("deny rule %+v", r)
		}
	}
	for _, p := range h.permissions() {
		if p.ID == it2.ID && (p.Status != hub.PermissionDeclined || p.DecidedBy != "client:switchboard-tray") {
			t.Errorf("the other thread's permission %+v, want declined by client:switchboard-tray", p)
		}
	}
}

// A request still pending after permissions.escalateAfter puts the tray in
// its escalated state, from the permission_escalated event and, for a
// tray that connects later, from escalatedAt in the snapshot; deciding it
// ends the state.
func TestRealHubEscalated(t *testing.T) {
	h := newRealHub(t, map[string]any{"permissions": map[string]any{"timeout": "10m", "escalateAfter": "1s"}})
	h.start()
	got := newMenus()
	w := &Watcher{DataDir: h.dataDir, Publish: got.publish, Log: quietLog()}
	runWatcher(t, w)
	ctx := context.Background()
	got.waitFor(t, "idle", 10*time.Second, func(m Menu) bool { return m.Icon == IconIdle })

	th := h.createThread("Clean up")
	h.askPermission(th.ID)
	// (Under load the first menu may already be escalated.)
	got.waitFor(t, "a permission", 10*time.Second, func(m Menu) bool { return m.Icon == IconNeedsYou || m.Icon == IconEscalated })
	escalated := func(m Menu) bool {
		return m.Icon == IconEscalated && m.Title == "1!" && len(m.Permissions) == 1 && m.Permissions[0].Escalated &&
			m.Permissions[0].Title == "⚠ Fake: make clean" &&
			m.Status == "1 agent working · 1 approval waiting · 1 waiting too long: needs you"
	}
	m := got.waitFor(t, "the escalated state", 10*time.Second, escalated, h.logText)

	// A tray that connects now learns it from the snapshot.
	late := newMenus()
	runWatcher(t, &Watcher{DataDir: h.dataDir, Publish: late.publish, Log: quietLog()})
	late.waitFor(t, "the escalated state from the snapshot", 10*time.Second, escalated)

	if err := w.Decide(ctx, m.Permissions[0].ID, *m.Permissions[0].Deny); err != nil {
		t.Fatal(err)
	}
	got.waitFor(t, "idle after the decision", 10*time.Second, func(m Menu) bool { return m.Icon == IconIdle && m.Title == "" })
	late.waitFor(t, "the late tray idle", 10*time.Second, func(m Menu) bool { return m.Icon == IconIdle })
	if ps := h.permissions(); len(ps) != 1 || ps[0].Status != hub.PermissionDeclined || ps[0].EscalatedAt == nil {
		t.Errorf("permissions %+v, want one declined, escalated before", ps)
	}
}
