//go:build unix

package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/engine"
	"github.com/switchboard-hub/switchboard/store"
)

// fullStore is a store whose data dir's disk is full while full is set:
// every write fails as SQLite's SQLITE_FULL does, reads work.
type fullStore struct {
	*store.DB
	full atomic.Bool
	// ends counts the turn ends refused while full: a test waits on it.
	ends atomic.Int32
}

// refuse counts w when it ends a turn.
func (s *fullStore) refuse(w *hub.Write) error {
	for _, t := range w.Turns {
		if t.Status != hub.TurnRunning {
			s.ends.Add(1)
		}
	}
	return diskFullErr()
}

func diskFullErr() error {
	return store.DiskFullError("commit", errors.New("database or disk is full (13)"))
}

func (s *fullStore) Commit(ctx context.Context, w *hub.Write) error {
	if s.full.Load() {
		return s.refuse(w)
	}
	return s.DB.Commit(ctx, w)
}

func (s *fullStore) CommitAsync(w *hub.Write, done func(*hub.Write, error)) {
	if s.full.Load() {
		err := s.refuse(w)
		if done != nil {
			done(w, err)
		}
		return
	}
	s.DB.CommitAsync(w, done)
}

func openFull(t *testing.T) (*engine.Engine, *fullStore, string) {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "hub.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fs := &fullStore{DB: db}
	e, err := engine.New(context.Background(), engine.Options{Store: fs, Config: engine.DefaultConfig(), Agents: []acp.AgentSpec{fakeSpec(t, "fake")},
		AgentOptions: acp.AgentOptions{Process: acp.ProcessOptions{Grace: 300 * time.Millisecond}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		e.Close(ctx)
		db.Close()
	})
	return e, fs, t.TempDir()
}

// A turn that ends while the disk is full ends for real once space
// returns: its status and its turn_completed event are stored (and
// streamed) then, the window is told the disk is full and then that it is
// not, and no other turn starts on the thread before the end is stored.
func TestTurnEndSurvivesFullDisk(t *testing.T) {
	e, fs, cwd := openFull(t)
	ctx := context.Background()
	th, err := e.CreateThread(ctx, alice, hub.CreateThreadRequest{Agent: "fake", Cwd: cwd})
	if err != nil {
		t.Fatal(err)
	}
	window, err := e.Subscribe(ctx, hub.Caller{ClientID: "window", All: true}, "", -1)
	if err != nil {
		t.Fatal(err)
	}
	defer window.Close()
	sub, err := e.Subscribe(ctx, alice, th.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	tu, err := e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "ticks 10 20"}) // half a second
	if err != nil {
		t.Fatal(err)
	}
	until(t, sub, hub.EventTurnStarted)
	fs.full.Store(true)

	full := until(t, window, hub.EventDiskFull)
	var msg struct{ Message string }
	if json.Unmarshal(full.Payload, &msg); msg.Message == "" || full.Seq != 0 {
		t.Fatalf("disk_full %+v", full)
	}
	waitUntil(t, "the turn's end to be refused", func() bool { return fs.ends.Load() > 0 }) // the turn has ended in the agent; its end waits
	if _, err := e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "echo too soon"}); err == nil {
		t.Fatal("a turn started on the thread before the last one's end was stored")
	}
	if got, _ := fs.DB.GetTurn(ctx, tu.ID); got.Status != hub.TurnRunning {
		t.Fatalf("stored while the disk is full: %+v", got)
	}

	fs.full.Store(false)
	done := until(t, sub, hub.EventTurnCompleted)
	if done.TurnID != tu.ID || done.Seq == 0 {
		t.Fatalf("turn_completed %+v", done)
	}
	for msg.Message != "" { // repeated while it lasted, then cleared
		if ev := until(t, window, hub.EventDiskFull); json.Unmarshal(ev.Payload, &msg) != nil {
			t.Fatalf("disk_full %s", ev.Payload)
		}
	}
	got, err := fs.DB.GetTurn(ctx, tu.ID)
	if err != nil || got.Status != hub.TurnCompleted || got.EndedAt == nil {
		t.Fatalf("stored turn %+v, %v", got, err)
	}
	hist, err := e.History(ctx, alice, th.ID, true, false)
	if err != nil || len(hist) != 1 || hist[0].Events[len(hist[0].Events)-1].Type != hub.EventTurnCompleted {
		t.Fatalf("history %+v %v", hist, err)
	}
	if thr, _ := e.GetThread(ctx, alice, th.ID); thr.Status != hub.ThreadIdle {
		t.Errorf("thread %s, want idle", thr.Status)
	}
	// The thread takes turns again.
	if _, err := e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "echo again"}); err != nil {
		t.Fatal(err)
	}
	until(t, sub, hub.EventTurnCompleted)
}

// A hub stopped while a turn's end waits for room gives up at once
// (restart recovery ends the turn).
func TestCloseWhileDiskFull(t *testing.T) {
	e, fs, cwd := openFull(t)
	ctx := context.Background()
	th, err := e.CreateThread(ctx, alice, hub.CreateThreadRequest{Agent: "fake", Cwd: cwd})
	if err != nil {
		t.Fatal(err)
	}
	sub, _ := e.Subscribe(ctx, alice, th.ID, 0)
	defer sub.Close()
	if _, err := e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "ticks 4 20"}); err != nil {
		t.Fatal(err)
	}
	until(t, sub, hub.EventTurnStarted)
	fs.full.Store(true)
	waitUntil(t, "the turn's end to be refused", func() bool { return fs.ends.Load() > 0 })
	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	e.Close(cctx)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %v with the disk full", d)
	}
}
