//go:build linux

package systest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest"
	"github.com/switchboard-hub/switchboard/acp/acptest/fakemodel"
)

// TestE2ESession drives the agent session's lifecycle (issue 14: items 0,
// 3, 7 and 9) through the real `switchboard serve`: a reopened session
// gets the user's choices back or the turn is refused, idle agents give up
// their slots, compaction replaces the session, a silent turn is stopped.
func TestE2ESession(t *testing.T) {
	bins := buildE2E(t)
	tests := []struct {
		name string
		run  func(*testing.T, e2eBins)
	}{
		{"RestoreQwen", e2eRestoreQwen},
		{"RestoreOpenCode", e2eRestoreOpenCode},
		{"RestoreRefused", e2eRestoreRefused},
		{"IdleAgentsEvicted", e2eIdleAgentsEvicted},
		{"Compact", e2eCompact},
		{"TurnIdleTimeout", e2eTurnIdleTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.run(t, bins)
		})
	}
}

// apiSessionThread is a thread with its session state.
type apiSessionThread struct {
	ID            string          `json:"id"`
	Modes         json.RawMessage `json:"modes"`
	ConfigOptions json.RawMessage `json:"configOptions"`
	Summary       string          `json:"summary"`
	CompactedAt   string          `json:"compactedAt"`
}

func (h *hubProc) sessionThread(id string) apiSessionThread {
	h.t.Helper()
	var r struct{ Thread apiSessionThread }
	h.call("GET", "/v1/threads/"+id, nil, 200, &r)
	return r.Thread
}

func (th apiSessionThread) mode() string {
	var m struct {
		CurrentModeID string `json:"currentModeId"`
	}
	json.Unmarshal(th.Modes, &m)
	return m.CurrentModeID
}

func (th apiSessionThread) option(id string) string {
	var opts []struct {
		ID           string          `json:"id"`
		CurrentValue json.RawMessage `json:"currentValue"`
	}
	json.Unmarshal(th.ConfigOptions, &opts)
	for _, o := range opts {
		if o.ID == id {
			var v string
			json.Unmarshal(o.CurrentValue, &v)
			return v
		}
	}
	return ""
}

// sessionEvent is a session_changed event's payload.
type sessionEvent struct {
	Reason     string   `json:"reason"`
	How        string   `json:"how"`
	Restored   []string `json:"restored"`
	Unrestored []struct {
		Kind, ID, Wanted, Current, Message string
	} `json:"unrestored"`
	Refused bool `json:"refused"`
}

// rawHistory is the thread's history with events, raw, internal turns
// included when asked.
func (h *hubProc) rawHistory(threadID string, internal bool) []struct {
	ID, Status, Input, Output, Error string
	Internal                         bool
	Events                           []json.RawMessage
} {
	h.t.Helper()
	var r struct {
		Turns []struct {
			ID, Status, Input, Output, Error string
			Internal                         bool
			Events                           []json.RawMessage
		}
	}
	path := "/v1/threads/" + threadID + "/history?includeEvents=true"
	if internal {
		path += "&includeInternal=true"
	}
	h.call("GET", path, nil, 200, &r)
	return r.Turns
}

