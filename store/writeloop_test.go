package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// pauseWriter makes the writer stop before each batch until the test lets
// it go: the batch's size arrives on sizes (if there is room), and the
// writer waits for a send on release; closing release lets every later
// batch through. Call before the writes it is to hold.
func pauseWriter(db *DB) (sizes chan int, release chan struct{}) {
	sizes, release = make(chan int, 16), make(chan struct{})
	db.batchHook = func(n int) {
		select {
		case sizes <- n:
		default:
		}
		<-release
	}
	return sizes, release
}

// commitOneBatch queues writes while the writer is held (pauseWriter,
// with a batch taken), lets them through as the next batch, checks that
// they made one, and returns once every write has been reported.
func commitOneBatch(t *testing.T, db *DB, sizes chan int, release chan struct{}, writes []*hub.Write, done func(*hub.Write, error)) {
	t.Helper()
	for _, w := range writes {
		db.CommitAsync(w, done)
	}
	release <- struct{}{}
	if n := <-sizes; n != len(writes) {
		t.Fatalf("second batch: %d writes, want %d", n, len(writes))
	}
	close(release)
	mustCommit(t, db, &hub.Write{}) // a barrier: everything before it has been reported
}

type result struct {
	w   *hub.Write
	err error
}

// collect returns a done callback that records results in order.
func collect(mu *sync.Mutex, out *[]result) func(*hub.Write, error) {
	return func(w *hub.Write, err error) {
		mu.Lock()
		*out = append(*out, result{w, err})
		mu.Unlock()
	}
}

func TestFailingWriteAloneInBatch(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	mustCommit(t, db, &hub.Write{
		Threads:     []hub.Thread{thread("t1", "c", 1)},
		Permissions: []hub.Permission{permission("p1", "t1", "u", 1)},
	})
	sizes, release := pauseWriter(db)
	var mu sync.Mutex
	var results []result
	done := collect(&mu, &results)
	ev := func(i int) []hub.Event { return []hub.Event{event(hub.EventMessageDelta, "t1", "", i)} }

	db.CommitAsync(&hub.Write{Events: ev(0)}, done) // batch 1, held before BEGIN
	if n := <-sizes; n != 1 {
		t.Fatalf("first batch: %d writes", n)
	}
	writes := []*hub.Write{
		{Events: ev(1)}, // good
		{Decide: decision("p1", hub.PermissionApproved, "window"), Events: ev(2)}, // good: the first decision
		{Decide: decision("p1", hub.PermissionDeclined, "tray"), Events: ev(3)},   // CONFLICT: decided just before
		{Turns: []hub.Turn{turn("u9", "ghost", 1)}, Events: ev(4)},                // foreign key: INTERNAL
		{Decide: decision("nope", hub.PermissionApproved, "tray"), Events: ev(5)}, // NOT_FOUND
		{Events: ev(6)}, // good
		// Single-statement writes (no savepoint of their own):
		{Turns: []hub.Turn{turn("u8", "ghost", 1)}},                // foreign key: INTERNAL
		{Decide: decision("p1", hub.PermissionExpired, "timeout")}, // CONFLICT
		{Events: []hub.Event{{ThreadID: "t1"}}},                    // no type: INVALID_ARGUMENT
		{Events: ev(7)},                                            // good
	}
	commitOneBatch(t, db, sizes, release, writes, done)

	mu.Lock()
	defer mu.Unlock()
	if len(results) != 1+len(writes) {
		t.Fatalf("%d results", len(results))
	}
	wantCodes := []string{"", "", hub.CodeConflict, hub.CodeInternal, hub.CodeNotFound, "",
		hub.CodeInternal, hub.CodeConflict, hub.CodeInvalidArgument, ""}
	wantSeqs := []int64{2, 3, 0, 0, 0, 4, 0, 0, 0, 5} // batch 1 took seq 1; refused writes leave no gap
	for i, r := range results[1:] {
		if r.w != writes[i] {
			t.Errorf("result %d is for another write: callbacks out of order", i)
		}
		if got := hub.ErrorCode(r.err); got != wantCodes[i] {
			t.Errorf("write %d: %v, want code %q", i, r.err, wantCodes[i])
		}
		if len(r.w.Events) == 0 {
			continue
		}
		if got := r.w.Events[0].Seq; got != wantSeqs[i] {
			t.Errorf("write %d: seq %d, want %d", i, got, wantSeqs[i])
		}
	}
	es, _ := db.Events(ctx, hub.EventFilter{All: true})
	if got := seqs(es); fmt.Sprint(got) != "[1 2 3 4 5]" {
		t.Errorf("stored seqs %v", got)
	}
	if _, err := db.GetTurn(ctx, "u8"); hub.ErrorCode(err) != hub.CodeNotFound {
		t.Errorf("turn of a refused write: %v", err)
	}
	p, _ := db.GetPermission(ctx, "p1")
	if p.Status != hub.PermissionApproved || p.DecidedBy != "window" {
		t.Errorf("permission: %s by %s", p.Status, p.DecidedBy)
	}
}

