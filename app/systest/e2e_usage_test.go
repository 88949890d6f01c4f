//go:build linux

package systest

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/fakemodel"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

type apiUsage struct {
	Buckets []struct {
		Key          string
		Cost         map[string]float64
		InputTokens  int64
		OutputTokens int64
		Used, Size   int64
	}
	Currency          string
	AgentsWithoutCost []string
}

func (u apiUsage) cost(key, currency string) float64 {
	for _, b := range u.Buckets {
		if b.Key == key {
			return b.Cost[currency]
		}
	}
	return -1
}

// TestE2EUsageLedgerAndBudgets drives the ledger and a budget through the
// real `switchboard serve` and the fake agent: GET /v1/usage matches the
// reports (another client sees none of them; scope=all sees them), across
// a hub restart; a daily budget cancels the crossing turn, refuses the next
// with 409 BUDGET_EXCEEDED and its details, one override (decidedBy from
// the caller; a body naming one is refused) lets exactly one through; bad parameters are
// 400s; a budget raised by editing the config file applies live.
func TestE2EUsageLedgerAndBudgets(t *testing.T) {
	bins := buildE2E(t)
	fake := fakeAgentConf(t, "FAKEAGENT_UNIQUE_SESSIONS=1")
	h := newHub(t, bins, hubConfig{
		"budgets": map[string]any{"currency": "USD", "daily": 1},
		"agents":  map[string]agentConf{"fake": fake},
	})
	cwd := t.TempDir()
	th := h.newThread("fake", cwd)
	run := func(input string) apiTurn {
		t.Helper()
		tu := h.startTurn(th.ID, input)
		return h.waitTurn(th.ID, tu.ID, 30*time.Second)
	}
	usage := func(query string, hdr ...string) apiUsage {
		t.Helper()
		var u apiUsage
		h.call("GET", "/v1/usage?"+query, nil, 200, &u, hdr...)
		return u
	}
	run("usage 1000 200000 0.30 USD 100 20")
	run("usage 2000 200000 0.50 USD 10 5") // +0.20
	if u := usage("by=thread"); math.Abs(u.cost(th.ID, "USD")-0.5) > 1e-9 || u.Currency != "USD" {
		t.Fatalf("by=thread %+v", u)
	}
	if u := usage("by=thread", "X-Client-ID", "mallory"); len(u.Buckets) != 0 {
		t.Fatalf("another client sees %+v", u)
	}
	if u := usage("by=agent&scope=all", "X-Client-ID", "mallory"); math.Abs(u.cost("fake", "USD")-0.5) > 1e-9 {
		t.Fatalf("scope=all %+v", u)
	}
	r := h.do("GET", "/v1/usage?by=thread&threadId="+th.ID, nil, "X-Client-ID", "mallory")
	if r.status != 404 {
		t.Fatalf("another client's thread: %s", r)
	}
	for _, q := range []string{"by=week", "by=day&tz=Mars/Olympus", "by=day&from=yesterday", "by=day&from=2026-02-01&to=2026-01-01",
		"by=day&limit=0", "by=day&limit=10001", "by=thread&cursor=!!!"} {
		if r := h.do("GET", "/v1/usage?"+q, nil); r.status != 400 || r.errorCode() != "INVALID_ARGUMENT" {
			t.Errorf("%s: %s", q, r)
		}
	}
	today := time.Now().Format(time.DateOnly)
	if u := usage("by=day&from=" + today); len(u.Buckets) != 1 || u.Buckets[0].Key != today || u.Buckets[0].InputTokens != 110 {
		t.Fatalf("by=day %+v", u)
	}

	// A restart: the same ledger, and the next process's session is new.
	h.stop()
	h.start()
	run("echo the context the hub injects into the new session")
	run("usage 500 200000 0.05 USD") // a new session: +0.05
	if u := usage("by=thread"); math.Abs(u.cost(th.ID, "USD")-0.55) > 1e-9 {
		t.Fatalf("after a restart %+v", u)
	}

	// The crossing turn is cancelled: its report reaches the limit plus
	// the grace (1.10 of 1.00) at once (TestE2EBudgetPause asks first).
	if tu := run("usage-hang 600 200000 0.60 USD"); tu.Status != "cancelled" {
		t.Fatalf("crossing turn %+v", tu)
	}
	refused := func() {
		t.Helper()
		r := h.do("POST", "/v1/threads/"+th.ID+"/turns", map[string]string{"input": "echo more"})
		var e struct {
			Error struct {
				Code, Message string
				Details       map[string]any
			}
		}
		json.Unmarshal(r.body, &e)
		d := e.Error.Details
		if r.status != 409 || e.Error.Code != "CONFLICT" || d["reason"] != "BUDGET_EXCEEDED" || d["budget"] != "daily" ||
			d["currency"] != "USD" || d["limit"] != 1.0 || !strings.Contains(e.Error.Message, "budgets.daily") {
			t.Fatalf("want 409 BUDGET_EXCEEDED, got %s", r)
		}
	}
	refused()
	// The Go client's typed calls (the tray, the editor bridge, scripts).
	cl := client.New(h.dataDir, client.Options{ClientID: "alice"})
	ctx := context.Background()
	rep, err := cl.Usage(ctx, hub.UsageQuery{By: hub.UsageByThread, From: time.Now().Add(-time.Hour)})
	if err != nil || len(rep.Buckets) != 1 || math.Abs(rep.Buckets[0].Cost["USD"]-1.10) > 1e-9 {
		t.Fatalf("client Usage %+v %v", rep, err)
	}
	if _, err := cl.OverrideBudget(ctx, hub.OverrideRequest{Budget: "monthly"}); hub.ErrorCode(err) != hub.CodeConflict {
		t.Fatalf("client OverrideBudget of an unspent budget: %v", err)
	}
	var o struct {
		Override struct{ ID, Budget, DecidedBy string }
	}
	// decidedBy is the hub's to build: a body that names one is refused.
	if r := h.do("POST", "/v1/budgets/override", map[string]any{"budget": "daily", "decidedBy": "window"}); r.status != 400 {
		t.Fatalf("an override naming its decidedBy: %s", r)
	}
	h.call("POST", "/v1/budgets/override", map[string]any{"budget": "daily"}, 200, &o)
	if o.Override.DecidedBy != "client:alice" || o.Override.Budget != "daily" {
		t.Fatalf("override %+v", o)
	}
	if tu := run("echo one more"); tu.Status != "completed" {
		t.Fatalf("overridden turn %+v", tu)
	}
	refused()
	if r := h.do("POST", "/v1/budgets/override", map[string]any{"budget": "perThread", "threadId": th.ID}, "X-Client-ID", "mallory"); r.status != 404 {
		t.Fatalf("an override naming another client's thread: %s", r)
	}

	// Raising the budget in the config file applies at once.
	b, err := os.ReadFile(h.config)
	if err != nil {
		t.Fatal(err)
	}
	raised := strings.Replace(string(b), "daily: 1", "daily: 10", 1)
	if raised == string(b) {
		t.Fatalf("no daily: 1 in\n%s", b)
	}
	if err := os.WriteFile(h.config, []byte(raised), 0o600); err != nil {
		t.Fatal(err)
	}
	var raisedTurn reply
	if !waitFor(20*time.Second, func() bool {
		raisedTurn = h.do("POST", "/v1/threads/"+th.ID+"/turns", map[string]string{"input": "echo raised"})
		return raisedTurn.status == 202
	}) {
		t.Fatalf("the raised budget was not applied: %s", raisedTurn)
	}
}

