//go:build unix

package engine_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/engine"
)

// overlapEvent reads th's events until a thread_updated whose thread's
// overlaps are want (as "path↔thread"), and fails after 20 s.
func overlapEvent(t *testing.T, sub *hub.Subscription, want ...string) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	var last []string
	for {
		select {
		case ev := <-sub.Events():
			if ev.Type != hub.EventThreadUpdated {
				continue
			}
			last = last[:0]
			for _, o := range payload[hub.Thread](t, ev, "thread").Overlaps {
				last = append(last, o.Path+"↔"+o.ThreadID)
			}
			if slices.Equal(last, want) || (len(want) == 0 && len(last) == 0) {
				return
			}
		case <-deadline:
			t.Fatalf("no thread_updated with overlaps %q (last %q)", want, last)
		}
	}
}

// TestOverlapsSameCheckout: two threads of one checkout change the same
// file: both get a thread_updated carrying the overlap, GetThread shows
// it, an approval for an edit of that file carries the overlap flag, and
// archiving one thread clears the other's.
func TestOverlapsSameCheckout(t *testing.T) {
	h := newHarness(t, nil)
	gitInit(t, h.cwd, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	one, two := h.thread("fake"), h.thread("fake")
	sub1, sub2 := h.watch(one), h.watch(two)
	a := filepath.Join(h.cwd, "a.txt")
	h.run(one, sub1, "fs-write "+a+" one")
	h.run(two, sub2, "fs-write "+a+" two")
	overlapEvent(t, sub2, "a.txt↔"+one.ID)
	overlapEvent(t, sub1, "a.txt↔"+two.ID)
	got, err := h.e.GetThread(context.Background(), alice, one.ID)
	if err != nil || len(got.Overlaps) != 1 || got.Overlaps[0].Conflict != nil {
		t.Fatalf("GetThread overlaps %+v, %v (same checkout: no conflict field)", got.Overlaps, err)
	}

	// Another change of the thread (a rename) is announced with its
	// overlaps, and the event is the same stored as streamed: a stream
	// resumed before it reads the very bytes the live one did.
	if _, err := h.e.RenameThread(context.Background(), alice, one.ID, "Renamed"); err != nil {
		t.Fatal(err)
	}
	live := until(t, sub1, hub.EventThreadUpdated)
	if th := payload[hub.Thread](t, live, "thread"); th.Title != "Renamed" || len(th.Overlaps) != 1 {
		t.Fatalf("the rename's thread_updated: %+v, want the new title and the overlap", th)
	}
	again, err := h.e.Subscribe(context.Background(), alice, one.ID, live.Seq-1)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if stored := until(t, again, hub.EventThreadUpdated); stored.Seq != live.Seq || string(stored.Payload) != string(live.Payload) {
		t.Fatalf("stored %d %s\nstreamed %d %s", stored.Seq, stored.Payload, live.Seq, live.Payload)
	}

	// An edit of a.txt asked of the user carries the flag; of b.txt not.
	for _, x := range []struct {
		file string
		flag bool
	}{{"a.txt", true}, {"b.txt", false}} {
		tc := map[string]any{"toolCallId": "tc-" + x.file, "kind": "edit", "title": "Edit " + x.file,
			"locations": []map[string]string{{"path": filepath.Join(h.cwd, x.file)}}}
		if _, err := h.e.StartTurn(context.Background(), alice, one.ID, hub.TurnInput{Input: askInput(tc)}); err != nil {
			t.Fatal(err)
		}
		p := payload[hub.Permission](t, until(t, sub1, hub.EventPermissionRequired), "permission")
		if has := p.Request.Has(hub.FlagOverlap); has != x.flag {
			t.Errorf("edit of %s: flags %v, want overlap %v", x.file, p.Request.Flags, x.flag)
		}
		if _, err := h.e.DecidePermission(context.Background(), alice, p.ID, hub.Decision{Outcome: "declined"}); err != nil {
			t.Fatal(err)
		}
		until(t, sub1, hub.EventTurnCompleted)
	}

	if _, err := h.e.SetArchived(context.Background(), alice, two.ID, true); err != nil {
		t.Fatal(err)
	}
	overlapEvent(t, sub1)
	if got, _ := h.e.GetThread(context.Background(), alice, one.ID); len(got.Overlaps) != 0 {
		t.Errorf("overlaps after the other thread was archived: %+v", got.Overlaps)
	}
}

// BenchmarkOverlapCheck10 is the overlap check after a turn across 10
// live worktree threads of one repository that all changed the same line
// of the same file: the thread's own change set, the 9 kept ones, and 9
// git merge-tree runs (docs/PERFORMANCE.md; target < 50 ms).
func BenchmarkOverlapCheck10(b *testing.B) {
	loc := b.TempDir()
	h := newHarness(b, func(c *engine.Config) { c.WorktreeLocation = loc })
	gitInit(b, h.cwd, map[string]string{"a.txt": "a\n"})
	var ths []hub.Thread
	for i := 0; i < 10; i++ {
		th, err := h.e.CreateThread(context.Background(), alice, hub.CreateThreadRequest{Agent: "fake", Cwd: h.cwd, Worktree: &hub.WorktreeRequest{On: true}})
		if err != nil {
			b.Fatal(err)
		}
		sub := h.watch(th)
		h.run(th, sub, fmt.Sprintf("fs-write %s %d", filepath.Join(th.Worktree.Path, "a.txt"), i))
		ths = append(ths, th)
	}
	for _, th := range ths { // every turn-end snapshot stored, every set kept
		h.e.CheckOverlapsNow(th.ID)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h.e.CheckOverlapsNow(ths[i%len(ths)].ID)
	}
	b.StopTimer()
	got, _ := h.e.GetThread(context.Background(), alice, ths[0].ID)
	if len(got.Overlaps) != 9 || got.Overlaps[0].Conflict == nil || !*got.Overlaps[0].Conflict {
		b.Fatalf("overlaps of the first thread: %+v, want 9 in conflict", got.Overlaps)
	}
}

// TestOverlapsComeBackAfterRestart: overlaps are kept in memory only; a
// new engine on the same store checks every live thread again at start.
func TestOverlapsComeBackAfterRestart(t *testing.T) {
	h := newHarness(t, nil)
	gitInit(t, h.cwd, map[string]string{"a.txt": "a\n"})
	one, two := h.thread("fake"), h.thread("fake")
	sub1, sub2 := h.watch(one), h.watch(two)
	a := filepath.Join(h.cwd, "a.txt")
	h.run(one, sub1, "fs-write "+a+" one")
	h.run(two, sub2, "fs-write "+a+" two")
	overlapEvent(t, sub1, "a.txt↔"+two.ID)
	h.close()
	h.open(engine.DefaultConfig(), []acp.AgentSpec{fakeSpec(t, "fake")})
	testkit.Eventually(t, 20*time.Second, "the overlap is back after the restart", func() bool {
		got, err := h.e.GetThread(context.Background(), alice, two.ID)
		return err == nil && len(got.Overlaps) == 1 && got.Overlaps[0].ThreadID == one.ID && got.Overlaps[0].Path == "a.txt"
	})
}
