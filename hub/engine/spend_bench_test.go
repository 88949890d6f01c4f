//go:build unix

package engine

import (
	"log/slog"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// BenchmarkBudgetCheck is what the budgets add to one usage_update of a
// running turn covered by every tokens budget (daily, monthly,
// perThread, the agent's daily and monthly), none of them crossed: the
// turn's tokens grow, each budget's tally (shared with the other turns
// it covers) with them, and each budget is judged, in memory (issue 33:
// under 5 µs per update).
func BenchmarkBudgetCheck(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Budgets = hub.Budgets{Currency: "USD", Tokens: hub.BudgetLimits{Daily: 1e12, Monthly: 1e12, PerThread: 1e12,
		Agents: map[string]hub.AgentBudget{"a": {Daily: 1e12, Monthly: 1e12}}}}
	e := &Engine{log: slog.New(slog.DiscardHandler), cfg: cfg}
	now := time.Now()
	tr := &turnRT{turn: hub.Turn{ID: "tu", ThreadID: "th"}, spend: newTurnSpend(now)}
	scopes := scopesFor(cfg.Budgets, hub.MeasureTokens, "th", "a", now)
	if len(scopes) != 5 {
		b.Fatalf("%d tokens budgets, want 5", len(scopes))
	}
	for _, s := range scopes {
		tally, base := e.budgets.tally(s)
		tr.spend.tokens = append(tr.spend.tokens, spendLimit{scope: s, before: 1000, tally: tally, base: base})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		e.noteTokens(tr, int64(i), int64(i)+1)
	}
	b.StopTimer()
	if tr.spend.live != int64(b.N) || tr.spend.asking != "" {
		b.Fatalf("live tokens %v after %d updates (asking %q)", tr.spend.live, b.N, tr.spend.asking)
	}
}
