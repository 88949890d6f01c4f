//go:build unix

package engine_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/engine"
	"github.com/switchboard-hub/switchboard/hub/policy"
)

// withRules sets the engine's config rules.
func withRules(t testing.TB, rules ...hub.PermissionRule) func(*engine.Config) {
	p, err := policy.Compile(rules)
	if err != nil {
		t.Fatal(err)
	}
	return func(c *engine.Config) { c.Rules = p }
}

// askInput is the fake agent's "ask" script for a tool call and the
// usual three options.
func askInput(toolCall map[string]any) string {
	b, _ := json.Marshal(map[string]any{"toolCall": toolCall, "options": []map[string]string{
		{"optionId": "allow-once", "name": "Allow", "kind": "allow_once"},
		{"optionId": "allow-always", "name": "Always", "kind": "allow_always"},
		{"optionId": "reject-once", "name": "Reject", "kind": "reject_once"},
	}})
	return "ask " + string(b)
}

// types lists the event types of a thread's history.
func (h *harness) types(th hub.Thread) []string {
	h.t.Helper()
	hist, err := h.e.History(context.Background(), alice, th.ID, true, false)
	if err != nil {
		h.t.Fatal(err)
	}
	var out []string
	for _, turn := range hist {
		for _, ev := range turn.Events {
			out = append(out, ev.Type)
		}
	}
	return out
}

func TestRuleDecidesWithoutAsking(t *testing.T) {
	for _, tt := range []struct {
		name, decision, option, status string
	}{
		{"allow", "allow", "allow-once", hub.PermissionApproved},
		{"allow_always", "allow_always", "allow-always", hub.PermissionApproved},
		{"deny", "deny", "reject-once", hub.PermissionDeclined},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withRules(t, hub.PermissionRule{Name: "make-" + tt.name, Agents: []string{"fake"}, Kinds: []string{"execute"}, Match: `^make`, Decision: tt.decision}))
			th := h.thread("fake")
			sub := h.watch(th)
			turn := h.run(th, sub, "permission")
			if !strings.HasSuffix(turn.Output, "outcome: selected "+tt.option) {
				t.Fatalf("agent said %q", turn.Output)
			}
			types := strings.Join(h.types(th), ",")
			if strings.Contains(types, hub.EventPermissionRequired) || !strings.Contains(types, hub.EventPermissionResolved) {
				t.Fatalf("events %s: want permission_resolved only", types)
			}
			ps, err := h.e.ListPermissions(context.Background(), alice, "")
			if err != nil || len(ps) != 1 {
				t.Fatalf("%+v %v", ps, err)
			}
			p := ps[0]
			if p.Status != tt.status || p.DecidedBy != "rule:make-"+tt.name || p.OptionID != tt.option || p.Agent != "fake" || p.DecidedAt == nil {
				t.Fatalf("stored %+v", p)
			}
		})
	}
}

