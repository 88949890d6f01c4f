//go:build linux

package systest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// 7. kill -9 of the hub mid-turn, then a restart on the same data dir:
// turns interrupted, permissions expired, threads idle, history intact,
// and no agent of the killed run left (they die with it).
func e2eKillAndRestart(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	a := h.newThread("fake", t.TempDir())
	b := h.newThread("fake", t.TempDir())
	c := h.newThread("fake", t.TempDir())
	finished := h.startTurn(c.ID, "echo before the crash")
	h.waitTurn(c.ID, finished.ID, 30*time.Second)
	permTurn := h.startTurn(a.ID, "permission")
	p := h.waitPermission(permTurn.ID, 30*time.Second)
	// hang-hard ignores stdin EOF and SIGTERM once it has read the prompt:
	// only the restarted hub can stop it.
	hangTurn := h.startTurn(b.ID, "hang-hard")
	hangHard := h.waitHangHard(30 * time.Second)
	agents := h.noteAgents()
	if len(agents) != 3 {
		t.Fatalf("hub children %v, want 3 agents", agents)
	}
	firstPID := h.pid()

	h.kill9()
	if d, err := h.discovery(); err != nil || d.PID != firstPID {
		t.Errorf("hub.json after kill -9: %+v, %v (left behind, naming the dead hub)", d, err)
	}
	// Even hang-hard dies with the hub: its supervisor kills it (ADR
	// 0029). What a restart does with a survivor is e2eProcessTrees'.
	if !waitFor(10*time.Second, func() bool { return !alive(hangHard) }) {
		t.Errorf("the hang-hard agent %d outlived the killed hub", hangHard)
	}

	h.start()
	if h.pid() == firstPID {
		t.Fatal("same pid")
	}
	if !waitFor(10*time.Second, func() bool {
		return !slices.ContainsFunc(agents, alive)
	}) {
		for _, pid := range agents {
			if alive(pid) {
				cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
				t.Errorf("agent %d of the killed hub still runs after the restart: %q", pid, cmdline)
			}
		}
	}

	for _, th := range []apiThread{a, b, c} {
		if got := h.thread(th.ID); got.Status != "idle" {
			t.Errorf("thread %s status %q after the restart, want idle", th.ID, got.Status)
		}
	}
	for _, x := range []struct {
		th   apiThread
		turn apiTurn
	}{{a, permTurn}, {b, hangTurn}} {
		tu := h.turn(x.th.ID, x.turn.ID)
		var ty []string
		for _, e := range tu.Events {
			ty = append(ty, e.Type)
		}
		if x.turn.ID == permTurn.ID && !slices.Contains(ty, "permission_required") {
			t.Errorf("the permission turn's history lost its permission_required: %v", ty)
		}
		if tu.Status != "interrupted" || tu.EndedAt == "" || tu.Input != x.turn.Input || len(ty) == 0 || ty[0] != "turn_started" || !slices.Contains(ty, "turn_completed") {
			t.Errorf("turn %q after the restart: %s, ended %q, events %v: want interrupted with its events and a turn_completed", x.turn.Input, tu.Status, tu.EndedAt, ty)
		}
	}
	got := h.permission(p.ID)
	if got.Status != "expired" || got.OptionID != "" {
		t.Errorf("permission after the restart %+v: want expired, never approved", got)
	}
	if r := h.decide(p.ID, map[string]string{"outcome": "approved"}); r.status != 409 {
		t.Errorf("approving it now: %s, want 409", r)
	}
	if pt := h.turn(a.ID, permTurn.ID); !slices.ContainsFunc(pt.Events, func(e apiEvent) bool {
		return e.Type == "permission_resolved" && e.Permission != nil && e.Permission.Status == "expired"
	}) {
		t.Errorf("no permission_resolved expired event in %+v", pt.Events)
	}
	if ok := h.turn(c.ID, finished.ID); ok.Status != "completed" || ok.Output != "before the crash" {
		t.Errorf("a finished turn after the restart: %+v", ok)
	}
	// The threads take new turns, with new agents.
	next := h.startTurn(b.ID, "echo back")
	if done := h.waitTurn(b.ID, next.ID, 30*time.Second); done.Status != "completed" || done.Output != "back" {
		t.Errorf("a turn after the restart: %+v", done)
	}
	if code := h.stop(); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// 7b. SIGTERM with turns running: they end cancelled (hang-hard's agent
// killed after the cancel wait), the pending permission cancelled, never
// approved; event streams end; the exit is clean and prompt; a restart
// finds everything settled.
func e2eGracefulShutdown(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	a := h.newThread("fake", t.TempDir())
	b := h.newThread("fake", t.TempDir())
	c := h.newThread("fake", t.TempDir())
	permTurn := h.startTurn(a.ID, "permission")
	p := h.waitPermission(permTurn.ID, 30*time.Second)
	hangTurn := h.startTurn(b.ID, "hang")
	hardTurn := h.startTurn(c.ID, "hang-hard")
	h.waitHangHard(30 * time.Second)
	agents := h.noteAgents()
	events := h.mustSSE("GET", "/v1/events", nil)

	start := time.Now()
	code := h.stop()
	took := time.Since(start)
	if code != 0 || took > 12*time.Second {
		t.Errorf("SIGTERM: exit %d after %v, want 0 within the cancel wait (~4s) and some", code, took)
	}
	t.Logf("stopped in %v", took.Round(time.Millisecond))
	if _, err := os.Stat(filepath.Join(h.dataDir, "hub.json")); !os.IsNotExist(err) {
		t.Errorf("hub.json after SIGTERM: %v", err)
	}
	for _, pid := range agents {
		if alive(pid) {
			t.Errorf("agent %d still runs after the hub stopped", pid)
		}
	}
	// The open stream has ended. (The HTTP server stops before the turns
	// are cancelled, so it does not see their end: a client learns it from
	// the next hub.)
	events.wantEnd(10 * time.Second)

	h.start()
	for _, x := range []struct {
		th   apiThread
		turn apiTurn
	}{{a, permTurn}, {b, hangTurn}, {c, hardTurn}} {
		if got := h.turn(x.th.ID, x.turn.ID); got.Status != "cancelled" {
			t.Errorf("turn %q after a graceful stop: %s (%s), want cancelled", x.turn.Input, got.Status, got.Error)
		}
		if got := h.thread(x.th.ID); got.Status != "idle" {
			t.Errorf("thread %s: %s", x.th.ID, got.Status)
		}
	}
	if got := h.permission(p.ID); got.Status != "cancelled" || got.DecidedBy != "hub" {
		t.Errorf("permission after a graceful stop: %+v, want cancelled by the hub", got)
	}
}

// 7c. A client that stopped reading its event stream (a stalled SSE
// connection) does not hold up a SIGTERM.
func e2eShutdownWithStalledClient(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	th := h.newThread("fake", t.TempDir())
	stalled := h.mustSSE("GET", "/v1/events", nil) // never read
	defer stalled.close()
	turn := h.startTurn(th.ID, "flood 100000 64") // far more than the socket buffers hold
	h.waitTurn(th.ID, turn.ID, 90*time.Second)
	start := time.Now()
	code := h.stop()
	if took := time.Since(start); code != 0 || took > 8*time.Second { // 15 s (the shutdown deadline) and exit 1 before the fix
		t.Errorf("SIGTERM with a stalled event stream: exit %d after %v, want 0 promptly", code, took.Round(time.Millisecond))
	}
}

// e2eShutdownOverAPI: POST /v1/shutdown (the tray's "Quit Switchboard")
// stops the hub as SIGTERM does: exit 0, running turn cancelled, hub.json
// removed.
func e2eShutdownOverAPI(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	th := h.newThread("fake", t.TempDir())
	turn := h.startTurn(th.ID, "hang")
	h.call("POST", "/v1/shutdown", nil, 202, nil)
	select {
	case <-h.exited:
	case <-time.After(30 * time.Second):
		t.Fatal("the hub did not exit after POST /v1/shutdown")
	}
	if code := h.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit %d after POST /v1/shutdown", code)
	}
	if _, err := os.Stat(filepath.Join(h.dataDir, "hub.json")); !os.IsNotExist(err) {
		t.Errorf("hub.json after the shutdown: %v", err)
	}
	h.start()
	if got := h.turn(th.ID, turn.ID); got.Status != "cancelled" {
		t.Errorf("turn after the shutdown: %s, want cancelled", got.Status)
	}
}
