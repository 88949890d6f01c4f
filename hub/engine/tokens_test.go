//go:build unix

package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/engine"
)

// The ledger's tokens (recordPromptUsage's rule): each usage_update of a
// turn counts the growth of the context window at once; a response that
// reports tokens replaces that growth with its exact figure; a turn whose
// response reports none keeps its growth. Never both.
func TestLedgerTokensOneRule(t *testing.T) {
	h := newHarness(t, nil)
	th := h.thread("fake")
	sub := h.watch(th)
	small := h.run(th, sub, "usage 500 100000 - USD 4000 1000") // growth 500, the response's 5,000
	large := h.run(th, sub, "usage 7000 100000 - USD 100 50")   // growth 6,500, the response's 150
	silent := h.run(th, sub, "usage 9000 100000 - USD")         // growth 2,000, no tokens in the response
	shrunk := h.run(th, sub, "usage 3000 100000 - USD 200 300") // the window shrank: the response's
	rep := h.usage(alice, hub.UsageByTurn, th.ID)
	for _, c := range []struct {
		turn    hub.Turn
		in, out int64
	}{{small, 4000, 1000}, {large, 100, 50}, {silent, 2000, 0}, {shrunk, 200, 300}} {
		if b := bucket(t, rep, c.turn.ID); b.InputTokens != c.in || b.OutputTokens != c.out {
			t.Errorf("turn %q: %d in, %d out; want %d, %d", c.turn.Input, b.InputTokens, b.OutputTokens, c.in, c.out)
		}
	}
	day := h.usage(alice, hub.UsageByDay, "")
	if len(day.Buckets) != 1 || day.Buckets[0].AgentTokens["fake"] != 5000+150+2000+500 {
		t.Fatalf("the per-day tokens %+v, want 7,650", day.Buckets)
	}
}

// A daily tokens budget shared by two running threads: the second sees
// the tokens the first reported during its turn, still running (before,
// only the first's response at its end entered the ledger, so the second
// saw 500 of 1,000 and ran on).
func TestSharedTokensBudgetSeesOtherRunningThread(t *testing.T) {
	h := newHarness(t, func(c *engine.Config) {
		c.Budgets = hub.Budgets{Currency: "USD", Tokens: hub.BudgetLimits{Daily: 1000}, Grace: share(0.5)}
	})
	first, second := h.thread("fake"), h.thread("fake")
	sub1, sub2 := h.watch(first), h.watch(second)
	ctx := context.Background()
	if _, err := h.e.StartTurn(ctx, alice, first.ID, hub.TurnInput{Input: "usage-hang 600 100000 - USD"}); err != nil {
		t.Fatal(err)
	}
	until(t, sub1, hub.EventUsage)
	if _, err := h.e.StartTurn(ctx, alice, second.ID, hub.TurnInput{Input: "usage-permission 500 100000 - USD"}); err != nil {
		t.Fatal(err)
	}
	bp := budgetPermission(t, sub2, "tokens.daily")
	if !strings.Contains(bp.Request.Title, "(1,100 tokens spent)") {
		t.Fatalf("the second thread's budget question: %q, want the first thread's 600 tokens counted", bp.Request.Title)
	}
	if h.threadNow(first).Status != hub.ThreadRunning {
		t.Fatal("the first thread's turn ended: its tokens were not seen while it ran")
	}
}