// An allow rule with match but no agents named never applies to kind
// execute; ask stops the search; a decision the options cannot express
// asks.
func TestRuleSafety(t *testing.T) {
	h := newHarness(t, withRules(t,
		hub.PermissionRule{Name: "loose", Match: `^make`, Decision: "allow"},
		hub.PermissionRule{Name: "reads", Kinds: []string{"read"}, Inside: "folder", Decision: "allow"},
	))
	th := h.thread("fake")
	sub := h.watch(th)
	ctx := context.Background()
	if _, err := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "permission"}); err != nil {
		t.Fatal(err)
	}
	p := payload[hub.Permission](t, until(t, sub, hub.EventPermissionRequired), "permission")
	if _, err := h.e.DecidePermission(ctx, alice, p.ID, hub.Decision{Outcome: "declined"}); err != nil {
		t.Fatal(err)
	}
	until(t, sub, hub.EventTurnCompleted)

	// A symlink inside the folder that points out of it: not inside.
	out := t.TempDir()
	if err := os.Symlink(out, filepath.Join(h.cwd, "escape")); err != nil {
		t.Fatal(err)
	}
	for _, loc := range []string{filepath.Join(h.cwd, "escape", "secret"), "relative/path", filepath.Join(h.cwd, "..", filepath.Base(out), "x")} {
		if _, err := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: askInput(map[string]any{
			"toolCallId": "r1", "kind": "read", "title": "Read", "locations": []map[string]string{{"path": loc}}})}); err != nil {
			t.Fatal(err)
		}
		p := payload[hub.Permission](t, until(t, sub, hub.EventPermissionRequired), "permission")
		h.e.DecidePermission(ctx, alice, p.ID, hub.Decision{Outcome: "declined"})
		until(t, sub, hub.EventTurnCompleted)
	}
	// Inside, resolved: allowed without asking.
	os.WriteFile(filepath.Join(h.cwd, "in.txt"), []byte("x"), 0o600)
	turn := h.run(th, sub, askInput(map[string]any{"toolCallId": "r2", "kind": "read", "title": "Read", "locations": []map[string]string{{"path": filepath.Join(h.cwd, "in.txt")}}}))
	if !strings.Contains(turn.Output, `"optionId":"allow-once"`) {
		t.Fatalf("read inside: %q", turn.Output)
	}
	// No kind, no title: never allowed, even by a rule for everything.
	h.e.SetConfig(func() engine.Config {
		c := h.e.Config()
		c.Rules, _ = policy.Compile([]hub.PermissionRule{{Name: "all", Decision: "allow"}})
		return c
	}())
	if _, err := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: askInput(map[string]any{"toolCallId": "r3"})}); err != nil {
		t.Fatal(err)
	}
	p = payload[hub.Permission](t, until(t, sub, hub.EventPermissionRequired), "permission")
	h.e.DecidePermission(ctx, alice, p.ID, hub.Decision{Outcome: "declined"})
	until(t, sub, hub.EventTurnCompleted)
}

// The hub's own permission (a read outside the thread's folders) goes
// through the rules too.
func TestRuleDecidesHubPermission(t *testing.T) {
	outside := t.TempDir()
	f := filepath.Join(outside, "notes.txt")
	os.WriteFile(f, []byte("outside notes"), 0o600)
	h := newHarness(t, withRules(t, hub.PermissionRule{Name: "outside-reads", Kinds: []string{"read"}, Decision: "allow"}))
	th := h.thread("fake")
	sub := h.watch(th)
	turn := h.run(th, sub, "fs-read "+f)
	if !strings.Contains(turn.Output, "fs-read ok: outside notes") {
		t.Fatalf("agent said %q", turn.Output)
	}
	ps, _ := h.e.ListPermissions(context.Background(), alice, "")
	if len(ps) != 1 || ps[0].DecidedBy != "rule:outside-reads" {
		t.Fatalf("%+v", ps)
	}
}

