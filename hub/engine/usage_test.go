//go:build unix

package engine_test

import (
	"context"
	"math"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/engine"
)

func usageSpecs(t *testing.T) []acp.AgentSpec {
	return []acp.AgentSpec{
		fakeSpec(t, "fake", "FAKEAGENT_UNIQUE_SESSIONS=1"),
		fakeSpec(t, "fakeload", "FAKEAGENT_UNIQUE_SESSIONS=1", "FAKEAGENT_LOAD_SESSION=1"),
	}
}

// watchLive subscribes to a thread's events from now on.
func (h *harness) watchLive(th hub.Thread) *hub.Subscription {
	h.t.Helper()
	sub, err := h.e.Subscribe(context.Background(), alice, th.ID, -1)
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(sub.Close)
	return sub
}

// reported are the buckets with usage an agent reported (every turn also
// has its agent time: spend.go).
func reported(bs []hub.UsageBucket) []hub.UsageBucket {
	var out []hub.UsageBucket
	for _, b := range bs {
		if len(b.Cost) > 0 || b.InputTokens+b.OutputTokens > 0 || b.Size > 0 {
			out = append(out, b)
		}
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// bucket returns the bucket key of a usage report (fails when absent).
func bucket(t *testing.T, rep hub.UsageReport, key string) hub.UsageBucket {
	t.Helper()
	for _, b := range rep.Buckets {
		if b.Key == key {
			return b
		}
	}
	t.Fatalf("no bucket %q in %+v", key, rep.Buckets)
	return hub.UsageBucket{}
}

func (h *harness) usage(c hub.Caller, by, threadID string) hub.UsageReport {
	h.t.Helper()
	rep, err := h.e.Usage(context.Background(), c, hub.UsageQuery{By: by, ThreadID: threadID})
	if err != nil {
		h.t.Fatal(err)
	}
	return rep
}

// The ledger's totals follow the agent's cumulative reports: a turn costs
// the increase within one agent session; a new session (the agent
// restarted: a new session id) and a report lower than the last start new
// baselines; the totals survive a hub restart, and a session reopened with
// session/load after it keeps its baseline.
func TestUsageLedgerAcrossSessions(t *testing.T) {
	specs := usageSpecs(t)
	h := newHarness(t, nil, specs...)
	th := h.thread("fake")
	sub := h.watch(th)
	for _, in := range []string{
		"usage 1000 200000 0.10 USD 100 20", // session A: +0.10
		"usage 2000 200000 0.25 USD 50 10",  // A: +0.15
		"crash",                             // the agent dies: the next turn opens session B
		"echo reopened",                     // (takes the context the hub injects into B)
		"usage 500 200000 0.05 USD",         // B: +0.05
		"usage 600 200000 0.02 USD",         // B, lower: a new baseline, +0.02
		"usage 700 200000 0.50 EUR",         // another currency: its own column
		"usage 800 200000 - USD",            // no cost
	} {
		h.run(th, sub, in)
	}
	check := func(wantUSD float64, wantTurns int, wantIn int64) {
		t.Helper()
		rep := h.usage(alice, hub.UsageByThread, "")
		b := bucket(t, rep, th.ID)
		// Tokens (recordPromptUsage's rule): a turn whose response
		// reports them counts those (A: 100 + 20, 50 + 10), one that
		// reports none its window's growth, each session's from its
		// first report (B: 500 + 100 + 100 + 100; after the restart, the
		// new session C: 800).
		if !near(b.Cost["USD"], wantUSD) || !near(b.Cost["EUR"], 0.5) || b.InputTokens != wantIn || b.OutputTokens != 30 {
			t.Fatalf("thread bucket %+v, want USD %v", b, wantUSD)
		}
		if b.Used != 800 || b.Size != 200000 || b.Agent != "fake" {
			t.Fatalf("context window %d/%d agent %q", b.Used, b.Size, b.Agent)
		}
		turns := h.usage(alice, hub.UsageByTurn, th.ID)
		if len(reported(turns.Buckets)) != wantTurns || len(turns.Buckets) < wantTurns {
			t.Fatalf("%d turn buckets with reports, want %d: %+v", len(reported(turns.Buckets)), wantTurns, turns.Buckets)
		}
		day := h.usage(alice, hub.UsageByDay, "")
		if len(day.Buckets) != 1 || day.Buckets[0].Key != time.Now().Format(time.DateOnly) || !near(day.Buckets[0].Agents["fake"]["USD"], wantUSD) {
			t.Fatalf("days %+v", day.Buckets)
		}
		if other := h.usage(hub.Caller{ClientID: "mallory"}, hub.UsageByThread, ""); len(other.Buckets) != 0 {
			t.Fatalf("another client sees %+v", other.Buckets)
		}
		if all := h.usage(hub.Caller{ClientID: "window", All: true}, hub.UsageByAgent, ""); !near(bucket(t, all, "fake").Cost["USD"], wantUSD) {
			t.Fatalf("scope=all %+v", all.Buckets)
		}
	}
	check(0.32, 6, 950) // the crash turn reported nothing
	if _, err := h.e.Usage(context.Background(), hub.Caller{ClientID: "mallory"}, hub.UsageQuery{By: "turn", ThreadID: th.ID}); hub.ErrorCode(err) != hub.CodeNotFound {
		t.Fatalf("another client's thread: %v", err)
	}
	if _, err := h.e.Usage(context.Background(), alice, hub.UsageQuery{By: "week"}); hub.ErrorCode(err) != hub.CodeInvalidArgument {
		t.Fatalf("by=week: %v", err)
	}

	// A restart: the same totals; the new process's session is new.
	h.close()
	h.open(engine.DefaultConfig(), specs)
	check(0.32, 6, 950)
	sub = h.watchLive(th)
	h.run(th, sub, "echo restarted") // a new process: session C, with context
	h.run(th, sub, "usage 800 200000 0.03 USD")
	check(0.35, 7, 1750)

	// session/load keeps the session id across a restart: its baseline
	// holds.
	tl := h.thread("fakeload")
	sub = h.watch(tl)
	h.run(tl, sub, "usage 1 100 0.10 USD")
	h.close()
	h.open(engine.DefaultConfig(), specs)
	sub = h.watchLive(tl)
	h.run(tl, sub, "usage 2 100 0.25 USD")
	if b := bucket(t, h.usage(alice, hub.UsageByThread, ""), tl.ID); !near(b.Cost["USD"], 0.25) || b.InputTokens != 2 {
		t.Fatalf("reloaded session: %+v, want 0.25 USD and 2 tokens (its window grew from 1, its last report, not from 0)", b)
	}
	// Deleting a thread keeps its cost rows (no text in them).
	if err := h.e.DeleteThread(context.Background(), alice, th.ID); err != nil {
		t.Fatal(err)
	}
	if b := bucket(t, h.usage(alice, hub.UsageByAgent, ""), "fake"); !near(b.Cost["USD"], 0.35) {
		t.Fatalf("after delete: %+v", b)
	}
	if b := bucket(t, h.usage(alice, hub.UsageByThread, ""), th.ID); b.Title != "" {
		t.Fatalf("a deleted thread's title: %q", b.Title)
	}
}

// A daily budget: the turn that reaches 80 % raises budget_warning, the
// turn that reaches 100 % is cancelled and raises budget_exceeded, the
// next turn is refused BUDGET_EXCEEDED, one override lets exactly one
// more through, and an agent that reports no cost is never stopped.
func TestBudgetWarnsCancelsRefusesOverrides(t *testing.T) {
	h := newHarness(t, func(c *engine.Config) {
		c.Budgets = hub.Budgets{Currency: "USD", Daily: 1.00}
	}, usageSpecs(t)...)
	ctx := context.Background()
	hubWide, err := h.e.Subscribe(ctx, hub.Caller{ClientID: "window", All: true}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(hubWide.Close)
	th := h.thread("fake")
	sub := h.watch(th)
	// An agent that reports no cost (fakeload here) is never stopped.
	tn := h.thread("fakeload")
	subn := h.watch(tn)
	h.run(tn, subn, "usage 5 100 - USD")

	h.run(th, sub, "usage 1 100 0.50 USD")
	h.run(th, sub, "usage 1 100 0.85 USD") // 85 %
	w := until(t, hubWide, hub.EventBudgetWarning)
	if payload[string](t, w, "budget") != "daily" || !near(payload[float64](t, w, "spent"), 0.85) || !near(payload[float64](t, w, "limit"), 1) {
		t.Fatalf("warning %s", w.Payload)
	}
	// Another currency is not counted.
	h.run(th, sub, "usage 1 100 5 EUR")
	// The crossing turn hangs after its report: the hub cancels it.
	if _, err := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "usage-hang 1 100 1.10 USD"}); err != nil {
		t.Fatal(err)
	}
	done := payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn")
	if done.Status != hub.TurnCancelled {
		t.Fatalf("crossing turn %+v", done)
	}
	x := until(t, hubWide, hub.EventBudgetExceeded)
	if payload[string](t, x, "budget") != "daily" || payload[string](t, x, "currency") != "USD" || !near(payload[float64](t, x, "spent"), 1.10) || payload[map[string]string](t, x, "crossedBy")["turnId"] != done.ID || x.ThreadID != "" {
		t.Fatalf("exceeded %s", x.Payload)
	}
	refused := func(spent float64) {
		t.Helper()
		_, err := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "echo more"})
		he, ok := err.(*hub.Error)
		if !ok || he.Code != hub.CodeConflict || he.Details["reason"] != hub.ReasonBudgetExceeded || he.Details["budget"] != "daily" ||
			he.Details["currency"] != "USD" || !near(he.Details["spent"].(float64), spent) || he.Details["limit"] != 1.0 {
			t.Fatalf("want BUDGET_EXCEEDED, got %#v", err)
		}
	}
	refused(1.10)
	// An override of a budget that is not spent, or of no budget, is refused.
	if _, err := h.e.OverrideBudget(ctx, alice, hub.OverrideRequest{Budget: "monthly"}); hub.ErrorCode(err) != hub.CodeConflict {
		t.Fatalf("override of an unspent budget: %v", err)
	}
	if _, err := h.e.OverrideBudget(ctx, alice, hub.OverrideRequest{Budget: "weekly"}); hub.ErrorCode(err) != hub.CodeInvalidArgument {
		t.Fatalf("override of no budget: %v", err)
	}
	o, err := h.e.OverrideBudget(ctx, hub.Caller{ClientID: "w", Surface: hub.SurfaceWindow}, hub.OverrideRequest{Budget: "daily"})
	if err != nil || o.DecidedBy != hub.SurfaceWindow {
		t.Fatalf("override %+v %v", o, err)
	}
	// Exactly one turn: it runs to its end although it costs more.
	if turn := h.run(th, sub, "usage 1 100 1.30 USD"); turn.Status != hub.TurnCompleted {
		t.Fatalf("overridden turn %+v", turn)
	}
	refused(1.30)

	if turn := h.run(tn, subn, "usage 5 100 - USD"); turn.Status != hub.TurnCompleted {
		t.Fatalf("no-cost turn %+v", turn)
	}
	if rep := h.usage(alice, hub.UsageByAgent, ""); len(rep.AgentsWithoutCost) != 1 || rep.AgentsWithoutCost[0] != "fakeload" || rep.Currency != "USD" {
		t.Fatalf("agents without cost %+v", rep)
	}
	// Raising the budget (live) lets turns through again.
	c := h.e.Config()
	c.Budgets.Daily = 10
	h.e.SetConfig(c)
	if turn := h.run(th, sub, "echo raised"); turn.Status != hub.TurnCompleted {
		t.Fatalf("after raising %+v", turn)
	}
}

