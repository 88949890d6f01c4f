//go:build unix

package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/engine"
)

func share(v float64) *float64 { return &v }

// budgetPermission waits for the next permission_required of sub and
// checks it is the budget question about budget.
func budgetPermission(t *testing.T, sub *hub.Subscription, budget string) hub.Permission {
	t.Helper()
	p := payload[hub.Permission](t, until(t, sub, hub.EventPermissionRequired), "permission")
	if p.Kind != hub.PermKindBudget || p.Request == nil || p.Request.Budget == nil || p.Request.Budget.Budget != budget {
		t.Fatalf("want the budget question about %s, got %+v", budget, p)
	}
	if len(p.Options) != 2 || p.Options[0].OptionID != hub.BudgetOptionAllowMore || p.Options[0].Kind != "allow_once" ||
		p.Options[1].OptionID != hub.BudgetOptionStop || p.Options[1].Kind != "reject_once" {
		t.Fatalf("budget options %+v", p.Options)
	}
	return p
}

// The cap in tokens stops an agent that reports no cost: its context
// window grows past the limit plus the grace within the turn, and the
// turn is cancelled at that report; the tokens its response reports
// then refuse the next turn.
func TestTokensCapStopsAgentWithoutCost(t *testing.T) {
	h := newHarness(t, func(c *engine.Config) {
		c.Budgets = hub.Budgets{Currency: "USD", Tokens: hub.BudgetLimits{PerThread: 1000}}
	})
	th := h.thread("fake")
	sub := h.watch(th)
	if _, err := h.e.StartTurn(context.Background(), alice, th.ID, hub.TurnInput{Input: "usage-hang 5000 100000 - USD 4000 1000"}); err != nil {
		t.Fatal(err)
	}
	if turn := payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn"); turn.Status != hub.TurnCancelled {
		t.Fatalf("turn past the tokens cap %+v", turn)
	}
	_, err := h.e.StartTurn(context.Background(), alice, th.ID, hub.TurnInput{Input: "echo more"})
	he, ok := err.(*hub.Error)
	if !ok || he.Details["reason"] != hub.ReasonBudgetExceeded || he.Details["budget"] != "tokens.perThread" || he.Details["spent"] != 5000.0 ||
		!strings.Contains(he.Message, "5,000 tokens of 1,000 tokens") {
		t.Fatalf("want the tokens budget spent, got %#v", err)
	}
	rep := h.usage(alice, hub.UsageByDay, "")
	if len(rep.Buckets) != 1 || rep.Buckets[0].AgentTokens["fake"] != 5000 || rep.HeldBy["fake"] != hub.HeldByTokens {
		t.Fatalf("usage by day %+v held by %v", rep.Buckets, rep.HeldBy)
	}
}

// The time cap stops an agent that reports nothing: at the limit it is
// asked about, and with no answer it is cancelled at the limit plus the
// grace, on the engine's clock; its agent time never exceeds the grace.
func TestTimeCapStopsSilentAgent(t *testing.T) {
	h := newClockHarness(t, func(c *engine.Config) {
		c.Budgets = hub.Budgets{Currency: "USD", Minutes: hub.BudgetLimits{Daily: 1}}
	})
	th := h.thread("fake")
	sub := h.watch(th)
	if _, err := h.e.StartTurn(context.Background(), alice, th.ID, hub.TurnInput{Input: "hang"}); err != nil {
		t.Fatal(err)
	}
	h.clock.advanceOnce(t, time.Minute)
	p := budgetPermission(t, sub, "minutes.daily")
	if d := p.Request.Budget; d.Limit != 1 || d.AllowMore != 0.2 || !near(d.Grace, 0.1) || d.Measure != hub.MeasureMinutes ||
		!strings.Contains(p.Request.Title, "reached its daily limit of 1.0 min") || !strings.Contains(p.Request.Title, "allow 12 s more for this turn") {
		t.Fatalf("budget details %+v title %q", d, p.Request.Title)
	}
	h.clock.advanceOnce(t, 6*time.Second) // the grace: 10 % of a minute
	if turn := payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn"); turn.Status != hub.TurnCancelled {
		t.Fatalf("turn past the time cap %+v", turn)
	}
	rep := h.usage(alice, hub.UsageByAgent, "")
	if b := bucket(t, rep, "fake"); b.Minutes < 1 || b.Minutes > 1.1+1e-9 || rep.HeldBy["fake"] != hub.HeldByMinutes {
		t.Fatalf("agent time %v min (want within the grace, at most 1.1), held by %v", b.Minutes, rep.HeldBy)
	}
	ps, _ := h.e.ListPermissions(context.Background(), alice, "")
	if len(ps) != 1 || ps[0].Status != hub.PermissionCancelled || ps[0].DecidedBy != hub.DecidedByHub {
		t.Fatalf("the unanswered budget question %+v", ps)
	}
}