func TestRememberedDecision(t *testing.T) {
	h := newHarness(t, withRules(t, hub.PermissionRule{Name: "edits-ask", Kinds: []string{"edit"}, Decision: "ask"}))
	ctx := context.Background()
	th, other := h.thread("fake"), h.thread("fake")
	sub, osub := h.watch(th), h.watch(other)

	// The agent's own allow_always for a read adds no hub rule (for a
	// command it does: remember_exact_test.go).
	read := askInput(map[string]any{"toolCallId": "r1", "kind": "read", "title": "Read x", "locations": []map[string]string{{"path": filepath.Join(h.cwd, "x")}}})
	h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: read})
	p := payload[hub.Permission](t, until(t, sub, hub.EventPermissionRequired), "permission")
	res, err := h.e.DecidePermission(ctx, alice, p.ID, hub.Decision{OptionID: "allow-always", Remember: "thread"})
	if err != nil || res.Rule != nil {
		t.Fatalf("allow_always: %+v %v", res, err)
	}
	until(t, sub, hub.EventTurnCompleted)

	// Remembered for the thread: the next identical request passes.
	h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "permission"})
	p = payload[hub.Permission](t, until(t, sub, hub.EventPermissionRequired), "permission")
	if _, err := h.e.DecidePermission(ctx, alice, p.ID, hub.Decision{Outcome: "approved", Remember: "galaxy"}); hub.ErrorCode(err) != hub.CodeInvalidArgument {
		t.Fatalf("remember galaxy: %v", err)
	}
	res, err = h.e.DecidePermission(ctx, alice, p.ID, hub.Decision{Outcome: "approved", Remember: "thread"})
	if err != nil || res.Rule == nil || res.Rule.Scope != "thread" || res.Rule.ThreadID != th.ID || res.Rule.Kind != "execute" ||
		res.Rule.Command != "make clean" || res.Rule.Decision != "allow" || res.Rule.ClientID != "alice" || res.ShadowedBy != "" {
		t.Fatalf("remember: %+v %v", res, err)
	}
	until(t, sub, hub.EventTurnCompleted)
	turn := h.run(th, sub, "permission")
	if !strings.HasSuffix(turn.Output, "outcome: selected allow-once") {
		t.Fatalf("second request: %q", turn.Output)
	}
	page, _ := h.e.QueryPermissions(ctx, alice, hub.PermissionQuery{ThreadID: th.ID, Limit: 1})
	if len(page.Permissions) != 1 || page.Permissions[0].DecidedBy != "remembered:"+res.Rule.ID || page.NextCursor == "" {
		t.Fatalf("newest %+v", page)
	}
	// Not in another thread.
	h.e.StartTurn(ctx, alice, other.ID, hub.TurnInput{Input: "permission"})
	p = payload[hub.Permission](t, until(t, osub, hub.EventPermissionRequired), "permission")
	// A declined edit remembered for the folder, shadowed by the ask rule.
	h.e.DecidePermission(ctx, alice, p.ID, hub.Decision{Outcome: "declined"})
	until(t, osub, hub.EventTurnCompleted)
	edit := askInput(map[string]any{"toolCallId": "e1", "kind": "edit", "title": "Edit x", "locations": []map[string]string{{"path": filepath.Join(h.cwd, "x")}}})
	h.e.StartTurn(ctx, alice, other.ID, hub.TurnInput{Input: edit})
	p = payload[hub.Permission](t, until(t, osub, hub.EventPermissionRequired), "permission")
	res2, err := h.e.DecidePermission(ctx, alice, p.ID, hub.Decision{Outcome: "declined", Remember: "folder"})
	if err != nil || res2.Rule == nil || res2.Rule.Decision != "deny" || res2.Rule.Command != "" || res2.ShadowedBy != "edits-ask" {
		t.Fatalf("remember a decline: %+v %v", res2, err)
	}
	until(t, osub, hub.EventTurnCompleted)

	// Listed for alice, not bob; bob cannot delete it; the rules survive
	// a restart; deleting one puts the question back.
	bob := hub.Caller{ClientID: "bob"}
	if rs, _ := h.e.ListRules(ctx, bob); len(rs) != 0 {
		t.Fatalf("bob sees %+v", rs)
	}
	if err := h.e.DeleteRule(ctx, bob, res.Rule.ID); hub.ErrorCode(err) != hub.CodeNotFound {
		t.Fatalf("bob deletes: %v", err)
	}
	h.close()
	h.open(h.e.Config(), []acp.AgentSpec{fakeSpec(t, "fake")})
	rs, _ := h.e.ListRules(ctx, alice)
	if len(rs) != 2 || rs[0].ID != res.Rule.ID || rs[1].ID != res2.Rule.ID {
		t.Fatalf("after restart %+v", rs)
	}
	if err := h.e.DeleteRule(ctx, alice, res.Rule.ID); err != nil {
		t.Fatal(err)
	}
	sub = h.watch(th)
	h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "permission"})
	p = payload[hub.Permission](t, until(t, sub, hub.EventPermissionRequired), "permission")
	h.e.DecidePermission(ctx, alice, p.ID, hub.Decision{Outcome: "declined"})
	until(t, sub, hub.EventTurnCompleted)
	// Deleting the thread deletes its rules.
	if err := h.e.DeleteThread(ctx, alice, other.ID); err != nil {
		t.Fatal(err)
	}
	if rs, _ := h.e.ListRules(ctx, alice); len(rs) != 1 {
		t.Fatalf("after delete %+v", rs) // the folder rule has no thread
	}
}

