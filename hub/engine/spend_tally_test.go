//go:build unix

package engine

import (
	"log/slog"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// Two running turns covered by one daily tokens budget share its tally:
// each sees the other's tokens as they are reported, without reporting
// itself; a turn that starts later counts only what was reported after
// its ledger read (its base); the tally is forgotten once no turn holds
// it.
func TestTokenTallySharedByRunningTurns(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Budgets = hub.Budgets{Tokens: hub.BudgetLimits{Daily: 1e12}}
	e := &Engine{log: slog.New(slog.DiscardHandler), cfg: cfg}
	now := time.Now()
	start := func(thread string, before float64) *turnRT {
		tr := &turnRT{turn: hub.Turn{ID: "tu_" + thread, ThreadID: thread}, spend: newTurnSpend(now)}
		for _, s := range scopesFor(cfg.Budgets, hub.MeasureTokens, thread, "a", now) {
			tally, base := e.budgets.tally(s)
			tr.spend.tokens = append(tr.spend.tokens, spendLimit{scope: s, before: before, tally: tally, base: base})
		}
		if len(tr.spend.tokens) != 1 {
			t.Fatalf("%d tokens budgets, want the daily one", len(tr.spend.tokens))
		}
		return tr
	}
	first := start("th1", 100)
	if got := e.noteTokens(first, 0, 600); got != 600 {
		t.Fatalf("growth %d, want 600", got)
	}
	second := start("th2", 700) // its ledger read saw the first's 600
	e.noteTokens(second, 0, 500)
	if got := first.spend.tokens[0].spent(); got != 1200 {
		t.Fatalf("the first turn's daily figure %v, want 1,200 (100 + its 600 + the other's 500)", got)
	}
	if got := second.spend.tokens[0].spent(); got != 1200 {
		t.Fatalf("the second turn's daily figure %v, want 1,200 (700 + its 500)", got)
	}
	if e.noteTokens(second, 500, 400) != 0 || second.spend.tokens[0].spent() != 1200 {
		t.Fatal("a window that shrank added tokens")
	}
	e.spendRecord(first, now)
	e.spendRecord(second, now)
	if n := len(e.budgets.tallies); n != 0 {
		t.Fatalf("%d tallies left after both turns ended", n)
	}
}
