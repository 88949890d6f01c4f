//go:build linux

package systest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/store"
)

// TestE2ECorrectness drives the real `switchboard serve` into the wrong
// states found from outside (issue 14, items 1, 2, 4 and 5).
func TestE2ECorrectness(t *testing.T) {
	bins := buildE2E(t)
	tests := []struct {
		name string
		run  func(*testing.T, e2eBins)
	}{
		{"StatusUnderRenames", e2eStatusUnderRenames},
		{"LiveReloadBusyFolder", e2eLiveReloadBusyFolder},
		{"ExpiredPermissionOption", e2eExpiredPermissionOption},
		{"UnsupportedContent", e2eUnsupportedContent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.run(t, bins)
		})
	}
}

// tryDo sends a request from any goroutine: it returns the status, or an
// error where do would fail the test.
func (h *hubProc) tryDo(method, path string, body any) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	resp, err := h.client.Do(h.request(ctx, method, path, body))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, err
}

// Item 1: a rename overlapping the end of a turn wrote "running" back
// (reproduced within 40 iterations of a turn and three renames), and a
// rename's thread_updated said "idle" while a turn ran. Each iteration
// here leaves the thread idle, and every thread_updated in the log agrees
// with the turns around it. A thread left "running" with no running turn
// (by a hub before the fix) is repaired, and announced, at the next start.
func e2eStatusUnderRenames(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	th := h.newThread("fake", t.TempDir())
	for i := range 60 {
		turn := h.startTurn(th.ID, "echo hi")
		var wg sync.WaitGroup
		errs := make(chan error, 3)
		for r := range 3 {
			wg.Go(func() {
				title := fmt.Sprintf("rename %d.%d", i, r)
				if st, err := h.tryDo("PATCH", "/v1/threads/"+th.ID, map[string]string{"title": title}); err != nil || st != 200 {
					errs <- fmt.Errorf("rename: %d %v", st, err)
				}
			})
		}
		done := h.waitTurn(th.ID, turn.ID, 30*time.Second)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if done.Status != "completed" {
			t.Fatalf("iteration %d: turn %+v", i, done)
		}
		if got := h.thread(th.ID); got.Status != "idle" {
			t.Fatalf("iteration %d: thread %s after its turn ended and the renames returned, want idle", i, got.Status)
		}
	}
	if st := h.stop(); st != 0 {
		t.Fatalf("hub exit status %d", st)
	}

	dbPath := filepath.Join(h.dataDir, "switchboard.db")
	db, err := store.Open(dbPath, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	evs, err := db.Events(ctx, hub.EventFilter{ThreadID: th.ID, All: true, Limit: 10000})
	if err != nil {
		t.Fatal(err)
	}
	running, renames := false, 0
	for _, ev := range evs {
		switch ev.Type {
		case hub.EventTurnStarted:
			running = true
		case hub.EventTurnCompleted:
			running = false
		case hub.EventThreadUpdated:
			var p struct{ Thread hub.Thread }
			if err := json.Unmarshal(ev.Payload, &p); err != nil {
				t.Fatal(err)
			}
			want := hub.ThreadIdle
			if running {
				want = hub.ThreadRunning
			}
			if p.Thread.Status != want {
				t.Errorf("event %d thread_updated says %q where the log has a turn running=%v", ev.Seq, p.Thread.Status, running)
			}
			renames++
		}
	}
	if renames < 180 {
		t.Errorf("%d thread_updated events, want the 180 renames' (and the creation's)", renames)
	}

	// A thread stuck "running" without a running turn, as a hub before
	// the fix left it, then a restart.
	stuck := hub.ThreadChange{ThreadID: th.ID, Status: hub.ThreadRunning}
	err = db.Commit(ctx, &hub.Write{ThreadChanges: []hub.ThreadChange{stuck}})
	last, _ := db.LastSeq(ctx)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	h.start()
	if got := h.thread(th.ID); got.Status != "idle" {
		t.Fatalf("after a restart: thread %s, want idle", got.Status)
	}
	s := h.mustSSE("GET", fmt.Sprintf("/v1/threads/%s/events?after=%d", th.ID, last), nil)
	got := s.until(10*time.Second, func(m sseMsg) bool { return m.ev.Type == hub.EventThreadUpdated })
	if n := len(got); n == 0 || got[n-1].ev.Type != hub.EventThreadUpdated || !strings.Contains(got[n-1].data, `"status":"idle"`) {
		t.Fatalf("no thread_updated saying idle after the repair: %+v", got)
	}
	again := h.startTurn(th.ID, "echo again") // Send works
	if got := h.waitTurn(th.ID, again.ID, 30*time.Second); got.Status != "completed" || h.thread(th.ID).Status != "idle" {
		t.Fatalf("a turn after the repair: %+v, thread %s", got, h.thread(th.ID).Status)
	}
}

// Item 2: with a file next to config.yaml written every 50 ms (a log, a
// swap file), a valid edit of the config still applies.
func e2eLiveReloadBusyFolder(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, hubConfig{"permissions": map[string]any{"timeout": "5m"}})
	stop, done := make(chan struct{}), make(chan struct{})
	busy := make(chan struct{}) // closed after the neighbour's sixth write
	go func() {
		defer close(done)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for n := 0; ; n++ {
			select {
			case <-stop:
				return
			case <-tick.C:
				_ = os.WriteFile(filepath.Join(h.dir, "busy.log"), []byte(fmt.Sprintf("line %d\n", n)), 0o600)
				if n == 5 {
					close(busy)
				}
			}
		}
	}()
	defer func() { close(stop); <-done }()
	<-busy // the neighbour is busy before the edit
	writeConfig(t, h.dir, hubConfig{"permissions": map[string]any{"timeout": "7m"}})
	timeout := func() string {
		var got struct {
			Settings struct{ Permissions struct{ Timeout string } }
		}
		h.call("GET", "/v1/settings", nil, 200, &got)
		return got.Settings.Permissions.Timeout
	}
	if !waitFor(15*time.Second, func() bool { return timeout() == "7m" }) {
		t.Fatalf("permissions.timeout is %q 15s after a valid edit next to a busy file, want 7m", timeout())
	}
}