func TestBatchDecide(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	a, b := h.thread("fake"), h.thread("fake")
	asub, bsub := h.watch(a), h.watch(b)
	h.e.StartTurn(ctx, alice, a.ID, hub.TurnInput{Input: "permissions 2"})
	h.e.StartTurn(ctx, alice, b.ID, hub.TurnInput{Input: "permission"})
	var ids []string
	waitUntil(t, "three pending permissions", func() bool {
		ps, _ := h.e.ListPermissions(ctx, alice, hub.PermissionPending)
		ids = ids[:0]
		for _, p := range ps {
			ids = append(ids, p.ID)
		}
		return len(ps) == 3
	})
	if _, err := h.e.DecidePermissions(ctx, alice, hub.BatchDecision{IDs: ids, Outcome: "maybe"}); hub.ErrorCode(err) != hub.CodeInvalidArgument {
		t.Fatalf("outcome maybe: %v", err)
	}
	res, err := h.e.DecidePermissions(ctx, alice, hub.BatchDecision{IDs: append(ids, ids[0], "pm_nope"), Outcome: "approved"})
	if err != nil || len(res.Results) != 5 {
		t.Fatalf("%+v %v", res, err)
	}
	for i, r := range res.Results[:3] {
		if r.ID != ids[i] || r.Permission == nil || r.Permission.Status != hub.PermissionApproved || r.Permission.DecidedBy != "client:alice" {
			t.Fatalf("result %d: %+v", i, r)
		}
	}
	if e := res.Results[3].Error; e == nil || e.Code != "CONFLICT" {
		t.Fatalf("again: %+v", res.Results[3])
	}
	if e := res.Results[4].Error; e == nil || e.Code != "NOT_FOUND" {
		t.Fatalf("unknown: %+v", res.Results[4])
	}
	if out := payload[hub.Turn](t, until(t, asub, hub.EventTurnCompleted), "turn").Output; !strings.Contains(out, "selected:allow-once=2") {
		t.Fatalf("a: %q", out)
	}
	if out := payload[hub.Turn](t, until(t, bsub, hub.EventTurnCompleted), "turn").Output; !strings.HasSuffix(out, "selected allow-once") {
		t.Fatalf("b: %q", out)
	}
}

func TestEscalation(t *testing.T) {
	h := newClockHarness(t, func(c *engine.Config) { c.EscalateAfter = time.Minute; c.PermissionTimeout = 10 * time.Minute })
	ctx := context.Background()
	th := h.thread("fake")
	sub := h.watch(th)
	h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "permission"})
	p := payload[hub.Permission](t, until(t, sub, hub.EventPermissionRequired), "permission")
	h.clock.advanceOnce(t, time.Minute) // escalated on the engine's clock
	esc := payload[hub.Permission](t, until(t, sub, hub.EventPermissionEscalated), "permission")
	if esc.ID != p.ID || esc.Status != hub.PermissionPending || esc.EscalatedAt == nil {
		t.Fatalf("escalated %+v", esc)
	}
	stored, _ := h.e.QueryPermissions(ctx, alice, hub.PermissionQuery{Status: "pending"})
	if len(stored.Permissions) != 1 || stored.Permissions[0].EscalatedAt == nil {
		t.Fatalf("stored %+v", stored)
	}
	// Escalation never approves: the request is still a person's.
	res, err := h.e.DecidePermission(ctx, alice, p.ID, hub.Decision{Outcome: "declined"})
	if err != nil || res.Permission.Status != hub.PermissionDeclined || res.Permission.EscalatedAt == nil {
		t.Fatalf("%+v %v", res, err)
	}
	until(t, sub, hub.EventTurnCompleted)
}