// eventsOf returns the events of type typ among raw events.
func eventsOf(raw []json.RawMessage, typ string) []json.RawMessage {
	var out []json.RawMessage
	for _, e := range raw {
		var head struct{ Type string }
		json.Unmarshal(e, &head)
		if head.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// restoreScenario is item 0 with a real agent: the user's choice is set,
// the hub restarts (the agent process with it), and the next turn runs in
// the choice again, the thread never showing another.
// forget, when set, runs while the hub is stopped (the agent loses its
// sessions); wantRestored is the choice the hub must have re-applied.
// It returns the hub, the thread and its folder.
func restoreScenario(t *testing.T, bins e2eBins, id string, ra acptest.RealAgent, model *fakemodel.Server, forget func(), wantRestored string, set func(h *hubProc, threadID string), check func(apiSessionThread) string) (*hubProc, string, string) {
	h := newHub(t, bins, hubConfig{"agents": map[string]agentConf{id: realAgentConf(id, ra)}})
	cwd := t.TempDir()
	th := h.newThread(id, cwd)
	const slow = 120 * time.Second
	set(h, th.ID)
	if got := check(h.sessionThread(th.ID)); got != "" {
		t.Fatalf("after setting it: %s", got)
	}
	model.Push(fakemodel.Text("First answer."))
	first := h.startTurn(th.ID, "Say something.")
	if done := h.waitTurn(th.ID, first.ID, slow); done.Status != "completed" {
		t.Fatalf("first turn %+v", done)
	}

	h.stop() // the agent process ends with the hub
	if forget != nil {
		forget()
	}
	h.start()
	if got := check(h.sessionThread(th.ID)); got != "" {
		t.Fatalf("after the restart, before any turn: %s", got)
	}
	model.Push(fakemodel.Text("Second answer."))
	second := h.startTurn(th.ID, "Say more.")
	done := h.waitTurn(th.ID, second.ID, slow)
	if done.Status != "completed" || !strings.Contains(done.Output, "Second answer.") {
		t.Fatalf("turn after the restart %+v", done)
	}
	if got := check(h.sessionThread(th.ID)); got != "" {
		t.Fatalf("after reopening the session: %s (the agent's start state was adopted)", got)
	}
	hist := h.rawHistory(th.ID, false)
	evs := eventsOf(hist[len(hist)-1].Events, "session_changed")
	if len(evs) != 1 {
		t.Fatalf("%d session_changed events in the turn that reopened the session, want 1", len(evs))
	}
	var sc sessionEvent
	json.Unmarshal(evs[0], &sc)
	if sc.Reason != "reopened" || len(sc.Unrestored) != 0 || sc.Refused || !slices.Contains(sc.Restored, wantRestored) {
		t.Fatalf("session_changed %s: want %s restored", evs[0], wantRestored)
	}
	t.Logf("%s reopened its session by %s; restored %v", id, sc.How, sc.Restored)
	return h, th.ID, cwd
}

// 0a. Qwen Code reopens its sessions in "auto" (it approves by itself);
// the user chose "default" (asks before edits and commands).
func e2eRestoreQwen(t *testing.T, bins e2eBins) {
	model := fakemodel.Start(t)
	ra := acptest.Qwen(t, acptest.ToolsDir(t), model.URL)
	h, thread, cwd := restoreScenario(t, bins, "qwen", ra, model, nil, "mode",
		func(h *hubProc, id string) {
			h.call("POST", "/v1/threads/"+id+"/mode", map[string]string{"modeId": ra.AskMode}, 200, nil)
		},
		func(th apiSessionThread) string {
			if m := th.mode(); m != ra.AskMode {
				return "mode " + strconv.Quote(m) + ", want " + ra.AskMode
			}
			return ""
		})
	// The agent itself is back in the mode that asks: a file write waits
	// for a permission (declined here: nothing is written).
	file := filepath.Join(cwd, "restored.txt")
	args, _ := json.Marshal(map[string]string{"file_path": file, "content": "no\n"})
	model.Push(fakemodel.ToolCall("write_file", string(args)), fakemodel.Text("Not written."))
	turn := h.startTurn(thread, "Write restored.txt.")
	p := h.waitPermission(turn.ID, 120*time.Second)
	h.call("POST", "/v1/permissions/"+p.ID, map[string]string{"outcome": "declined"}, 200, nil)
	h.waitTurn(thread, turn.ID, 120*time.Second)
	if _, err := os.Stat(file); err == nil {
		t.Error("the declined write happened")
	}
}

// 0b. OpenCode opens its sessions in "build" (edits); the user chose
// "plan" (its config option "mode"). Its session/resume keeps the mode,
// so the session is lost here (its database removed while the hub is
// down): the hub opens a new one, in build, and must set plan again.
func e2eRestoreOpenCode(t *testing.T, bins e2eBins) {
	model := fakemodel.Start(t)
	ra := acptest.OpenCode(t, acptest.ToolsDir(t), model.URL)
	forget := func() {
		dbs, _ := filepath.Glob(filepath.Join(ra.Home, ".local", "share", "opencode", "opencode.db*"))
		if len(dbs) == 0 {
			t.Fatal("OpenCode keeps no database where expected: the test proves nothing")
		}
		for _, f := range dbs {
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
		}
	}
	restoreScenario(t, bins, "opencode", ra, model, forget, "mode",
		func(h *hubProc, id string) {
			h.call("POST", "/v1/threads/"+id+"/config-option", map[string]string{"configId": "mode", "value": "plan"}, 200, nil)
		},
		func(th apiSessionThread) string {
			if v := th.option("mode"); v != "plan" {
				return "config option mode " + strconv.Quote(v) + ", want plan (" + string(th.ConfigOptions) + ")"
			}
			return ""
		})
}

// 0c. The agent no longer offers the user's mode after a restart (its
// configuration changed): the turn is not sent, the thread and its events
// say why, and the thread shows the mode the session is really in.
func e2eRestoreRefused(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, hubConfig{"agents": map[string]agentConf{"fakeload": fakeAgentConf(t, "FAKEAGENT_LOAD_SESSION=1")}})
	th := h.newThread("fakeload", t.TempDir())
	h.call("POST", "/v1/threads/"+th.ID+"/mode", map[string]string{"modeId": "plan"}, 200, nil)
	first := h.startTurn(th.ID, "echo first")
	h.waitTurn(th.ID, first.ID, 30*time.Second)
	h.stop()
	writeConfig(t, h.dir, hubConfig{"agents": map[string]agentConf{"fakeload": fakeAgentConf(t, "FAKEAGENT_LOAD_SESSION=1", "FAKEAGENT_MODES=auto,default")}})
	h.start()

	turn := h.startTurn(th.ID, "echo must not run")
	done := h.waitTurn(th.ID, turn.ID, 30*time.Second)
	if done.Status != "failed" || done.Output != "" || !strings.Contains(done.Error, `"plan"`) {
		t.Fatalf("turn %+v: want failed without a prompt, naming the lost mode", done)
	}
	hist := h.rawHistory(th.ID, false)
	evs := eventsOf(hist[len(hist)-1].Events, "session_changed")
	var sc sessionEvent
	if len(evs) == 1 {
		json.Unmarshal(evs[0], &sc)
	}
	if !sc.Refused || len(sc.Unrestored) != 1 || sc.Unrestored[0].Wanted != "plan" || sc.Unrestored[0].Current != "auto" {
		t.Fatalf("session_changed %s", evs)
	}
	if errs := eventsOf(hist[len(hist)-1].Events, "error"); len(errs) != 1 || !strings.Contains(string(errs[0]), `"code":"CONFLICT"`) {
		t.Errorf("error events %s, want one CONFLICT", errs)
	}
	if len(eventsOf(hist[len(hist)-1].Events, "mode_changed")) != 1 {
		t.Errorf("no mode_changed event for the session's real mode")
	}
	if m := h.sessionThread(th.ID).mode(); m != "auto" {
		t.Fatalf("thread mode %q, want the session's real mode auto", m)
	}
	again := h.startTurn(th.ID, "echo now")
	if d := h.waitTurn(th.ID, again.ID, 30*time.Second); d.Status != "completed" || d.Output != "now" {
		t.Fatalf("the next turn %+v", d)
	}
}

// 3. Idle agents do not hold process slots: with the only slot taken by
// an idle agent, another thread's turn runs (that agent is stopped); 429
// comes only when every agent process runs a turn, with Retry-After ≤ 5.
func e2eIdleAgentsEvicted(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, hubConfig{"limits": map[string]any{"maxAgentProcesses": 1}})
	a := h.newThread("fake", t.TempDir())
	b := h.newThread("fake", t.TempDir())
	ta := h.startTurn(a.ID, "echo a")
	h.waitTurn(a.ID, ta.ID, 30*time.Second)
	tb := h.startTurn(b.ID, "echo b") // 429 before the fix, for 30 minutes
	if d := h.waitTurn(b.ID, tb.ID, 30*time.Second); d.Output != "b" {
		t.Fatalf("turn on b %+v", d)
	}
	// a's agent was stopped: its next turn reopens a session (evicting
	// b's), then runs.
	hang := h.startTurn(a.ID, "hang")
	r := h.do("POST", "/v1/threads/"+b.ID+"/turns", map[string]string{"input": "echo b again"})
	if r.status != 429 || r.errorCode() != "TOO_MANY_REQUESTS" {
		t.Fatalf("while a's agent runs a turn: %s, want 429", r)
	}
	if ra, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || ra < 1 || ra > 5 {
		t.Errorf("Retry-After %q, want 1–5 seconds", r.header.Get("Retry-After"))
	}
	h.call("POST", "/v1/turns/"+hang.ID+"/cancel", nil, 200, nil)
}