// TestCommitFailureFailsBatch makes COMMIT itself fail (a deferred foreign
// key, checked only at COMMIT, violated by a trigger on one event): every
// Write of the batch fails, none is visible, and the store keeps working.
func TestCommitFailureFailsBatch(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sb.db")
	db := mustOpenAt(t, path, Options{})
	mustCommit(t, db, writeThreads(thread("t1", "c", 1)))
	other, err := sql.Open("sqlite", dsn(path, writeParams))
	if err != nil {
		t.Fatal(err)
	}
	_, err = other.Exec(`
		CREATE TABLE boom_parent (id INTEGER PRIMARY KEY);
		CREATE TABLE boom_child (pid INTEGER REFERENCES boom_parent (id) DEFERRABLE INITIALLY DEFERRED);
		CREATE TRIGGER boom AFTER INSERT ON events WHEN NEW.type = 'boom'
			BEGIN INSERT INTO boom_child VALUES (42); END;`)
	other.Close()
	if err != nil {
		t.Fatal(err)
	}

	sizes, release := pauseWriter(db)
	var mu sync.Mutex
	var results []result
	done := collect(&mu, &results)
	db.CommitAsync(&hub.Write{Events: []hub.Event{event(hub.EventMessageDelta, "t1", "", 1)}}, done)
	<-sizes
	good := &hub.Write{Threads: []hub.Thread{thread("t2", "c", 2)}, Events: []hub.Event{event(hub.EventMessageDelta, "t1", "", 2)}}
	bad := &hub.Write{Events: []hub.Event{{Type: "boom", ThreadID: "t1"}}}
	good2 := &hub.Write{Events: []hub.Event{event(hub.EventMessageDelta, "t1", "", 3)}}
	for _, w := range []*hub.Write{good, bad, good2} {
		db.CommitAsync(w, done)
	}
	release <- struct{}{}
	if n := <-sizes; n != 3 {
		t.Fatalf("second batch: %d writes", n)
	}
	close(release)
	mustCommit(t, db, &hub.Write{})

	mu.Lock()
	for i, r := range results[1:] {
		var herr *hub.Error
		if !errors.As(r.err, &herr) || herr.Code != hub.CodeInternal {
			t.Errorf("write %d: %v, want an INTERNAL *hub.Error", i, r.err)
		}
		if r.w.Events[0].Seq != 0 {
			t.Errorf("write %d: seq %d kept after a failed commit", i, r.w.Events[0].Seq)
		}
	}
	mu.Unlock()
	if _, err := db.GetThread(ctx, "t2"); hub.ErrorCode(err) != hub.CodeNotFound {
		t.Errorf("thread of the failed batch: %v", err)
	}
	// Still usable, and the log has no gap.
	w := &hub.Write{Events: []hub.Event{event(hub.EventMessageDelta, "t1", "", 4)}}
	mustCommit(t, db, w)
	if w.Events[0].Seq != 2 {
		t.Errorf("next seq %d, want 2", w.Events[0].Seq)
	}
	es, _ := db.Events(ctx, hub.EventFilter{All: true})
	if got := seqs(es); fmt.Sprint(got) != "[1 2]" {
		t.Errorf("stored seqs %v", got)
	}
}

// TestSeqUnderConcurrency: 8 goroutines × 2000 CommitAsync events get
// strictly increasing, gap-free seqs, and each goroutine's callbacks come
// in its submission order.
func TestSeqUnderConcurrency(t *testing.T) {
	const goroutines, per = 8, 2000
	ctx := context.Background()
	db := MustOpenDB(t)
	mustCommit(t, db, writeThreads(thread("t1", "c", 1)))
	type rec struct {
		i   int
		seq int64
	}
	got := make([][]rec, goroutines)
	var wg sync.WaitGroup
	wg.Add(goroutines * per)
	for g := range goroutines {
		go func() {
			for i := range per {
				e := hub.Event{Type: hub.EventMessageDelta, ThreadID: "t1", At: at(i),
					Payload: json.RawMessage(fmt.Sprintf(`{"g":%d,"i":%d}`, g, i))}
				db.CommitAsync(&hub.Write{Events: []hub.Event{e}}, func(w *hub.Write, err error) {
					if err != nil {
						t.Errorf("g%d i%d: %v", g, i, err)
					}
					got[g] = append(got[g], rec{i, w.Events[0].Seq}) // writer goroutine only
					wg.Done()
				})
			}
		}()
	}
	wg.Wait()
	bySeq := map[int64][2]int{}
	for g, rs := range got {
		if len(rs) != per {
			t.Fatalf("g%d: %d callbacks", g, len(rs))
		}
		for k, r := range rs {
			if r.i != k {
				t.Fatalf("g%d: callback %d is for write %d", g, k, r.i)
			}
			if k > 0 && r.seq <= rs[k-1].seq {
				t.Fatalf("g%d: seq %d after %d", g, r.seq, rs[k-1].seq)
			}
			bySeq[r.seq] = [2]int{g, r.i}
		}
	}
	var stored []hub.Event
	for after := int64(0); ; {
		es, err := db.Events(ctx, hub.EventFilter{All: true, After: after, Limit: MaxEventLimit})
		if err != nil {
			t.Fatal(err)
		}
		if len(es) == 0 {
			break
		}
		stored = append(stored, es...)
		after = es[len(es)-1].Seq
	}
	if len(stored) != goroutines*per {
		t.Fatalf("%d events stored", len(stored))
	}
	for k, e := range stored {
		if e.Seq != int64(k+1) {
			t.Fatalf("event %d has seq %d: a gap", k, e.Seq)
		}
		var p struct{ G, I int }
		if err := json.Unmarshal(e.Payload, &p); err != nil {
			t.Fatal(err)
		}
		if want := bySeq[e.Seq]; want != [2]int{p.G, p.I} {
			t.Fatalf("seq %d holds g%d i%d, callback said g%d i%d", e.Seq, p.G, p.I, want[0], want[1])
		}
	}
}

