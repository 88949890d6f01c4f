package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
	"github.com/switchboard-hub/switchboard/hub"
)

// Searches run on their own pool (issue 28: four hostile searches took
// every read connection and stalled history for 30 s): with every search
// connection taken and searches waiting for one, history and events are
// read at once from the read pool (a one-connection pool here, so one
// search on it would block them), and the waiting searches end with their
// context's deadline.
func TestSearchHasItsOwnPool(t *testing.T) {
	ctx := context.Background()
	db := mustOpenAt(t, filepath.Join(t.TempDir(), "switchboard.db"), Options{ReadConns: 1, SearchConns: 1})
	th := hub.Thread{ID: "t1", ClientID: "alice", Agent: "a", Cwd: "/w", Status: hub.ThreadIdle, CreatedAt: time.Now(), UpdatedAt: time.Now()}
	if err := db.Commit(ctx, &hub.Write{Threads: []hub.Thread{th}}); err != nil {
		t.Fatal(err)
	}
	held, err := db.sdb.Conn(ctx) // the search pool's only connection, busy
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()

	const searches = 4
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make(chan error, searches)
	for range searches {
		go func() {
			_, err := db.Search(sctx, hub.SearchFilter{SearchQuery: hub.SearchQuery{Q: "abc*"}, All: true})
			errs <- err
		}()
	}
	if !testkit.Until(10*time.Second, func() bool { return db.sdb.Stats().WaitCount >= searches }) {
		t.Fatalf("searches not waiting for the search pool: %+v", db.sdb.Stats())
	}
	// Every search waits; reads do not.
	rctx, rcancel := context.WithTimeout(ctx, 5*time.Second)
	defer rcancel()
	if _, err := db.ListTurns(rctx, "t1", false); err != nil {
		t.Fatalf("history while searches wait: %v", err)
	}
	if _, err := db.Events(rctx, hub.EventFilter{All: true, Limit: 10}); err != nil {
		t.Fatalf("events while searches wait: %v", err)
	}
	if _, err := db.GetThread(rctx, "t1"); err != nil {
		t.Fatalf("thread while searches wait: %v", err)
	}
	select {
	case err := <-errs:
		t.Fatalf("a search ended while the search pool was busy: %v", err)
	default:
	}
	cancel()
	for range searches {
		if err := <-errs; !errors.Is(err, context.Canceled) {
			t.Errorf("a waiting search ended with %v, want its context's error", err)
		}
	}
}
