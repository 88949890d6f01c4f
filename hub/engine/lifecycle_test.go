//go:build unix

package engine_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/engine"
)

// waitIdleStop stops the thread's agent for idleness: it moves the
// harness's fake clock by limits.agentIdleTimeout until the agent's
// process is gone from the store's records. Other threads' idle timers
// may be armed already, so "a timer is armed" does not say the thread's
// own is: the process going is what counts.
func waitIdleStop(t *testing.T, h *harness, th hub.Thread) {
	t.Helper()
	d := h.e.Config().AgentIdleTimeout
	running := func() bool {
		procs, err := h.db.AgentProcesses(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range procs {
			if p.ThreadID == th.ID {
				return true
			}
		}
		return false
	}
	waitUntil(t, "the thread's agent stopped for idleness", func() bool {
		if !running() {
			return true
		}
		h.clock.Advance(d)
		return !running()
	})
}

// sessionChanged reads the next session_changed event.
func sessionChanged(t *testing.T, sub *hub.Subscription) engine.SessionChanged {
	t.Helper()
	ev := until(t, sub, hub.EventSessionChanged)
	var sc engine.SessionChanged
	if err := json.Unmarshal(ev.Payload, &sc); err != nil {
		t.Fatal(err)
	}
	return sc
}

// Issue 14 item 0: a session reopened in a new agent process comes back in
// the agent's start mode; the hub re-applies the user's mode and config
// values before the prompt, and says so.
func TestReopenRestoresChoices(t *testing.T) {
	h := newClockHarness(t, func(c *engine.Config) { c.AgentIdleTimeout = 200 * time.Millisecond })
	ctx := context.Background()
	for _, agent := range []string{"fakeload", "fake"} { // session/load, and a new session with context
		t.Run(agent, func(t *testing.T) {
			th := h.thread(agent)
			sub := h.watch(th)
			if _, err := h.e.SetMode(ctx, alice, th.ID, "plan"); err != nil {
				t.Fatal(err)
			}
			if _, err := h.e.SetConfigOption(ctx, alice, th.ID, "model", "fake-large"); err != nil {
				t.Fatal(err)
			}
			h.run(th, sub, "echo first")
			waitIdleStop(t, h, th)
			turn := h.run(th, sub, "echo second")
			if turn.Status != hub.TurnCompleted {
				t.Fatalf("turn after reopening: %+v", turn)
			}
			got, _ := h.e.GetThread(ctx, alice, th.ID)
			if m := modesOf(t, got); m.CurrentModeID != "plan" || modelOf(t, got) != "fake-large" {
				t.Fatalf("after reopening: mode %q model %q, want plan and fake-large", m.CurrentModeID, modelOf(t, got))
			}
			hist, _ := h.e.History(ctx, alice, th.ID, true, false)
			var sc *engine.SessionChanged
			for _, ev := range hist[len(hist)-1].Events {
				switch ev.Type {
				case hub.EventSessionChanged:
					sc = new(engine.SessionChanged)
					json.Unmarshal(ev.Payload, sc)
				case hub.EventModeChanged:
					if !strings.Contains(string(ev.Payload), `"plan"`) {
						t.Errorf("mode_changed %s while reopening: the thread never left plan", ev.Payload)
					}
				}
			}
			if sc == nil || sc.Reason != "reopened" || len(sc.Unrestored) != 0 || strings.Join(sc.Restored, ",") != "mode,model" {
				t.Fatalf("session_changed %+v: want reopened, mode and model restored", sc)
			}
		})
	}
}

// A choice the new agent no longer offers: the turn that reopened the
// session is not prompted, the thread says why (session_changed, error),
// and the thread shows the mode the session really is in; the next turn
// runs in it.
func TestReopenCannotRestoreRefusesTurn(t *testing.T) {
	h := newHarness(t, nil, fakeSpec(t, "fakeload", "FAKEAGENT_LOAD_SESSION=1"))
	ctx := context.Background()
	th := h.thread("fakeload")
	sub := h.watch(th)
	if _, err := h.e.SetMode(ctx, alice, th.ID, "plan"); err != nil {
		t.Fatal(err)
	}
	h.run(th, sub, "echo first")
	// The agent is reconfigured: it starts in "auto" and has no "plan".
	// The idle agent is retired at once; the next turn starts the new one.
	h.e.SetAgents([]acp.AgentSpec{fakeSpec(t, "fakeload", "FAKEAGENT_LOAD_SESSION=1", "FAKEAGENT_MODES=auto,default")})
	waitUntil(t, "the retired agent to exit", func() bool { return len(h.agentPIDs(th.ID)) == 0 })

	turn := h.run(th, sub, "echo must not run")
	if turn.Status != hub.TurnFailed || turn.Output != "" || !strings.Contains(turn.Error, `no longer offers mode "plan"`) {
		t.Fatalf("turn %+v: want failed, not prompted, saying plan is gone", turn)
	}
	sc := sessionChanged(t, h.watch(th))
	if !sc.Refused || len(sc.Unrestored) != 1 || sc.Unrestored[0].Wanted != "plan" || sc.Unrestored[0].Current != "auto" {
		t.Fatalf("session_changed %+v", sc)
	}
	got, _ := h.e.GetThread(ctx, alice, th.ID)
	if m := modesOf(t, got); m.CurrentModeID != "auto" {
		t.Fatalf("thread mode %q: want the session's real mode auto", m.CurrentModeID)
	}
	if next := h.run(th, sub, "echo now"); next.Status != hub.TurnCompleted || next.Output != "now" {
		t.Fatalf("next turn %+v", next)
	}
}

// Issue 14 item 3: with every slot taken by idle agents, a new thread's
// turn stops the least recently used one instead of 429; only when every
// agent process runs a turn is it 429, with Retry-After at most 5s.
func TestIdleAgentsEvicted(t *testing.T) {
	h := newHarness(t, func(c *engine.Config) { c.MaxAgentProcesses = 2 })
	ctx := context.Background()
	a, b, c := h.thread("fake"), h.thread("fake"), h.thread("fake")
	subA, subB, subC := h.watch(a), h.watch(b), h.watch(c)
	h.run(a, subA, "echo a")
	h.run(b, subB, "echo b")
	// Both slots idle: c evicts a (the least recently used).
	if turn := h.run(c, subC, "echo c"); turn.Status != hub.TurnCompleted {
		t.Fatalf("turn on a third thread: %+v", turn)
	}
	// b and c hold the slots; b runs a turn, c is idle: a evicts c.
	if _, err := h.e.StartTurn(ctx, alice, b.ID, hub.TurnInput{Input: "hang"}); err != nil {
		t.Fatal(err)
	}
	tu, err := h.e.StartTurn(ctx, alice, a.ID, hub.TurnInput{Input: "hang"})
	if err != nil {
		t.Fatalf("turn with an idle agent to evict: %v", err)
	}
	// Now both run turns: 429.
	_, err = h.e.StartTurn(ctx, alice, c.ID, hub.TurnInput{Input: "echo c"})
	var he *hub.Error
	if hub.ErrorCode(err) != hub.CodeTooManyRequests || !asError(err, &he) || he.RetryAfter < time.Second || he.RetryAfter > 5*time.Second {
		t.Fatalf("every agent busy: %v (Retry-After %v), want 429 with 1–5s", err, he)
	}
	if _, err := h.e.CancelTurn(ctx, alice, tu.ID); err != nil {
		t.Fatal(err)
	}
}

// Issue 14 item 9: a silent agent is stopped after limits.turnIdleTimeout,
// long before limits.turnTimeout; a turn waiting on the user is not.
func TestTurnIdleTimeout(t *testing.T) {
	t.Run("fires", func(t *testing.T) {
		h := newClockHarness(t, func(c *engine.Config) { c.TurnIdleTimeout = 5 * time.Minute })
		th := h.thread("fake")
		sub := h.watch(th)
		if _, err := h.e.StartTurn(context.Background(), alice, th.ID, hub.TurnInput{Input: "hang"}); err != nil {
			t.Fatal(err)
		}
		h.clock.waitFor(t, 2, time.Hour) // the watchdog's two timers
		h.clock.Advance(4 * time.Minute)
		select {
		case ev := <-sub.Events():
			if ev.Type == hub.EventTurnCompleted || ev.Type == hub.EventError {
				t.Fatalf("stopped before the idle timeout: %s %s", ev.Type, ev.Payload)
			}
		case <-time.After(300 * time.Millisecond):
		}
		h.clock.Advance(61 * time.Second)
		turn := payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn")
		if turn.Status != hub.TurnFailed || !strings.Contains(turn.Error, "limits.turnIdleTimeout") {
			t.Fatalf("turn %+v: want failed by the idle timeout", turn)
		}
	})
	t.Run("paused while a permission is pending", func(t *testing.T) {
		h := newClockHarness(t, func(c *engine.Config) { c.TurnIdleTimeout = 5 * time.Minute })
		th := h.thread("fake")
		sub := h.watch(th)
		if _, err := h.e.StartTurn(context.Background(), alice, th.ID, hub.TurnInput{Input: "permission"}); err != nil {
			t.Fatal(err)
		}
		p := payload[hub.Permission](t, until(t, sub, hub.EventPermissionRequired), "permission")
		h.clock.Advance(9 * time.Minute) // past the idle bound, within the permission's
		if _, err := h.e.DecidePermission(context.Background(), alice, p.ID, hub.Decision{Outcome: "approved"}); err != nil {
			t.Fatalf("the permission did not outlive the idle bound: %v", err)
		}
		turn := payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn")
		if turn.Status != hub.TurnCompleted || !strings.Contains(turn.Output, "outcome: selected allow-once") {
			t.Fatalf("turn %+v: want completed after the approval", turn)
		}
	})
	t.Run("paused while the editor answers a client request", func(t *testing.T) {
		h := newClockHarness(t, func(c *engine.Config) { c.TurnIdleTimeout = 5 * time.Minute })
		th := h.delegated(allCaps)
		sub := h.watch(th) // the owner is attached: the request waits for it
		h.start(th, "fs-read "+filepath.Join(h.cwd, "a.txt"))
		_, r := nextRequest(t, sub, "fs/read_text_file")
		h.clock.Advance(10 * time.Minute)
		if err := h.answer(th, alice, r.RequestID, result(`{"content":"from the editor"}`)); err != nil {
			t.Fatalf("the request did not outlive the idle bound: %v", err)
		}
		turn := payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn")
		if turn.Status != hub.TurnCompleted || turn.Output != "fs-read ok: from the editor" {
			t.Fatalf("turn %+v: want completed with the editor's answer", turn)
		}
	})
	t.Run("paused while a terminal runs", func(t *testing.T) {
		h := newClockHarness(t, func(c *engine.Config) { c.TurnIdleTimeout = 5 * time.Minute })
		th := h.thread("fake")
		sub := h.watch(th)
		if _, err := h.e.StartTurn(context.Background(), alice, th.ID, hub.TurnInput{Input: "ask-terminal sleep 2"}); err != nil {
			t.Fatal(err)
		}
		p := payload[hub.Permission](t, until(t, sub, hub.EventPermissionRequired), "permission")
		if _, err := h.e.DecidePermission(context.Background(), alice, p.ID, hub.Decision{Outcome: "approved"}); err != nil {
			t.Fatal(err)
		}
		// The terminal's tool call comes once terminal/create answered.
		for {
			ev := until(t, sub, hub.EventToolCall)
			if strings.Contains(string(ev.Payload), `"terminalId"`) {
				break
			}
		}
		h.clock.Advance(20 * time.Minute) // the command (2 s) still runs
		turn := payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn")
		if turn.Status != hub.TurnCompleted || !strings.Contains(turn.Output, "terminal exit 0") {
			t.Fatalf("turn %+v: want completed once the command ended", turn)
		}
	})
	t.Run("off", func(t *testing.T) {
		h := newClockHarness(t, func(c *engine.Config) { c.TurnIdleTimeout = 0; c.TurnTimeout = time.Hour })
		th := h.thread("fake")
		sub := h.watch(th)
		tu, err := h.e.StartTurn(context.Background(), alice, th.ID, hub.TurnInput{Input: "hang"})
		if err != nil {
			t.Fatal(err)
		}
		h.clock.waitFor(t, 1, time.Hour)
		h.clock.Advance(59 * time.Minute)
		select {
		case ev := <-sub.Events():
			if ev.Type == hub.EventTurnCompleted {
				t.Fatalf("stopped with the idle bound off: %s", ev.Payload)
			}
		case <-time.After(300 * time.Millisecond):
		}
		h.clock.Advance(2 * time.Minute) // the wall-clock cap stays the outer bound
		turn := payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn")
		if turn.ID != tu.ID || turn.Status != hub.TurnFailed || !strings.Contains(turn.Error, "limits.turnTimeout") {
			t.Fatalf("turn %+v: want failed by the cap", turn)
		}
	})
}

// Issue 14 item 7: compaction opens a new session (session/close of the
// old one when advertised), primes it with the summary, and records
// compactedAt; context.compactAt compacts automatically once the agent
// reports that much of its window used.
func TestCompactReplacesSession(t *testing.T) {
	h := newHarness(t, func(c *engine.Config) { c.ContextCompactAt = 0.8 }, fakeSpec(t, "caps", "FAKEAGENT_SESSION_CAPS=1"))
	ctx := context.Background()
	th := h.thread("caps")
	sub := h.watch(th)
	if _, err := h.e.SetMode(ctx, alice, th.ID, "plan"); err != nil {
		t.Fatal(err)
	}
	// 95% of the window used: the thread compacts after this turn.
	h.run(th, sub, `raw-update {"sessionUpdate":"usage_update","used":190000,"size":200000}`)
	var got hub.Thread
	for got.CompactedAt == nil {
		got = payload[hub.Thread](t, until(t, sub, hub.EventThreadUpdated), "thread")
	}
	if got.Summary == "" {
		t.Fatalf("compacted thread without a summary: %+v", got)
	}
	all, _ := h.e.History(ctx, alice, th.ID, true, true)
	if len(all) != 3 || !all[2].Internal || !strings.Contains(all[2].Input, got.Summary) || !strings.Contains(all[2].Output, got.Summary) {
		t.Fatalf("history %d turns; the new session's turn %+v must carry the summary %q", len(all), all[len(all)-1].Turn, got.Summary)
	}
	var sc *engine.SessionChanged
	for _, ev := range all[2].Events {
		if ev.Type == hub.EventSessionChanged {
			sc = new(engine.SessionChanged)
			json.Unmarshal(ev.Payload, sc)
		}
	}
	if sc == nil || sc.Reason != "compacted" || sc.How != "new" || strings.Join(sc.Restored, ",") != "mode" {
		t.Fatalf("session_changed %+v: want a new session with the mode restored", sc)
	}
	if m := modesOf(t, got); m.CurrentModeID != "plan" {
		t.Fatalf("mode after compaction %q", m.CurrentModeID)
	}
	if turn := h.run(th, sub, "echo after"); turn.Output != "after" {
		t.Fatalf("turn after compaction: %+v", turn)
	}
}
