//go:build unix

package engine_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// BenchmarkExportImport: a thread of 10 turns × 1000 message chunks
// exported as JSON lines and imported again; events/s of each.
func BenchmarkExportImport(b *testing.B) {
	h := newHarness(b, nil)
	ctx := context.Background()
	th := h.thread("fake")
	t0 := time.Now()
	for i := range 10 {
		tu := hub.Turn{ID: fmt.Sprintf("tu_bench%04d", i), ThreadID: th.ID, Status: hub.TurnCompleted, Input: "go on", StartedAt: t0}
		w := &hub.Write{Turns: []hub.Turn{tu}}
		for j := range 1000 {
			ev, _ := hub.NewEvent(hub.EventMessageDelta, th, tu.ID, t0, map[string]string{"text": fmt.Sprintf("chunk %d of the answer, with some words in it. ", j)})
			w.Events = append(w.Events, ev)
		}
		if err := h.db.Commit(ctx, w); err != nil {
			b.Fatal(err)
		}
	}
	var jl bytes.Buffer
	b.ResetTimer()
	var exp, imp time.Duration
	for range b.N {
		jl.Reset()
		s := time.Now()
		if err := h.e.ExportThreads(ctx, alice, hub.ExportRequest{ThreadID: th.ID, Format: hub.ExportJSONL}, &jl); err != nil {
			b.Fatal(err)
		}
		exp += time.Since(s)
		s = time.Now()
		if _, err := h.e.ImportThreads(ctx, alice, hub.ImportRequest{}, bytes.NewReader(jl.Bytes())); err != nil {
			b.Fatal(err)
		}
		imp += time.Since(s)
	}
	n := float64(10000 * b.N)
	b.ReportMetric(n/exp.Seconds(), "export-events/s")
	b.ReportMetric(n/imp.Seconds(), "import-events/s")
	b.ReportMetric(float64(jl.Len()), "jsonl-bytes")
}
