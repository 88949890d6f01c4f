//go:build unix

package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// BenchmarkTurnFlood streams 64-byte chunks from the fake agent through one
// turn: parsed, stored durably (group commit, synchronous=FULL) and
// delivered to a subscriber. Reports chunks/s end to end.
func BenchmarkTurnFlood(b *testing.B) {
	const chunks = 100000
	h := newHarness(b, nil)
	th, err := h.e.CreateThread(context.Background(), alice, hub.CreateThreadRequest{Agent: "fake", Cwd: h.cwd})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		sub, _ := h.e.Subscribe(context.Background(), alice, th.ID, -1)
		if _, err := h.e.StartTurn(context.Background(), alice, th.ID, hub.TurnInput{Input: fmt.Sprintf("flood %d 64", chunks)}); err != nil {
			b.Fatal(err)
		}
		n := 0 // chunks: the store joins those that wait for the same commit
		for ev := range sub.Events() {
			if ev.Type == hub.EventMessageDelta {
				var d struct{ Text string }
				if err := json.Unmarshal(ev.Payload, &d); err != nil {
					b.Fatal(err)
				}
				n += len(d.Text) / 64
			}
			if ev.Type == hub.EventTurnCompleted {
				break
			}
		}
		sub.Close()
		if n != chunks {
			b.Fatalf("delivered %d of %d chunks", n, chunks)
		}
	}
	b.ReportMetric(float64(chunks*b.N)/time.Since(start).Seconds(), "chunks/s")
}
