//go:build linux

package systest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/fakemodel"
	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
)

// TestE2EBudgetPause drives the budgets in tokens and minutes through the
// real `switchboard serve` and the fake agent (issue 33):
//   - a turn of an agent that reports tokens but no cost crosses the
//     tokens limit: the hub raises the budget permission and holds the
//     agent's next request (its own permission) until "allow-more", then
//     the turn finishes;
//   - a turn whose tokens jump past the limit plus the grace is cancelled
//     at that report, and the next is refused (409 BUDGET_EXCEEDED,
//     tokens.perThread);
//   - an agent that reports nothing is held by its agent time: asked at
//     the limit, cancelled at the grace, and the usage answer says it is
//     held by minutes.
func TestE2EBudgetPause(t *testing.T) {
	bins := buildE2E(t)
	fake := fakeAgentConf(t, "FAKEAGENT_UNIQUE_SESSIONS=1")
	h := newHub(t, bins, hubConfig{
		"budgets": map[string]any{"currency": "USD", "grace": 0.5,
			"tokens":  map[string]any{"perThread": 1000},
			"minutes": map[string]any{"agents": map[string]any{"silent": map[string]any{"daily": 0.02}}}},
		"agents": map[string]agentConf{"fake": fake, "silent": fake},
	})
	cwd := t.TempDir()

	// The pause that asks, and allow more.
	th := h.newThread("fake", cwd)
	tu := h.startTurn(th.ID, "usage-permission 1200 100000 - USD")
	bp := h.waitPermission(tu.ID, 30*time.Second)
	var details struct {
		Budget    string  `json:"budget"`
		Spent     float64 `json:"spent"`
		Limit     float64 `json:"limit"`
		AllowMore float64 `json:"allowMore"`
	}
	var listed struct {
		Permissions []struct {
			ID      string `json:"id"`
			Request struct {
				Budget json.RawMessage `json:"budget"`
			} `json:"request"`
		} `json:"permissions"`
	}
	h.call("GET", "/v1/permissions?status=pending", nil, 200, &listed)
	for _, p := range listed.Permissions {
		if p.ID == bp.ID {
			json.Unmarshal(p.Request.Budget, &details)
		}
	}
	if bp.Kind != "budget" || details.Budget != "tokens.perThread" || details.Spent != 1200 || details.Limit != 1000 || details.AllowMore != 200 ||
		!strings.Contains(bp.Request.Title, "reached its per-thread limit of 1,000 tokens") {
		t.Fatalf("budget permission %+v details %+v", bp, details)
	}
	testkit.Never(t, 500*time.Millisecond, "the agent's request raised while the budget question waits", func() bool {
		return len(h.permissions("pending")) > 1
	})
	if r := h.decide(bp.ID, map[string]string{"optionId": "allow-more", "remember": "thread"}); r.status != 400 {
		t.Fatalf("a remembered budget decision: %s", r)
	}
	if r := h.decide(bp.ID, map[string]string{"optionId": "allow-more"}); r.status != 200 {
		t.Fatalf("allow more: %s", r)
	}
	ap, ok := waitFirst(30*time.Second, func() []apiPermission { return h.permissions("pending") },
		func(p apiPermission) bool { return p.TurnID == tu.ID && p.ID != bp.ID })
	if !ok || ap.Kind != "agent" {
		t.Fatalf("the held request after allow more: %+v %v", ap, ok)
	}
	if r := h.decide(ap.ID, map[string]string{"outcome": "approved"}); r.status != 200 {
		t.Fatalf("approve: %s", r)
	}
	if done := h.waitTurn(th.ID, tu.ID, 30*time.Second); done.Status != "completed" {
		t.Fatalf("turn after allow more %+v", done)
	}
	if p := h.permission(bp.ID); p.Status != "approved" || p.OptionID != "allow-more" || p.DecidedBy != "client:alice" {
		t.Fatalf("the budget decision's audit %+v", p)
	}

	// The tokens cap stops an agent that reports no cost.
	th2 := h.newThread("fake", cwd)
	tu2 := h.startTurn(th2.ID, "usage-hang 5000 100000 - USD 4000 1000")
	if done := h.waitTurn(th2.ID, tu2.ID, 30*time.Second); done.Status != "cancelled" {
		t.Fatalf("turn past the tokens cap %+v", done)
	}
	r := h.do("POST", "/v1/threads/"+th2.ID+"/turns", map[string]string{"input": "echo more"})
	if r.status != 409 || !strings.Contains(string(r.body), `"budget":"tokens.perThread"`) || !strings.Contains(string(r.body), "BUDGET_EXCEEDED") {
		t.Fatalf("want 409 BUDGET_EXCEEDED tokens.perThread, got %s", r)
	}

	// The time cap stops an agent that reports nothing.
	th3 := h.newThread("silent", cwd)
	tu3 := h.startTurn(th3.ID, "hang")
	q := h.waitPermission(tu3.ID, 30*time.Second)
	if q.Kind != "budget" || !strings.Contains(q.Request.Title, "reached silent's daily limit of 1 s") {
		t.Fatalf("time budget permission %+v", q)
	}
	if done := h.waitTurn(th3.ID, tu3.ID, 30*time.Second); done.Status != "cancelled" {
		t.Fatalf("turn past the time cap %+v", done)
	}
	var u struct {
		Buckets []struct {
			Key     string
			Minutes float64
		}
		HeldBy map[string]string `json:"heldBy"`
	}
	h.call("GET", "/v1/usage?by=agent", nil, 200, &u)
	if u.HeldBy["silent"] != "minutes" || u.HeldBy["fake"] != "tokens" {
		t.Fatalf("heldBy %+v", u.HeldBy)
	}
	for _, b := range u.Buckets {
		if b.Key == "silent" && b.Minutes < 0.03 {
			t.Fatalf("the silent agent ran %v min: cancelled before its limit plus grace (0.03)", b.Minutes)
		}
	}
}