// TestE2EUsageClaudeOffline: Claude Code (claude-agent-acp, from .tools,
// offline against the fake model) reports usage_update with a USD cost
// and its model in _meta, and the prompt's tokens in its response; the
// ledger records them against the thread, the turn and the model.
func TestE2EUsageClaudeOffline(t *testing.T) {
	bins := buildE2E(t)
	claude, model := claudeOffline(t)
	h := newHub(t, bins, hubConfig{
		"agents": map[string]agentConf{"claude-offline": claude},
	})
	th := h.newThread("claude-offline", t.TempDir())
	for i, text := range []string{"Hello from the fake model.", "A second answer, a little longer than the first one."} {
		model.Push(fakemodel.Text(text))
		tu := h.startTurn(th.ID, "Say hello.")
		if done := h.waitTurn(th.ID, tu.ID, 120*time.Second); done.Status != "completed" {
			t.Fatalf("turn %d: %+v", i, done)
		}
	}
	var byTurn, byModel apiUsage
	h.call("GET", "/v1/usage?by=turn&threadId="+th.ID, nil, 200, &byTurn)
	h.call("GET", "/v1/usage?by=model", nil, 200, &byModel)
	t.Logf("by turn %+v; by model %+v", byTurn, byModel)
	if len(byTurn.Buckets) != 2 {
		t.Fatalf("want 2 turn buckets, got %+v", byTurn.Buckets)
	}
	for _, b := range byTurn.Buckets {
		if b.InputTokens <= 0 || b.OutputTokens <= 0 || b.Size <= 0 || b.Used <= 0 {
			t.Errorf("turn %s: tokens %d/%d, context %d/%d: want the prompt's tokens and the context window", b.Key, b.InputTokens, b.OutputTokens, b.Used, b.Size)
		}
		if _, ok := b.Cost["USD"]; !ok {
			t.Errorf("turn %s: no USD cost in %+v", b.Key, b.Cost)
		}
	}
	// Claude Code names the model in the update's _meta ("_claude/model"):
	// the fake model server answers as "fake-model".
	if len(byModel.Buckets) != 1 || byModel.Buckets[0].Key != "fake-model" {
		t.Errorf("by model %+v: want the model Claude Code named", byModel.Buckets)
	}
}
