package store

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// Benchmark data sizes: small by default; SWITCHBOARD_BENCH_LARGE=1 for
// 10k threads and 1M events.
func benchSizes() (threads, events int) {
	if os.Getenv("SWITCHBOARD_BENCH_LARGE") == "1" {
		return 10_000, 1_000_000
	}
	return 1_000, 50_000
}

// payload64 is a 64-byte message_delta payload.
var payload64 = json.RawMessage(`{"text":"` + strings.Repeat("x", 64-len(`{"text":""}`)) + `"}`)

func benchDB(b *testing.B) *DB {
	b.Helper()
	db := MustOpenDB(b)
	mustCommit(b, db, writeThreads(thread("t1", "c1", 1)))
	return db
}

func delta(i int) hub.Event {
	return hub.Event{Type: hub.EventMessageDelta, ThreadID: "t1", TurnID: "u1", ClientID: "c1", At: at(i), Payload: payload64}
}

// BenchmarkAppendEvents: one 64-byte message_delta per Write, through
// CommitAsync (the streaming path): the writer groups them.
func BenchmarkAppendEvents(b *testing.B) {
	db := benchDB(b)
	var wg sync.WaitGroup
	wg.Add(b.N)
	done := func(_ *hub.Write, err error) {
		if err != nil {
			b.Error(err)
		}
		wg.Done()
	}
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		db.CommitAsync(&hub.Write{Events: []hub.Event{delta(i)}}, done)
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
}