// Reports an agent shapes as it likes: a model named in _meta is the
// record's model; a negative amount, a currency too long, a cost that is
// not an object count nothing; every report stays a usage event.
func TestUsageOddReports(t *testing.T) {
	h := newHarness(t, nil, usageSpecs(t)...)
	th := h.thread("fake")
	sub := h.watch(th)
	for _, raw := range []string{
		`{"sessionUpdate":"usage_update","used":10,"size":100,"cost":{"amount":0.25,"currency":"USD"},"_meta":{"_vendor/model":"m-1"}}`,
		`{"sessionUpdate":"usage_update","used":10,"size":100,"cost":{"amount":-5,"currency":"USD"}}`,
		`{"sessionUpdate":"usage_update","used":10,"size":100,"cost":{"amount":5,"currency":"` + strings.Repeat("X", 40) + `"}}`,
		`{"sessionUpdate":"usage_update","used":10,"size":100,"cost":"lots"}`,
		`{"sessionUpdate":"usage_update","used":-3,"size":"big"}`,
	} {
		h.run(th, sub, "raw-update "+raw)
	}
	// The others' model is the session's model option (the fake agent's
	// "fake-small").
	rep := h.usage(alice, hub.UsageByModel, "")
	if b := bucket(t, rep, "m-1"); !near(b.Cost["USD"], 0.25) || len(b.Cost) != 1 {
		t.Fatalf("by model %+v", rep.Buckets)
	}
	if b := bucket(t, rep, "fake-small"); len(b.Cost) != 0 || len(rep.Buckets) != 2 {
		t.Fatalf("by model %+v", rep.Buckets)
	}
	hist, err := h.e.History(context.Background(), alice, th.ID, true, false)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, tu := range hist {
		for _, ev := range tu.Events {
			if ev.Type == hub.EventUsage {
				n++
			}
		}
	}
	if n != 5 {
		t.Fatalf("%d usage events, want 5", n)
	}
}