// The budget question holds the agent's next request (here its own
// permission) until it is answered; "allow more" lets the turn finish.
func TestBudgetQuestionHoldsAndAllowMore(t *testing.T) {
	h := newHarness(t, func(c *engine.Config) {
		c.Budgets = hub.Budgets{Currency: "USD", Tokens: hub.BudgetLimits{Daily: 1000}, Grace: share(0.5)}
	})
	th := h.thread("fake")
	sub := h.watch(th)
	ctx := context.Background()
	if _, err := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "usage-permission 1200 100000 - USD"}); err != nil {
		t.Fatal(err)
	}
	bp := budgetPermission(t, sub, "tokens.daily")
	if !strings.Contains(bp.Request.Title, "reached its daily limit of 1,000 tokens (1,200 tokens spent): allow 200 tokens more for this turn, or stop now") {
		t.Fatalf("title %q", bp.Request.Title)
	}
	testkit.Never(t, 300*time.Millisecond, "the agent's permission raised while the budget question is pending", func() bool {
		ps, _ := h.e.ListPermissions(ctx, alice, hub.PermissionPending)
		return len(ps) > 1
	})
	window := hub.Caller{ClientID: "w", All: true, Surface: hub.SurfaceWindow}
	if _, err := h.e.DecidePermission(ctx, window, bp.ID, hub.Decision{Remember: "thread", OptionID: hub.BudgetOptionAllowMore}); hub.ErrorCode(err) != hub.CodeInvalidArgument {
		t.Fatalf("a remembered budget decision: %v", err)
	}
	if _, err := h.e.DecidePermission(ctx, window, bp.ID, hub.Decision{OptionID: hub.BudgetOptionAllowMore}); err != nil {
		t.Fatal(err)
	}
	ap := payload[hub.Permission](t, until(t, sub, hub.EventPermissionRequired), "permission")
	if ap.Kind != hub.PermKindAgent {
		t.Fatalf("after allow more, want the agent's permission, got %+v", ap)
	}
	if _, err := h.e.DecidePermission(ctx, alice, ap.ID, hub.Decision{Outcome: "approved"}); err != nil {
		t.Fatal(err)
	}
	turn := payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn")
	if turn.Status != hub.TurnCompleted || !strings.HasSuffix(turn.Output, "outcome: selected allow-once") {
		t.Fatalf("turn after allow more %+v", turn)
	}
	ps, _ := h.e.ListPermissions(ctx, alice, "")
	for _, p := range ps {
		if p.ID == bp.ID && (p.Status != hub.PermissionApproved || p.OptionID != hub.BudgetOptionAllowMore || p.DecidedBy != hub.SurfaceWindow) {
			t.Fatalf("the budget decision's audit %+v", p)
		}
	}
}

// No answer to the budget question stops the turn (fail closed): the
// held request is refused, never raised.
func TestBudgetQuestionNoAnswerStops(t *testing.T) {
	h := newClockHarness(t, func(c *engine.Config) {
		c.PermissionTimeout, c.EscalateAfter = time.Minute, 0
		c.Budgets = hub.Budgets{Currency: "USD", Tokens: hub.BudgetLimits{PerThread: 1000}, Grace: share(0.5)}
	})
	th := h.thread("fake")
	sub := h.watch(th)
	if _, err := h.e.StartTurn(context.Background(), alice, th.ID, hub.TurnInput{Input: "usage-permission 1200 100000 - USD"}); err != nil {
		t.Fatal(err)
	}
	bp := budgetPermission(t, sub, "tokens.perThread")
	h.clock.advanceOnce(t, time.Minute)
	turn := payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn")
	if turn.Status != hub.TurnCancelled {
		t.Fatalf("unanswered budget question: turn %+v", turn)
	}
	ps, _ := h.e.ListPermissions(context.Background(), alice, "")
	if len(ps) != 1 || ps[0].ID != bp.ID || ps[0].Status != hub.PermissionExpired || ps[0].DecidedBy != hub.DecidedByTimeout {
		t.Fatalf("permissions %+v (want only the budget question, expired)", ps)
	}
}

// Prices turn the tokens of a turn that reported no cost into an
// estimate (never spent); a turn that reported a cost gets none.
func TestPricesEstimateTokensWithoutCost(t *testing.T) {
	h := newHarness(t, func(c *engine.Config) {
		c.Budgets = hub.Budgets{Currency: "USD", Daily: 0.01, Prices: hub.Prices{"fake-small": {Input: 3, Output: 15}}}
	})
	th := h.thread("fake")
	sub := h.watch(th)
	free := h.run(th, sub, "usage 500 100000 - USD 4000 1000")
	paid := h.run(th, sub, "usage 600 100000 0.001 USD 4000 1000")
	rep := h.usage(alice, hub.UsageByTurn, th.ID)
	if b := bucket(t, rep, free.ID); !near(b.Estimate, 0.027) || len(b.Cost) != 0 {
		t.Fatalf("the turn without cost: %+v (want an estimate of 0.027)", b)
	}
	if b := bucket(t, rep, paid.ID); b.Estimate != 0 || !near(b.Cost["USD"], 0.001) {
		t.Fatalf("the turn with a cost: %+v (want no estimate)", b)
	}
	// An estimate is never spent: the daily budget of 0.01 is not reached.
	if turn := h.run(th, sub, "echo still allowed"); turn.Status != hub.TurnCompleted {
		t.Fatalf("after an estimate over the budget %+v", turn)
	}
}
