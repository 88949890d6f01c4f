package store

import (
	"context"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// The ledger's cost is the increase within (thread, session, currency); a
// new session or a lower report starts a new baseline; a report without
// cost costs nothing; rows survive the thread's deletion.
func TestUsageBaselines(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	th := hub.Thread{ID: "t1", ClientID: "alice", Agent: "a", Cwd: "/w", Status: hub.ThreadIdle, CreatedAt: time.Now(), UpdatedAt: time.Now()}
	if err := db.Commit(ctx, &hub.Write{Threads: []hub.Thread{th}}); err != nil {
		t.Fatal(err)
	}
	amt := func(v float64) *float64 { return &v }
	for i, c := range []struct {
		session, currency string
		amount            *float64
		want              float64
	}{
		{"s1", "USD", amt(0.10), 0.10},
		{"s1", "USD", amt(0.25), 0.15},
		{"s1", "EUR", amt(1.00), 1.00}, // its own baseline
		{"s1", "USD", nil, 0},
		{"s2", "USD", amt(0.05), 0.05}, // a new session
		{"s2", "USD", amt(0.02), 0.02}, // lower: a new baseline
		{"s1", "USD", amt(0.30), 0.05}, // s1 again: its baseline held
	} {
		w := &hub.Write{Usage: []hub.UsageRecord{{At: time.Now(), ThreadID: "t1", ClientID: "alice", Agent: "a", SessionID: c.session,
			Kind: hub.UsageUpdate, Amount: c.amount, Currency: c.currency}}}
		if err := db.Commit(ctx, w); err != nil {
			t.Fatal(err)
		}
		if got := w.Usage[0].Cost; got < c.want-1e-9 || got > c.want+1e-9 {
			t.Errorf("report %d: cost %v, want %v", i, got, c.want)
		}
	}
	bad := &hub.Write{Usage: []hub.UsageRecord{{ThreadID: "t1", Kind: hub.UsageUpdate, Amount: amt(-1), Currency: "USD"}}}
	if err := db.Commit(ctx, bad); err != nil || bad.Usage[0].Cost != 0 || bad.Usage[0].Amount != nil {
		t.Fatalf("a negative amount: %v, cost %v, amount %v; want stored without cost", err, bad.Usage[0].Cost, bad.Usage[0].Amount)
	}
	spent := func() float64 {
		s, err := db.UsageSpent(ctx, hub.UsageFilter{All: true, Currency: "USD"})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if s := spent(); s < 0.37-1e-9 || s > 0.37+1e-9 {
		t.Fatalf("spent %v, want 0.37", s)
	}
	tomb := hub.Thread{ID: "t1", ClientID: "alice", Status: hub.ThreadClosed, Deleted: true}
	if err := db.Commit(ctx, &hub.Write{Threads: []hub.Thread{tomb}, DeleteThreads: []string{"t1"}}); err != nil {
		t.Fatal(err)
	}
	if s := spent(); s < 0.37-1e-9 || s > 0.37+1e-9 {
		t.Fatalf("after the thread's deletion spent %v, want 0.37", s)
	}
	if rows, err := db.UsageRows(ctx, hub.UsageFilter{ClientID: "bob"}, hub.UsageByThread); err != nil || len(rows) != 0 {
		t.Fatalf("another client's rows %+v %v", rows, err)
	}
}

// An override is used once, and only counts from the time given.
func TestUnusedOverride(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	day := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	mustCommit(t, db, &hub.Write{Overrides: []hub.BudgetOverride{
		{ID: "old", Budget: "daily", DecidedBy: "window", At: day.Add(-time.Hour)},
		{ID: "new", Budget: "daily", DecidedBy: "client:alice", At: day.Add(time.Hour)},
	}})
	if id, err := db.UnusedOverride(ctx, "daily", "", day); err != nil || id != "new" {
		t.Fatalf("got %q %v, want new", id, err)
	}
	mustCommit(t, db, &hub.Write{Overrides: []hub.BudgetOverride{{ID: "new", Budget: "daily", DecidedBy: "-", UsedBy: "tu_1"}}})
	if id, err := db.UnusedOverride(ctx, "daily", "", day); err != nil || id != "" {
		t.Fatalf("got %q %v after its use, want none", id, err)
	}
	if id, _ := db.UnusedOverride(ctx, "daily", "", day.Add(-2*time.Hour)); id != "old" {
		t.Fatalf("got %q, want old", id)
	}
	var decidedBy string
	if err := db.queryRow(ctx, "SELECT decided_by FROM budget_overrides WHERE id = 'new'").Scan(&decidedBy); err != nil || decidedBy != "client:alice" {
		t.Fatalf("decidedBy %q %v: using an override must keep who gave it", decidedBy, err)
	}
}

// A turn's tokens are counted once (ADR 0052): its usage_update records'
// tokens (the window's growth) are taken back when a prompt record of the
// same turn with tokens is stored, in the same Write; a prompt record
// without tokens, or of another turn, leaves them.
func TestUsageResponseReplacesGrowth(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	th := hub.Thread{ID: "t1", ClientID: "alice", Agent: "a", Cwd: "/w", Status: hub.ThreadIdle, CreatedAt: time.Now(), UpdatedAt: time.Now()}
	if err := db.Commit(ctx, &hub.Write{Threads: []hub.Thread{th}}); err != nil {
		t.Fatal(err)
	}
	rec := func(turn, kind string, in, out int64) hub.UsageRecord {
		return hub.UsageRecord{At: time.Now(), ThreadID: "t1", TurnID: turn, ClientID: "alice", Agent: "a", Kind: kind, InputTokens: in, OutputTokens: out}
	}
	spent := func() float64 {
		t.Helper()
		v, err := db.UsageSpent(ctx, hub.UsageFilter{All: true, Measure: hub.MeasureTokens})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, w := range []*hub.Write{
		{Usage: []hub.UsageRecord{rec("u1", hub.UsageUpdate, 500, 0), rec("u1", hub.UsageUpdate, 300, 0), rec("u2", hub.UsageUpdate, 70, 0)}},
		{Usage: []hub.UsageRecord{rec("u1", hub.UsagePrompt, 0, 0)}}, // no tokens: the growth stays
	} {
		if err := db.Commit(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	if got := spent(); got != 870 {
		t.Fatalf("tokens %v, want 870: the growth as reported", got)
	}
	if err := db.Commit(ctx, &hub.Write{Usage: []hub.UsageRecord{rec("u1", hub.UsagePrompt, 4000, 1000)}}); err != nil {
		t.Fatal(err)
	}
	if got := spent(); got != 5070 {
		t.Fatalf("tokens %v, want 5,070: u1's response (5,000) instead of its growth, u2's growth (70)", got)
	}
}