// 7. Compaction is real: the summary is stored and shown on the thread, a
// new agent session gets it (with the recent turns) as a hidden turn, and
// the thread says when; context.compactAt compacts by itself.
func e2eCompact(t *testing.T, bins e2eBins) {
	caps := fakeAgentConf(t, "FAKEAGENT_SESSION_CAPS=1")
	h := newHub(t, bins, hubConfig{
		"agents":  map[string]agentConf{"caps": caps},
		"context": map[string]any{"compactAt": 0.8},
	})
	th := h.newThread("caps", t.TempDir())
	events := h.mustSSE("GET", "/v1/threads/"+th.ID+"/events", nil)
	first := h.startTurn(th.ID, "echo the answer is 42")
	h.waitTurn(th.ID, first.ID, 30*time.Second)

	var r struct{ Thread apiSessionThread }
	h.call("POST", "/v1/threads/"+th.ID+"/compact", nil, 200, &r)
	if r.Thread.Summary == "" || r.Thread.CompactedAt == "" {
		t.Fatalf("compacted thread %+v: want its summary and compactedAt", r.Thread)
	}
	if got := h.sessionThread(th.ID); got.Summary != r.Thread.Summary || got.CompactedAt != r.Thread.CompactedAt {
		t.Fatalf("GET thread %+v", got)
	}
	events.until(30*time.Second, func(m sseMsg) bool {
		return m.event == "thread_updated" && strings.Contains(m.data, `"compactedAt"`)
	})
	all := h.rawHistory(th.ID, true)
	if len(all) != 3 || !all[1].Internal || !all[2].Internal {
		t.Fatalf("history with internal turns: %d turns", len(all))
	}
	primer := all[2]
	// The fake agent echoes an unknown prompt back: the output is what the
	// new session received.
	for _, want := range []string{r.Thread.Summary, "User: echo the answer is 42", "Assistant: the answer is 42"} {
		if !strings.Contains(primer.Input, want) || !strings.Contains(primer.Output, want) {
			t.Fatalf("the new session's turn lacks %q:\ninput %q\noutput %q", want, primer.Input, primer.Output)
		}
	}
	var sc sessionEvent
	if evs := eventsOf(primer.Events, "session_changed"); len(evs) == 1 {
		json.Unmarshal(evs[0], &sc)
	}
	if sc.Reason != "compacted" || sc.How != "new" {
		t.Fatalf("session_changed %+v", sc)
	}
	if visible := h.history(th.ID, false); len(visible) != 1 {
		t.Fatalf("visible history %d turns: the compaction's turns must be hidden", len(visible))
	}

	// Automatic: the agent reports 95% of its window used.
	auto := h.newThread("caps", t.TempDir())
	s := h.mustSSE("GET", "/v1/threads/"+auto.ID+"/events", nil)
	tu := h.startTurn(auto.ID, `raw-update {"sessionUpdate":"usage_update","used":190000,"size":200000}`)
	h.waitTurn(auto.ID, tu.ID, 30*time.Second)
	s.until(60*time.Second, func(m sseMsg) bool {
		return m.event == "thread_updated" && strings.Contains(m.data, `"compactedAt"`)
	})
	if got := h.sessionThread(auto.ID); got.Summary == "" || got.CompactedAt == "" {
		t.Fatalf("automatically compacted thread %+v", got)
	}
}