// BenchmarkAppendChunks: BenchmarkAppendEvents with prose chunks (64
// bytes of words ending with a space, as BenchmarkSSEFlood's agent sends)
// with the search index and without (Options.SearchOff): what indexing
// adds to the streaming path. One message of b.N chunks.
func BenchmarkAppendChunks(b *testing.B) {
	text := strings.Repeat("lorem ipsum dolor sit amet ", 3)[:63] + " "
	q, _ := json.Marshal(text)
	payload := json.RawMessage(`{"text":` + string(q) + `}`)
	for _, bc := range []struct {
		name string
		off  bool
	}{{"search", false}, {"nosearch", true}} {
		b.Run(bc.name, func(b *testing.B) {
			db := mustOpenAt(b, filepath.Join(b.TempDir(), "switchboard.db"), Options{SearchOff: bc.off})
			mustCommit(b, db, writeThreads(thread("t1", "c1", 1)))
			var wg sync.WaitGroup
			wg.Add(b.N)
			done := func(_ *hub.Write, err error) {
				if err != nil {
					b.Error(err)
				}
				wg.Done()
			}
			b.ResetTimer()
			start := time.Now()
			for i := range b.N {
				e := delta(i)
				e.Payload = payload
				db.CommitAsync(&hub.Write{Events: []hub.Event{e}}, done)
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
		})
	}
}

// BenchmarkCommitSync: one event per Commit, one caller: every Write is its
// own transaction and fsync.
func BenchmarkCommitSync(b *testing.B) {
	db := benchDB(b)
	ctx := context.Background()
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		if err := db.Commit(ctx, &hub.Write{Events: []hub.Event{delta(i)}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
}

// BenchmarkCommitSyncParallel: one event per Commit from many callers:
// group commit shares each fsync among the callers waiting.
func BenchmarkCommitSyncParallel(b *testing.B) {
	db := benchDB(b)
	ctx := context.Background()
	b.SetParallelism(16)
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := db.Commit(ctx, &hub.Write{Events: []hub.Event{delta(0)}}); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
}

// fill writes nThreads threads over 10 clients and nEvents events spread
// over them, in Writes of 1000 rows.
func fill(b *testing.B, db *DB, nThreads, nEvents int) {
	b.Helper()
	var wg sync.WaitGroup
	submit := func(w *hub.Write) {
		wg.Add(1)
		db.CommitAsync(w, func(_ *hub.Write, err error) {
			if err != nil {
				b.Error(err)
			}
			wg.Done()
		})
	}
	w := &hub.Write{}
	for i := range nThreads {
		w.Threads = append(w.Threads, thread(fmt.Sprintf("t%05d", i), fmt.Sprintf("c%d", i%10), i))
		if len(w.Threads) == 1000 {
			submit(w)
			w = &hub.Write{}
		}
	}
	submit(w)
	wg.Wait()
	w = &hub.Write{}
	for i := range nEvents {
		th := i % nThreads
		w.Events = append(w.Events, hub.Event{Type: hub.EventMessageDelta, ThreadID: fmt.Sprintf("t%05d", th),
			ClientID: fmt.Sprintf("c%d", th%10), At: at(i), Payload: payload64})
		if len(w.Events) == 1000 {
			submit(w)
			w = &hub.Write{}
		}
	}
	submit(w)
	wg.Wait()
}

func BenchmarkEventsAfter(b *testing.B) {
	nThreads, nEvents := benchSizes()
	db := MustOpenDB(b)
	fill(b, db, nThreads, nEvents)
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		f    func(after int64) hub.EventFilter
	}{
		{"all/100", func(a int64) hub.EventFilter { return hub.EventFilter{All: true, After: a, Limit: 100} }},
		{"all/1000", func(a int64) hub.EventFilter { return hub.EventFilter{All: true, After: a, Limit: 1000} }},
		{"client/100", func(a int64) hub.EventFilter { return hub.EventFilter{ClientID: "c3", After: a, Limit: 100} }},
		{"thread/100", func(a int64) hub.EventFilter {
			return hub.EventFilter{All: true, ThreadID: "t00007", After: a, Limit: 100}
		}},
		{"tail", func(int64) hub.EventFilter { return hub.EventFilter{All: true, After: int64(nEvents - 10)} }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			for b.Loop() {
				if _, err := db.Events(ctx, bc.f(rng.Int64N(int64(nEvents)))); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkListThreads(b *testing.B) {
	nThreads, _ := benchSizes()
	db := MustOpenDB(b)
	fill(b, db, nThreads, 0)
	ctx := context.Background()
	// A cursor halfway down the list.
	mid, _, err := db.ListThreads(ctx, hub.ThreadFilter{All: true, Limit: nThreads / 2})
	if err != nil {
		b.Fatal(err)
	}
	last := mid[len(mid)-1]
	cursor := encodeCursor(encTime(last.UpdatedAt), last.ID)
	for _, bc := range []struct {
		name string
		f    hub.ThreadFilter
	}{
		{"client/first", hub.ThreadFilter{ClientID: "c3"}},
		{"all/first", hub.ThreadFilter{All: true}},
		{"all/middle", hub.ThreadFilter{All: true, Cursor: cursor}},
		{"client/cwd", hub.ThreadFilter{ClientID: "c3", Cwd: "/src/c3"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := db.ListThreads(ctx, bc.f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkIndexedCommitLatency: the latency of one Commit on the live
// stream's path with the search index on — ten threads' turns streaming
// 64-byte prose chunks, one event per commit, as copies (no WAL sync, no
// window: ADR 0055) — so that what the index's upkeep adds to a single
// commit shows in the tail: a document written every 64 chunks of a
// thread, FTS5 merging its segments inside some commits (automerge), and
// the checkpointer's fsyncs beside. Metrics: reportLatencies'.
func BenchmarkIndexedCommitLatency(b *testing.B) {
	const threads = 10
	db, text := copiesDB(b, threads)
	n := max(b.N, 50_000) // enough commits for the index to merge a few levels
	lat := make([]time.Duration, 0, n)
	b.ResetTimer()
	for i := range n {
		id := fmt.Sprintf("t%d@box", i%threads)
		start := time.Now()
		mustCommit(b, db, &hub.Write{Copies: true, Events: []hub.Event{textEvent(hub.EventMessageDelta, id, "u"+id, 2+i, text)}})
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	reportLatencies(b, lat)
}

// BenchmarkCopyBurst: Writes of 100 copied text deltas each, ten turns'
// interleaved, one Write after another: a host's copies after a moment's
// backlog, each Write in its savepoint (stmtjournal.go). Metrics:
// reportLatencies'.
func BenchmarkCopyBurst(b *testing.B) {
	const burst, threads = 100, 10
	db, text := copiesDB(b, threads)
	n := max(b.N, 500)
	lat := make([]time.Duration, 0, n)
	seq := 2
	b.ResetTimer()
	for range n {
		w := &hub.Write{Copies: true}
		for range burst {
			id := fmt.Sprintf("t%d@box", seq%threads)
			w.Events = append(w.Events, textEvent(hub.EventMessageDelta, id, "u"+id, seq, text))
			seq++
		}
		start := time.Now()
		mustCommit(b, db, w)
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	reportLatencies(b, lat)
}

// copiesDB is a database holding copies of a host's threads "t<i>@box"
// with a running turn "ut<i>@box" each, and the 64 bytes of prose their
// chunks carry.
func copiesDB(b *testing.B, threads int) (*DB, string) {
	db := mustOpenAt(b, filepath.Join(b.TempDir(), "switchboard.db"), Options{})
	w := &hub.Write{Copies: true}
	for i := range threads {
		id := fmt.Sprintf("t%d@box", i)
		w.Threads = append(w.Threads, thread(id, "c1", 1))
		w.Turns = append(w.Turns, turn("u"+id, id, 1))
	}
	mustCommit(b, db, w)
	return db, strings.Repeat("lorem ipsum dolor sit amet ", 3)[:63] + " "
}

// reportLatencies reports lat's p50, p99, p99.9 and max in µs (lat is
// sorted in place).
func reportLatencies(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	n := len(lat)
	q := func(p float64) float64 { return float64(lat[min(int(p*float64(n)), n-1)].Microseconds()) }
	b.ReportMetric(q(0.5), "p50-µs")
	b.ReportMetric(q(0.99), "p99-µs")
	b.ReportMetric(q(0.999), "p99.9-µs")
	b.ReportMetric(q(1), "max-µs")
}