// TestE2EBudgetPauseClaudeOffline: the pause that asks with a real agent
// (Claude Code through claude-agent-acp, offline against the fake model),
// which runs its own tools: a thread's token cap is crossed by the turn's
// first model request; the budget question holds Claude's permission
// request for its Bash command until "allow more", after which the
// command is asked, approved, runs, and the turn finishes. "Stop" on the
// next thread's question cancels its turn, and the command never runs.
func TestE2EBudgetPauseClaudeOffline(t *testing.T) {
	bins := buildE2E(t)
	claude, model := claudeOffline(t)
	h := newHub(t, bins, hubConfig{
		"agents":  map[string]agentConf{"claude-offline": claude},
		"budgets": map[string]any{"currency": "USD"},
	})
	cwd := t.TempDir()
	const slow = 120 * time.Second
	const prompt = "Touch the marker file."

	// What the prompt's first model request puts in Claude's context.
	calib := h.newThread("claude-offline", cwd)
	model.Push(fakemodel.Text("Nothing to do."))
	if done := h.waitTurn(calib.ID, h.startTurn(calib.ID, prompt).ID, slow); done.Status != "completed" {
		t.Fatalf("calibration turn %+v", done)
	}
	var byTurn apiUsage
	h.call("GET", "/v1/usage?by=turn&threadId="+calib.ID, nil, 200, &byTurn)
	if len(byTurn.Buckets) != 1 || byTurn.Buckets[0].Used <= 0 {
		t.Fatalf("calibration usage %+v", byTurn.Buckets)
	}
	first := byTurn.Buckets[0].Used
	limit := first * 9 / 10 // crossed by the first request
	// Claude's first report is the whole first request (its system prompt
	// and tools): one step from under the limit to past it. The grace is
	// wide enough that the hub asks rather than cancels; allow more (10×)
	// fits the rest of the turn.
	h.call("PATCH", "/v1/settings", map[string]any{"budgets": map[string]any{"currency": "USD", "allowMore": 10, "grace": 0.5,
		"tokens": map[string]any{"perThread": limit}}}, 200, nil)
	t.Logf("Claude's first request: %d tokens of context; tokens.perThread %d", first, limit)

	marker := filepath.Join(cwd, "marker.txt")
	bash, _ := json.Marshal(map[string]string{"command": "touch " + marker, "description": "Touch the marker"})

	// Allow more: the held Bash request comes, is approved, and runs.
	th := h.newThread("claude-offline", cwd)
	model.Push(fakemodel.ToolCall("Bash", string(bash)), fakemodel.Text("Touched."))
	tu := h.startTurn(th.ID, prompt)
	bp := h.waitPermission(tu.ID, slow)
	if bp.Kind != "budget" || !strings.Contains(bp.Request.Title, "per-thread limit") {
		t.Fatalf("want the budget question first, got %+v", bp)
	}
	testkit.Never(t, time.Second, "Claude's Bash request was raised while the budget question waits", func() bool {
		return len(h.permissions("pending")) > 1
	})
	if r := h.decide(bp.ID, map[string]string{"optionId": "allow-more"}); r.status != 200 {
		t.Fatalf("allow more: %s", r)
	}
	ap, ok := waitFirst(slow, func() []apiPermission { return h.permissions("pending") },
		func(p apiPermission) bool { return p.TurnID == tu.ID && p.ID != bp.ID })
	if !ok || ap.Kind != "agent" || ap.Request == nil || !strings.Contains(ap.Request.Command+" "+strings.Join(ap.Request.Argv, " "), "touch") {
		t.Fatalf("Claude's held request after allow more: %+v %v", ap, ok)
	}
	if r := h.decide(ap.ID, map[string]string{"outcome": "approved"}); r.status != 200 {
		t.Fatalf("approve: %s", r)
	}
	if done := h.waitTurn(th.ID, tu.ID, slow); done.Status != "completed" || !strings.Contains(done.Output, "Touched.") {
		t.Fatalf("turn after allow more %+v", done)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the approved command did not run: %v", err)
	}

	// Stop: the turn is cancelled; the command never runs.
	os.Remove(marker)
	th2 := h.newThread("claude-offline", cwd)
	model.Push(fakemodel.ToolCall("Bash", string(bash)), fakemodel.Text("Touched again."))
	tu2 := h.startTurn(th2.ID, prompt)
	bp2 := h.waitPermission(tu2.ID, slow)
	if bp2.Kind != "budget" {
		t.Fatalf("want the budget question, got %+v", bp2)
	}
	if r := h.decide(bp2.ID, map[string]string{"optionId": "stop"}); r.status != 200 {
		t.Fatalf("stop: %s", r)
	}
	if done := h.waitTurn(th2.ID, tu2.ID, slow); done.Status != "cancelled" {
		t.Fatalf("turn after stop %+v", done)
	}
	testkit.Never(t, time.Second, "the stopped turn's command ran", func() bool {
		_, err := os.Stat(marker)
		return err == nil
	})
}
