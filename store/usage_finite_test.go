package store

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// Hostile reports (issue 28): amounts near MaxFloat64, infinite, NaN,
// and token counts past the cap are clamped on the way in, so that sums
// stay finite and the ledger keeps answering.
func TestUsageClampsHostileReports(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	th := hub.Thread{ID: "t1", ClientID: "alice", Agent: "a", Cwd: "/w", Status: hub.ThreadIdle, CreatedAt: time.Now(), UpdatedAt: time.Now()}
	if err := db.Commit(ctx, &hub.Write{Threads: []hub.Thread{th}}); err != nil {
		t.Fatal(err)
	}
	for i, a := range []float64{1.7e308, 1.79e308, math.Inf(1), math.NaN(), 1.7e308} {
		w := &hub.Write{Usage: []hub.UsageRecord{{At: time.Now(), ThreadID: "t1", ClientID: "alice", Agent: "a", SessionID: "s",
			Kind: hub.UsageUpdate, Amount: &a, Currency: "USD", Used: math.MaxInt64, Size: math.MaxInt64,
			InputTokens: math.MaxInt64, OutputTokens: math.MaxInt64}}}
		if err := db.Commit(ctx, w); err != nil {
			t.Fatalf("report %d: %v", i, err)
		}
		if c := w.Usage[0].Cost; c < 0 || c > hub.MaxUsageAmount {
			t.Errorf("report %d: cost %v, want within [0, %v]", i, c, hub.MaxUsageAmount)
		}
	}
	spent, err := db.UsageSpent(ctx, hub.UsageFilter{All: true, Currency: "USD"})
	if err != nil || math.IsInf(spent, 0) || math.IsNaN(spent) || spent != hub.MaxUsageAmount {
		t.Fatalf("spent %v, %v; want the cap %v (one baseline, then no increase)", spent, err, hub.MaxUsageAmount)
	}
	rows, err := db.UsageRows(ctx, hub.UsageFilter{All: true}, hub.UsageByThread)
	if err != nil || len(rows) != 1 {
		t.Fatalf("rows %v, %v", rows, err)
	}
	if r := rows[0]; r.InputTokens != 5*hub.MaxUsageTokens || r.Used != hub.MaxUsageTokens || r.Size != hub.MaxUsageTokens {
		t.Errorf("tokens in %d, used %d, size %d; want each report clamped to %d", r.InputTokens, r.Used, r.Size, int64(hub.MaxUsageTokens))
	}
}

// Migration 0015 repairs rows stored before the clamps: an infinite cost
// and absurd token counts are clamped to the caps, never deleted.
func TestMigrationUsageFinite(t *testing.T) {
	ctx := context.Background()
	path, raw, conn := migratedTo(t, 14)
	for _, q := range []string{
		`INSERT INTO usage (at, thread_id, client_id, agent, session_id, kind, amount, currency, cost, input_tokens)
			VALUES (1, 't1', 'c', 'a', 's', 'update', 1.7e308, 'USD', 1.7e308, 0),
			       (2, 't1', 'c', 'a', 's', 'update', 1e999, 'USD', 1e999, 0),
			       (3, 't1', 'c', 'a', 's', 'prompt', NULL, '', 0, 9000000000000000000),
			       (4, 't1', 'c', 'a', 's', 'update', 0.5, 'EUR', 0.5, 10)`,
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var inf float64
	if err := conn.QueryRowContext(ctx, `SELECT SUM(cost) FROM usage WHERE currency = 'USD'`).Scan(&inf); err != nil || !math.IsInf(inf, 1) {
		t.Fatalf("before 0015 the sum is %v, %v; want +Inf (the bug)", inf, err)
	}
	conn.Close()
	raw.Close()

	db := mustOpenAt(t, path, Options{})
	var n int
	if err := db.rdb.QueryRow(`SELECT COUNT(*) FROM usage`).Scan(&n); err != nil || n != 4 {
		t.Fatalf("rows after 0015: %d, %v; want all 4 kept", n, err)
	}
	spent, err := db.UsageSpent(ctx, hub.UsageFilter{All: true, Currency: "USD"})
	if err != nil || spent != 2*hub.MaxUsageAmount {
		t.Errorf("USD spent after 0015: %v, %v; want %v (each row clamped to the cap)", spent, err, 2*hub.MaxUsageAmount)
	}
	if eur, _ := db.UsageSpent(ctx, hub.UsageFilter{All: true, Currency: "EUR"}); eur != 0.5 {
		t.Errorf("EUR spent after 0015: %v; a sane row must not change", eur)
	}
	rows, err := db.UsageRows(ctx, hub.UsageFilter{All: true}, hub.UsageByAgent)
	if err != nil {
		t.Fatal(err)
	}
	var in int64
	for _, r := range rows {
		in += r.InputTokens
	}
	if in != hub.MaxUsageTokens+10 {
		t.Errorf("input tokens after 0015: %d, want %d", in, int64(hub.MaxUsageTokens)+10)
	}
}
