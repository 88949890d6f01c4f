//go:build unix

package engine_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/engine"
)

// A turn refused because its agent needs signing in is retried once the
// sign-in succeeds: once, only while it is its thread's last turn, not
// after the thread is deleted, not for another agent's sign-in, not 30
// minutes later.
func TestSignedInRetriesTheFailedTurn(t *testing.T) {
	h := &harness{t: t, dbPath: filepath.Join(t.TempDir(), "hub.db"), cwd: t.TempDir(), clock: newFakeClock()}
	h.open(engine.DefaultConfig(), []acp.AgentSpec{fakeSpec(t, "authy", "FAKEAGENT_AUTH_REQUIRED=1"), fakeSpec(t, "fake")})
	ctx := context.Background()
	fail := func(th hub.Thread, input string) hub.Turn {
		t.Helper()
		sub := h.watch(th)
		started, err := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: input})
		if err != nil {
			t.Fatal(err)
		}
		var turn hub.Turn
		for turn.ID != started.ID { // the subscription replays the thread's earlier turns
			turn = payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn")
		}
		if turn.Status != hub.TurnFailed {
			t.Fatalf("turn %+v", turn)
		}
		hist, _ := h.e.History(ctx, alice, th.ID, true, false)
		var reason, agent string
		for _, ev := range hist[len(hist)-1].Events {
			if ev.Type == hub.EventError {
				reason, agent = payload[string](t, ev, "reason"), payload[string](t, ev, "agent")
			}
		}
		if reason != hub.ReasonAuthRequired || agent != "authy" {
			t.Fatalf("the error event: reason %q agent %q", reason, agent)
		}
		return turn
	}
	a, b, c := h.thread("authy"), h.thread("authy"), h.thread("authy")
	failedA := fail(a, "echo for a")
	fail(b, "echo for b")
	fail(c, "echo first for c")
	failedC := fail(c, "echo second for c") // the last one counts
	if err := h.e.DeleteThread(ctx, alice, b.ID); err != nil {
		t.Fatal(err)
	}
	if got := h.e.SignedIn("fake"); len(got) != 0 {
		t.Fatalf("another agent's sign-in retried %+v", got)
	}

	subA, subC := h.watch(a), h.watch(c)
	if err := h.e.AuthenticateAgent(ctx, "authy", "fake-login"); err != nil {
		t.Fatal(err)
	}
	for _, x := range []struct {
		sub    *hub.Subscription
		failed hub.Turn
		want   string
	}{{subA, failedA, "for a"}, {subC, failedC, ""}} { // c's retry is sent after the context of its first failed turn
		var started hub.Event
		for started.Type == "" || started.TurnID == x.failed.ID || payload[string](t, started, "input") != x.failed.Input {
			started = until(t, x.sub, hub.EventTurnStarted) // replayed from the start: the earlier turns first
		}
		if got := payload[string](t, started, "retryOf"); got != x.failed.ID {
			t.Errorf("retryOf %q, want %q", got, x.failed.ID)
		}
		var done hub.Turn
		for done.ID != started.TurnID {
			done = payload[hub.Turn](t, until(t, x.sub, hub.EventTurnCompleted), "turn")
		}
		if done.Status != hub.TurnCompleted || x.want != "" && done.Output != x.want || done.Input != x.failed.Input {
			t.Errorf("the retry: %+v", done)
		}
	}
	if got := h.e.SignedIn("authy"); len(got) != 0 {
		t.Fatalf("a second sign-in retried again: %+v", got)
	}
	for th, n := range map[string]int{a.ID: 2, c.ID: 3} {
		if hist, _ := h.e.History(ctx, alice, th, false, false); len(hist) != n {
			t.Errorf("thread %s has %d turns, want %d", th, len(hist), n)
		}
	}
	if _, err := h.e.GetThread(ctx, alice, b.ID); hub.ErrorCode(err) != hub.CodeNotFound {
		t.Errorf("the deleted thread: %v", err)
	}

	// 30 minutes later a failed turn is forgotten.
	h2 := &harness{t: t, dbPath: filepath.Join(t.TempDir(), "hub.db"), cwd: t.TempDir(), clock: newFakeClock()}
	h2.open(engine.DefaultConfig(), []acp.AgentSpec{fakeSpec(t, "authy", "FAKEAGENT_AUTH_REQUIRED=1")})
	d := h2.thread("authy")
	if turn := h2.run(d, h2.watch(d), "echo late"); turn.Status != hub.TurnFailed {
		t.Fatalf("turn %+v", turn)
	}
	h2.clock.Advance(31 * time.Minute)
	if got := h2.e.SignedIn("authy"); len(got) != 0 {
		t.Fatalf("a turn 31 minutes old was retried: %+v", got)
	}
}