// 9. limits.turnIdleTimeout: a silent agent's turn is stopped after it,
// long before limits.turnTimeout; a turn waiting on the user is not.
func e2eTurnIdleTimeout(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, hubConfig{"limits": map[string]any{"turnIdleTimeout": "2s"}})
	th := h.newThread("fake", t.TempDir())
	start := time.Now()
	silent := h.startTurn(th.ID, "hang")
	done := h.waitTurn(th.ID, silent.ID, 60*time.Second)
	if done.Status != "failed" || !strings.Contains(done.Error, "limits.turnIdleTimeout") {
		t.Fatalf("silent turn %+v: want failed by the idle timeout", done)
	}
	t.Logf("silent turn stopped after %v", time.Since(start).Round(time.Millisecond))

	ask := h.startTurn(th.ID, "permission")
	p := h.waitPermission(ask.ID, 30*time.Second)
	time.Sleep(5 * time.Second) // the user takes longer than the idle bound
	h.call("POST", "/v1/permissions/"+p.ID, map[string]string{"outcome": "approved"}, 200, nil)
	if d := h.waitTurn(th.ID, ask.ID, 30*time.Second); d.Status != "completed" || !strings.Contains(d.Output, "selected allow-once") {
		t.Fatalf("turn waiting on the user %+v: want completed after the approval", d)
	}

	// A terminal the agent runs pauses the clock too.
	term := h.startTurn(th.ID, "terminal sleep 4")
	var tp apiPermission
	if !waitFor(30*time.Second, func() bool {
		for _, x := range h.permissions("pending") {
			if x.TurnID == term.ID {
				tp = x
				return true
			}
		}
		return false
	}) {
		t.Fatal("no permission for the terminal")
	}
	h.call("POST", "/v1/permissions/"+tp.ID, map[string]string{"outcome": "approved"}, 200, nil)
	if d := h.waitTurn(th.ID, term.ID, 60*time.Second); d.Status != "completed" || !strings.Contains(d.Output, "terminal exit 0") {
		t.Fatalf("turn running a 4s terminal %+v: want completed", d)
	}
}