func TestAuditQuery(t *testing.T) {
	h := newHarness(t, withRules(t, hub.PermissionRule{Name: "deny-make", Agents: []string{"fake"}, Match: "make", Decision: "deny"}))
	ctx := context.Background()
	th := h.thread("fake")
	sub := h.watch(th)
	for range 3 {
		h.run(th, sub, "permission")
	}
	h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: askInput(map[string]any{"toolCallId": "x", "kind": "read", "title": "Read"})})
	p := payload[hub.Permission](t, until(t, sub, hub.EventPermissionRequired), "permission")
	h.e.DecidePermission(ctx, alice, p.ID, hub.Decision{Outcome: "approved"})
	until(t, sub, hub.EventTurnCompleted)

	all, _ := h.e.QueryPermissions(ctx, alice, hub.PermissionQuery{})
	if len(all.Permissions) != 4 || all.Permissions[0].ID != p.ID || all.NextCursor != "" {
		t.Fatalf("all %+v", all)
	}
	var seen []string
	q := hub.PermissionQuery{DecidedBy: "rule:", Agent: "fake", Limit: 2}
	for {
		page, err := h.e.QueryPermissions(ctx, alice, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range page.Permissions {
			if x.DecidedBy != "rule:deny-make" {
				t.Fatalf("filter let through %+v", x)
			}
			seen = append(seen, x.ID)
		}
		if page.NextCursor == "" {
			break
		}
		q.Cursor = page.NextCursor
	}
	if len(seen) != 3 || seen[0] == seen[1] || seen[1] == seen[2] {
		t.Fatalf("paged %v", seen)
	}
	for _, q := range []hub.PermissionQuery{{Agent: "other"}, {DecidedBy: "rule:x"}, {ThreadID: "th_nope"}, {From: time.Now().Add(time.Hour).Format(time.RFC3339)}, {To: "2000-01-01T00:00:00Z"}} {
		if page, err := h.e.QueryPermissions(ctx, alice, q); err != nil || len(page.Permissions) != 0 {
			t.Errorf("%+v: %+v %v", q, page, err)
		}
	}
	for _, q := range []hub.PermissionQuery{{Status: "maybe"}, {From: "yesterday"}, {Limit: 501}, {Limit: -1}, {Cursor: "!!"}} {
		if _, err := h.e.QueryPermissions(ctx, alice, q); hub.ErrorCode(err) != hub.CodeInvalidArgument {
			t.Errorf("%+v: %v", q, err)
		}
	}
	if page, _ := h.e.QueryPermissions(ctx, hub.Caller{ClientID: "bob"}, hub.PermissionQuery{}); len(page.Permissions) != 0 {
		t.Fatalf("bob sees %+v", page)
	}
}

// An agent that asks before it runs a command through the hub's
// terminals: a rule approves its request, and that approval serves the
// terminal/create of the same command (no second request); without the
// rule, the hub's own terminal permission is decided by a rule naming
// the command line.
func TestRuleApprovesTerminal(t *testing.T) {
	h := newHarness(t, withRules(t,
		hub.PermissionRule{Name: "echo", Agents: []string{"fake"}, Kinds: []string{"execute"}, Match: `^(Run )?echo hi$`, Decision: "allow"}))
	th := h.thread("fake")
	sub := h.watch(th)
	turn := h.run(th, sub, "ask-terminal echo hi")
	if !strings.Contains(turn.Output, "terminal exit 0") || !strings.Contains(turn.Output, "hi") {
		t.Fatalf("agent said %q", turn.Output)
	}
	// The agent's request, decided by the rule; the terminal it covered,
	// recorded with what ran (newest first).
	ps, _ := h.e.ListPermissions(context.Background(), alice, "")
	if len(ps) != 2 || ps[1].DecidedBy != "rule:echo" || ps[1].Kind != hub.PermKindAgent ||
		ps[0].DecidedBy != hub.DecidedByCoveredPrefix+ps[1].ID || ps[0].Kind != hub.PermKindTerminal ||
		ps[0].Request == nil || strings.Join(ps[0].Request.Argv, " ") != "echo hi" || ps[0].Request.Cwd == "" {
		t.Fatalf("permissions %+v: want the agent's, decided by the rule, and the terminal it covered", ps)
	}
	// The hub's own terminal permission (the agent did not ask first).
	turn = h.run(th, sub, "terminal echo hi")
	if !strings.Contains(turn.Output, "terminal exit 0") {
		t.Fatalf("agent said %q", turn.Output)
	}
	ps, _ = h.e.ListPermissions(context.Background(), alice, "")
	if len(ps) != 3 || ps[0].DecidedBy != "rule:echo" || ps[0].Kind != hub.PermKindTerminal || !strings.Contains(string(ps[0].ToolCall), "hub_terminal_") {
		t.Fatalf("permissions %+v: want the hub's terminal permission decided by the rule", ps)
	}
}
