package store

import (
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// BenchmarkUsageReports: a usage event plus its ledger record per Write
// (the engine's usage_update path), through CommitAsync; compare with
// BenchmarkAppendEvents for what the ledger adds. Each report reads its
// session's last amount and inserts a row; sessions rotate over 100.
func BenchmarkUsageReports(b *testing.B) {
	db := benchDB(b)
	var wg sync.WaitGroup
	wg.Add(b.N)
	done := func(_ *hub.Write, err error) {
		if err != nil {
			b.Error(err)
		}
		wg.Done()
	}
	sessions := []string{}
	for i := range 100 {
		sessions = append(sessions, "s"+string(rune('A'+i%26))+string(rune('a'+i/26)))
	}
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		amount := float64(i) / 1000
		ev := delta(i)
		ev.Type = hub.EventUsage
		db.CommitAsync(&hub.Write{Events: []hub.Event{ev}, Usage: []hub.UsageRecord{{At: at(i), ThreadID: "t1", TurnID: "u1", ClientID: "c1",
			Agent: "a", SessionID: sessions[i%len(sessions)], Kind: hub.UsageUpdate, Used: int64(i), Size: 200000, Amount: &amount, Currency: "USD"}}}, done)
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "reports/s")
}