func TestCommitContext(t *testing.T) {
	ctx := context.Background()
	db := mustOpenAt(t, filepath.Join(t.TempDir(), "sb.db"), Options{QueueSize: 1})
	mustCommit(t, db, writeThreads(thread("t1", "c", 1)))

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := db.Commit(cancelled, writeThreads(thread("never", "c", 1))); !errors.Is(err, context.Canceled) {
		t.Errorf("Commit with a cancelled ctx: %v", err)
	}

	sizes, release := pauseWriter(db)
	db.CommitAsync(writeThreads(thread("held", "c", 1)), nil) // taken by the writer, held
	<-sizes
	// Waiting for the result: the ctx ends, the write still commits later.
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if err := db.Commit(short, writeThreads(thread("late", "c", 1))); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Commit waiting for its result: %v", err)
	}
	// The queue (size 1) now holds "late": waiting to enqueue ends with ctx too.
	short2, cancel2 := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel2()
	if err := db.Commit(short2, writeThreads(thread("dropped", "c", 1))); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Commit waiting to enqueue: %v", err)
	}
	close(release)
	mustCommit(t, db, &hub.Write{})
	for id, want := range map[string]string{"held": "", "late": "", "dropped": hub.CodeNotFound, "never": hub.CodeNotFound} {
		if _, err := db.GetThread(ctx, id); hub.ErrorCode(err) != want {
			t.Errorf("thread %s: %v, want code %q", id, err, want)
		}
	}
}

// TestCloseFlushes: Close applies every queued write and reports it.
func TestCloseFlushes(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sb.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustCommit(t, db, writeThreads(thread("t1", "c", 1)))
	const n = 3000
	var reported int // written by the writer goroutine, read after Close
	for i := range n {
		db.CommitAsync(&hub.Write{Events: []hub.Event{event(hub.EventMessageDelta, "t1", "", i)}},
			func(_ *hub.Write, err error) {
				if err == nil {
					reported++
				}
			})
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if reported != n {
		t.Errorf("%d of %d callbacks reported success by Close", reported, n)
	}
	if err := db.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := db.Commit(ctx, &hub.Write{}); !errors.Is(err, ErrClosed) {
		t.Errorf("Commit after Close: %v", err)
	}
	var asyncErr error
	db.CommitAsync(&hub.Write{}, func(_ *hub.Write, err error) { asyncErr = err })
	if !errors.Is(asyncErr, ErrClosed) {
		t.Errorf("CommitAsync after Close: %v", asyncErr)
	}
	db2 := mustOpenAt(t, path, Options{})
	if last, err := db2.LastSeq(ctx); err != nil || last != n {
		t.Errorf("after reopen: LastSeq %d, %v; want %d", last, err, n)
	}
}

// TestBatchLimits: the writer never takes more than MaxBatch writes at once.
func TestBatchLimits(t *testing.T) {
	db := mustOpenAt(t, filepath.Join(t.TempDir(), "sb.db"), Options{MaxBatch: 10, MaxBatchBytes: 1 << 30})
	mustCommit(t, db, writeThreads(thread("t1", "c", 1)))
	sizes, release := pauseWriter(db)
	db.CommitAsync(&hub.Write{}, nil)
	<-sizes
	for range 25 {
		db.CommitAsync(&hub.Write{Events: []hub.Event{event(hub.EventMessageDelta, "t1", "", 1)}}, nil)
	}
	var got []int
	go func() {
		for range 4 {
			release <- struct{}{}
		}
	}()
	for range 3 {
		got = append(got, <-sizes)
	}
	if fmt.Sprint(got) != "[10 10 5]" {
		t.Errorf("batch sizes %v, want [10 10 5]", got)
	}
}