// A perThread budget stops one thread, not its neighbours; an agent's
// budget stops every thread of that agent and no other; a perThread
// override names its thread.
func TestBudgetPerThreadAndAgent(t *testing.T) {
	h := newHarness(t, func(c *engine.Config) {
		c.Budgets = hub.Budgets{Currency: "USD", PerThread: 0.5, Agents: map[string]hub.AgentBudget{"fakeload": {Daily: 0.3}}}
	}, usageSpecs(t)...)
	ctx := context.Background()
	hang := func(th hub.Thread, sub *hub.Subscription, in string) {
		t.Helper()
		if _, err := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: in}); err != nil {
			t.Fatal(err)
		}
		if done := payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn"); done.Status != hub.TurnCancelled {
			t.Fatalf("crossing turn %+v", done)
		}
	}
	refusedBy := func(th hub.Thread) string {
		t.Helper()
		_, err := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "echo more"})
		he, ok := err.(*hub.Error)
		if !ok || he.Details["reason"] != hub.ReasonBudgetExceeded {
			t.Fatalf("want BUDGET_EXCEEDED, got %v", err)
		}
		return he.Details["budget"].(string)
	}
	a, b := h.thread("fake"), h.thread("fake")
	subA, subB := h.watch(a), h.watch(b)
	hang(a, subA, "usage-hang 1 100 0.60 USD")
	if got := refusedBy(a); got != "perThread" {
		t.Fatalf("refused by %s", got)
	}
	if turn := h.run(b, subB, "usage 1 100 0.10 USD"); turn.Status != hub.TurnCompleted {
		t.Fatalf("the neighbour thread %+v", turn)
	}
	if _, err := h.e.OverrideBudget(ctx, alice, hub.OverrideRequest{Budget: "perThread"}); hub.ErrorCode(err) != hub.CodeInvalidArgument {
		t.Fatalf("perThread override without a thread: %v", err)
	}
	if _, err := h.e.OverrideBudget(ctx, alice, hub.OverrideRequest{Budget: "perThread", ThreadID: b.ID}); hub.ErrorCode(err) != hub.CodeConflict {
		t.Fatalf("perThread override of a thread under its limit: %v", err)
	}
	if _, err := h.e.OverrideBudget(ctx, alice, hub.OverrideRequest{Budget: "perThread", ThreadID: a.ID}); err != nil {
		t.Fatal(err)
	}
	if turn := h.run(a, subA, "echo once"); turn.Status != hub.TurnCompleted {
		t.Fatalf("overridden %+v", turn)
	}
	refusedBy(a)

	c, d := h.thread("fakeload"), h.thread("fakeload")
	subC := h.watch(c)
	hang(c, subC, "usage-hang 1 100 0.35 USD")
	if got := refusedBy(d); got != "agents.fakeload.daily" {
		t.Fatalf("another thread of the agent refused by %s", got)
	}
	if turn := h.run(b, subB, "echo the other agent runs"); turn.Status != hub.TurnCompleted {
		t.Fatalf("another agent's thread %+v", turn)
	}
}