// Item 4: a permission that expires records the option the agent was
// sent (its reject_once), in the permission and its permission_resolved
// event.
func e2eExpiredPermissionOption(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, hubConfig{"permissions": map[string]any{"timeout": "1s"}})
	th := h.newThread("fake", t.TempDir())
	turn := h.startTurn(th.ID, "permission")
	p := h.waitPermission(turn.ID, 30*time.Second)
	done := h.waitTurn(th.ID, turn.ID, 30*time.Second)
	if done.Output != "outcome: selected reject-once" {
		t.Fatalf("turn %+v: want the agent told reject-once", done)
	}
	if got := h.permission(p.ID); got.Status != "expired" || got.DecidedBy != "timeout" || got.OptionID != "reject-once" {
		t.Errorf("permission %+v: want expired by timeout with optionId reject-once (the option sent)", got)
	}
	resolved := 0
	for _, ev := range h.turn(th.ID, turn.ID).Events {
		if ev.Type == "permission_resolved" {
			resolved++
			if ev.Permission == nil || ev.Permission.OptionID != "reject-once" {
				t.Errorf("permission_resolved %+v: want optionId reject-once", ev.Permission)
			}
		}
	}
	if resolved != 1 {
		t.Errorf("%d permission_resolved events, want 1", resolved)
	}
}

// Item 5: an image to an agent whose promptCapabilities exclude images is
// 400 INVALID_ARGUMENT with details {blockIndex, type, agent} and stores
// no turn — when the capabilities are known (the start-up probe: no agent
// starts for it) and when they may not be yet (an agent added since: its
// probe, or a start as a turn's, answers before any prompt is sent).
func e2eUnsupportedContent(t *testing.T, bins e2eBins) {
	textOnly := fakeAgentConf(t, "FAKEAGENT_TEXT_ONLY=1")
	h := newHub(t, bins, hubConfig{"agents": map[string]agentConf{"textonly": textOnly}})
	content := []any{
		map[string]string{"type": "text", "text": "echo look"},
		map[string]string{"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="},
	}
	refuse := func(agent string, th apiThread) {
		t.Helper()
		r := h.do("POST", "/v1/threads/"+th.ID+"/turns", map[string]any{"content": content})
		var body struct {
			Error struct {
				Code    string
				Details struct {
					BlockIndex *int `json:"blockIndex"`
					Type       string
					Agent      string
				}
			}
		}
		r.decode(t, &body)
		d := body.Error.Details
		if r.status != 400 || body.Error.Code != "INVALID_ARGUMENT" || d.BlockIndex == nil || *d.BlockIndex != 1 || d.Type != "image" || d.Agent != agent {
			t.Fatalf("image to %s: %s, want 400 INVALID_ARGUMENT with details {blockIndex: 1, type: image, agent: %s}", agent, r, agent)
		}
		if turns := h.history(th.ID, false); len(turns) != 0 {
			t.Fatalf("a refused prompt stored turns: %+v", turns)
		}
	}
	caps := func(agent string) json.RawMessage {
		var r struct {
			Agents []struct {
				ID           string
				Capabilities json.RawMessage
			}
		}
		h.call("GET", "/v1/agents", nil, 200, &r)
		for _, a := range r.Agents {
			if a.ID == agent {
				return a.Capabilities
			}
		}
		return nil
	}

	// Known: probed at start-up. No agent process starts for the refusal.
	if !waitFor(30*time.Second, func() bool { return len(caps("textonly")) > 0 && len(childrenOf(h.pid())) == 0 }) {
		t.Fatalf("the start-up probe of textonly did not finish: capabilities %s", caps("textonly"))
	}
	th := h.newThread("textonly", t.TempDir())
	refuse("textonly", th)
	if kids := childrenOf(h.pid()); len(kids) != 0 {
		t.Errorf("agent processes %v started for a prompt refused on known capabilities", kids)
	}

	// An agent added after start-up: probed at once (ADR 0047); a prompt
	// sent before the probe ends waits for it, or starts the agent.
	h.call("PATCH", "/v1/settings", map[string]any{"agents": map[string]any{"late": map[string]any{
		"name": "Late", "command": textOnly.Command, "args": textOnly.Args, "env": textOnly.Env,
	}}}, 200, nil)
	late := h.newThread("late", t.TempDir())
	refuse("late", late)
	if c := caps("late"); !strings.Contains(string(c), `"promptCapabilities":{}`) {
		t.Errorf("late's capabilities after the check: %s, want those of its initialize", c)
	}
	// Text still goes through, on the agent the check started.
	tu := h.startTurn(late.ID, "echo fine")
	if got := h.waitTurn(late.ID, tu.ID, 30*time.Second); got.Status != "completed" || got.Output != "fine" {
		t.Fatalf("text turn after the refusal: %+v", got)
	}
}