// A usage answer pages its buckets by key: limit, then nextCursor, until
// the last page; a cursor the hub did not give is INVALID_ARGUMENT.
func TestUsagePages(t *testing.T) {
	h := newHarness(t, nil, usageSpecs(t)...)
	ctx := context.Background()
	var want []string
	for range 3 {
		th := h.thread("fake")
		h.run(th, h.watch(th), "usage 1 100 0.10 USD")
		want = append(want, th.ID)
	}
	sort.Strings(want)
	var got []string
	cursor := ""
	for pages := 0; ; pages++ {
		rep, err := h.e.Usage(ctx, alice, hub.UsageQuery{By: hub.UsageByThread, Limit: 2, Cursor: cursor})
		if err != nil || len(rep.Buckets) > 2 || pages > 2 {
			t.Fatalf("page %d: %+v %v", pages, rep, err)
		}
		for _, b := range rep.Buckets {
			got = append(got, b.Key)
		}
		if cursor = rep.NextCursor; cursor == "" {
			break
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("paged %v, want %v", got, want)
	}
	if _, err := h.e.Usage(ctx, alice, hub.UsageQuery{By: hub.UsageByThread, Cursor: "%%%"}); hub.ErrorCode(err) != hub.CodeInvalidArgument {
		t.Fatalf("a bad cursor: %v", err)
	}
}

// Compaction opens a new agent session (session.go): the ledger takes
// its session id as a new baseline, so the new session's first report
// counts whole rather than as an increase over the old session's last.
// The compaction's own turns are internal and report nothing here.
func TestUsageLedgerAcrossCompaction(t *testing.T) {
	h := newHarness(t, nil, usageSpecs(t)...)
	th := h.thread("fake")
	sub := h.watch(th)
	h.run(th, sub, "usage 1000 200000 0.30 USD")
	if _, err := h.e.CompactThread(context.Background(), alice, th.ID); err != nil {
		t.Fatal(err)
	}
	sub = h.watchLive(th)
	h.run(th, sub, "usage 2000 200000 0.40 USD") // the new session: +0.40, not +0.10
	if b := bucket(t, h.usage(alice, hub.UsageByThread, ""), th.ID); !near(b.Cost["USD"], 0.70) {
		t.Fatalf("thread bucket %+v: want USD 0.70 (the compacted session's report is a new baseline)", b)
	}
	if turns := h.usage(alice, hub.UsageByTurn, th.ID); len(reported(turns.Buckets)) != 2 {
		t.Fatalf("turn buckets %+v: want the two user turns", turns.Buckets)
	}
}
