//go:build linux

package systest

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestE2E runs the real `switchboard serve`, built once, as a separate
// process per subtest and drives it over HTTP/SSE as an editor or a script
// would: discovery through hub.json, the token file, X-Client-ID, JSON
// bodies, SSE parsing, resumption, restarts and kill -9.
func TestE2E(t *testing.T) {
	bins := buildE2E(t)
	tests := []struct {
		name string
		run  func(*testing.T, e2eBins)
	}{
		{"Startup", e2eStartup},
		{"AgentEnvironment", e2eAgentEnvironment},
		{"Turn", e2eTurn},
		{"Permissions", e2ePermissions},
		{"PermissionTimeout", e2ePermissionTimeout},
		{"ConflictAndOwnership", e2eConflictAndOwnership},
		{"SSEResume", e2eSSEResume},
		{"SlowSubscriber", e2eSlowSubscriber},
		{"KillAndRestart", e2eKillAndRestart},
		{"GracefulShutdown", e2eGracefulShutdown},
		{"ProcessTrees", e2eProcessTrees},
		{"ShutdownOverAPI", e2eShutdownOverAPI},
		{"ShutdownWithStalledClient", e2eShutdownWithStalledClient},
		{"AgentFaults", e2eAgentFaults},
		{"InteropSDKAgent", e2eInteropSDK},
		{"InteropClaude", e2eInteropClaude},
		{"Security", e2eSecurity},
		{"FileConfinement", e2eFileConfinement},
		{"ApprovalCovers", e2eApprovalCovers},
		{"SignIn", e2eSignIn},
		{"StaleDiscovery", e2eStaleDiscovery},
		{"TokenRotate", e2eTokenRotate},
		{"TooManyAgents", e2eTooManyAgents},
		{"Redaction", e2eRedaction},
		{"DeleteAndCompact", e2eDeleteAndCompact},
		{"ApprovalsSDK", e2eApprovalsSDK},
		{"ApprovalsClaude", e2eApprovalsClaude},
		{"ApprovalsFake", e2eApprovalsFake},
		{"Search", e2eSearch},
		{"Elicitations", e2eElicitations},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.run(t, bins)
		})
	}
}

// fileMode returns path's permission bits.
func fileMode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// 1. Start-up: the files of the data dir, /healthz, the summary, the data
// dir lock, the listen address from the config file, SIGTERM.
func e2eStartup(t *testing.T, bins e2eBins) {
	ghost := agentConf{Name: "Ghost", Command: "/nonexistent/ghost-agent"}
	// No --listen flag: the config file's listen applies.
	h := prepareHub(t, bins, hubConfig{
		"listen": "127.0.0.1:0",
		"agents": map[string]agentConf{"fake": fakeAgentConf(t), "ghost": ghost},
	})
	h.args = []string{}
	h.start()

	d, err := h.discovery()
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(d.URL)
	if err != nil || u.Scheme != "http" || u.Hostname() != "127.0.0.1" || u.Port() == "" || u.Port() == "0" || u.Port() == "8686" {
		t.Errorf("hub.json url %q: want http://127.0.0.1:<the port the kernel picked for the config's listen 127.0.0.1:0>", d.URL)
	}
	if d.PID != h.pid() || d.Version == "" {
		t.Errorf("hub.json %+v: want pid %d and a version", d, h.pid())
	}
	raw, _ := os.ReadFile(filepath.Join(h.dataDir, "hub.json"))
	var fields map[string]any
	if err := json.Unmarshal(raw, &fields); err != nil {
		t.Fatal(err)
	}
	if len(fields) != 3 || strings.Contains(string(raw), h.token) {
		t.Errorf("hub.json %s: want exactly url, pid and version, and never the token", raw)
	}
	if m := fileMode(t, filepath.Join(h.dataDir, "hub.json")); m != 0o600 {
		t.Errorf("hub.json mode %v, want 0600", m)
	}
	if m := fileMode(t, filepath.Join(h.dataDir, "token")); m != 0o600 {
		t.Errorf("token mode %v, want 0600", m)
	}
	if m := fileMode(t, h.dataDir); m != 0o700 {
		t.Errorf("data dir mode %v, want 0700", m)
	}
	if len(h.token) != 64 {
		t.Errorf("token %q: want 64 hex digits", h.token)
	}

	var health struct {
		OK      bool   `json:"ok"`
		Version string `json:"version"`
	}
	h.call("GET", "/healthz", nil, 200, &health, "Authorization", "", "X-Client-ID", "")
	if !health.OK || health.Version != d.Version {
		t.Errorf("/healthz %+v: want ok and version %q", health, d.Version)
	}

	// The summary goes to stderr after hub.json; wait for its last line.
	if !waitFor(10*time.Second, func() bool { return strings.Contains(h.logText(), "not found") }) {
		t.Fatalf("no start-up summary:\n%s", h.logText())
	}
	summary := h.logText()
	for _, want := range []string{"API        " + d.URL, "data dir   " + h.dataDir, "config     " + h.config} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, summary)
		}
	}
	agentsLine, notFoundLine := summaryLine(summary, "agents"), summaryLine(summary, "not found")
	if !slices.Contains(agentsLine, "fake") || slices.Contains(agentsLine, "ghost") {
		t.Errorf("summary agents %q: want fake listed, ghost not", agentsLine)
	}
	if !slices.Contains(notFoundLine, "ghost") {
		t.Errorf("summary not found %q: want ghost", notFoundLine)
	}
	var agents struct {
		Agents []struct{ ID, Status string }
	}
	h.call("GET", "/v1/agents", nil, 200, &agents)
	status := map[string]string{}
	for _, a := range agents.Agents {
		status[a.ID] = a.Status
	}
	if status["fake"] != "available" || status["ghost"] != "unavailable" {
		t.Errorf("agents %+v: want fake available, ghost unavailable", agents.Agents)
	}

	// A second hub on the same data dir refuses to start.
	second := h.serveCmd("--listen", "127.0.0.1:0")
	var out strings.Builder
	second.Stdout, second.Stderr = &out, &out
	err = second.Run()
	if code := second.ProcessState.ExitCode(); code != 1 || !strings.Contains(out.String(), "already running") ||
		!strings.Contains(out.String(), strconv.Itoa(h.pid())) {
		t.Errorf("second serve: exit %d (%v), output %q: want exit 1 saying a hub (pid %d) is already running", code, err, out.String(), h.pid())
	}
	if d2, err := h.discovery(); err != nil || d2 != d {
		t.Errorf("hub.json after the refused second start: %+v, %v; want it untouched", d2, err)
	}
	if r := h.do("GET", "/healthz", nil); r.status != 200 {
		t.Errorf("first hub after the refused second start: %s", r)
	}

	if code := h.stop(); code != 0 {
		t.Errorf("exit status %d after SIGTERM, want 0", code)
	}
	if _, err := os.Stat(filepath.Join(h.dataDir, "hub.json")); !os.IsNotExist(err) {
		t.Errorf("hub.json after a clean exit: %v, want it removed", err)
	}
	if _, err := os.Stat(filepath.Join(h.dataDir, "token")); err != nil {
		t.Errorf("token after a clean exit: %v, want it kept", err)
	}

	// The data dir is free again: a restart keeps the token; SIGINT stops
	// it as cleanly.
	tok := h.token
	h.args = nil
	h.start()
	if h.token != tok {
		t.Error("the token changed across a restart")
	}
	if code := h.stopWith(syscall.SIGINT); code != 0 {
		t.Errorf("exit status %d after SIGINT, want 0", code)
	}

	// A non-loopback address is refused without allowPublic.
	public := h.serveCmd("--listen", "0.0.0.0:0")
	out.Reset()
	public.Stdout, public.Stderr = &out, &out
	public.Run()
	if code := public.ProcessState.ExitCode(); code != 1 || !strings.Contains(out.String(), "allowPublic") {
		t.Errorf("serve --listen 0.0.0.0:0: exit %d, %q; want 1, naming allowPublic", code, out.String())
	}
}

// 1b. What an agent process gets: the config's env with its
// names' case kept (viper lower-cases keys), the hub's allowlisted variables
// only, never SWITCHBOARD_TOKEN; the thread's cwd.
func e2eAgentEnvironment(t *testing.T, bins e2eBins) {
	out := filepath.Join(t.TempDir(), "env.txt")
	h := prepareHub(t, bins, hubConfig{"agents": map[string]agentConf{"envdump": {
		Name: "Env dump", Command: "/bin/sh", Args: []string{"-c", "env > " + out},
		Env: map[string]string{"Mixed_Case_Var": "kept", "UPPER_VAR": "kept", "SWITCHBOARD_OK": "yes", "SWITCHBOARD_TOKEN": "from-config"},
	}}})
	h.env = []string{"E2E_NOT_FOR_AGENTS=1", "SWITCHBOARD_TOKEN=from-hub-env", "SWITCHBOARD_OTHER=from-hub-env"}
	h.start()
	cwd := t.TempDir()
	th := h.newThread("envdump", cwd)
	turn := h.startTurn(th.ID, "hi")
	if done := h.waitTurn(th.ID, turn.ID, 30*time.Second); done.Status != "failed" {
		t.Errorf("a turn with a program that is no ACP agent: %+v, want failed", done)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("the agent did not run: %v", err)
	}
	env := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		k, v, _ := strings.Cut(line, "=")
		env[k] = v
	}
	for k, want := range map[string]string{"Mixed_Case_Var": "kept", "UPPER_VAR": "kept", "SWITCHBOARD_OK": "yes", "PWD": cwd} {
		if env[k] != want {
			t.Errorf("agent env %s=%q, want %q", k, env[k], want)
		}
	}
	for _, k := range []string{"mixed_case_var", "upper_var", "E2E_NOT_FOR_AGENTS", "SWITCHBOARD_TOKEN", "SWITCHBOARD_OTHER"} {
		if v, ok := env[k]; ok {
			t.Errorf("agent env has %s=%q", k, v)
		}
	}
	if env["PATH"] == "" || env["HOME"] == "" {
		t.Errorf("agent env without PATH or HOME: %q", b)
	}
}

// summaryLine returns the comma-separated names of the summary line
// starting with label.
func summaryLine(summary, label string) []string {
	for _, line := range strings.Split(summary, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), label+" "); ok {
			return strings.Split(strings.TrimSpace(rest), ", ")
		}
	}
	return nil
}

// 2. A full turn: create a thread, stream a turn, start one with JSON,
// read the history with its events.
func e2eTurn(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	cwd := t.TempDir()
	th := h.newThread("fake", cwd)
	if th.Agent != "fake" || th.Cwd != cwd || th.ClientID != "alice" {
		t.Errorf("thread %+v", th)
	}

	s := h.mustSSE("POST", "/v1/threads/"+th.ID+"/turns", map[string]string{"input": "echo hello over SSE"})
	turnID := s.resp.Header.Get("X-Switchboard-Turn-ID")
	msgs := s.wantEnd(60 * time.Second)
	got := types(msgs)
	if len(got) < 3 || got[0] != "turn_started" || got[len(got)-1] != "turn_completed" || !slices.Contains(got, "message_delta") {
		t.Fatalf("streamed events %v: want turn_started, message_delta…, turn_completed, then the end", got)
	}
	var text strings.Builder
	var last int64
	for _, m := range msgs {
		if m.ev.TurnID != turnID || m.ev.ThreadID != th.ID {
			t.Errorf("event %s of turn %s thread %s, want turn %s thread %s only", m.event, m.ev.TurnID, m.ev.ThreadID, turnID, th.ID)
		}
		if m.id != strconv.FormatInt(m.ev.Seq, 10) || m.ev.Seq <= last || m.ev.Type != m.event {
			t.Errorf("SSE id %q event %q, data seq %d type %q after seq %d", m.id, m.event, m.ev.Seq, m.ev.Type, last)
		}
		last = m.ev.Seq
		if m.event == "message_delta" {
			text.WriteString(m.ev.Text)
		}
	}
	if msgs[0].ev.Input != "echo hello over SSE" {
		t.Errorf("turn_started input %q", msgs[0].ev.Input)
	}
	done := lastMsg(msgs).ev.Turn
	if text.String() != "hello over SSE" || done == nil || done.Status != "completed" || done.Output != "hello over SSE" || done.StopReason != "end_turn" {
		t.Errorf("streamed text %q, final turn %+v: want hello over SSE, completed, end_turn", text.String(), done)
	}
	if th := h.thread(th.ID); th.Status != "idle" {
		t.Errorf("thread status %q after the turn, want idle", th.Status)
	}

	// JSON: 202 at once, then the turn runs.
	turn2 := h.startTurn(th.ID, "echo second")
	if turn2.ThreadID != th.ID {
		t.Errorf("turn %+v", turn2)
	}
	done2 := h.waitTurn(th.ID, turn2.ID, 30*time.Second)
	if done2.Status != "completed" || done2.Output != "second" {
		t.Errorf("second turn %+v", done2)
	}

	hist := h.history(th.ID, true)
	if len(hist) != 2 || hist[0].ID != turnID || hist[1].ID != turn2.ID {
		t.Fatalf("history %+v: want the two turns, oldest first", hist)
	}
	var seqs []int64
	for _, tu := range hist {
		ev := tu.Events
		if len(ev) < 3 || ev[0].Type != "turn_started" || ev[len(ev)-1].Type != "turn_completed" {
			t.Errorf("turn %s events %+v", tu.ID, ev)
		}
		for _, e := range ev {
			seqs = append(seqs, e.Seq)
			if e.TurnID != tu.ID {
				t.Errorf("event %+v in turn %s", e, tu.ID)
			}
		}
	}
	for i := 1; i < len(seqs); i++ {
		if seqs[i] <= seqs[i-1] {
			t.Errorf("history seqs %v: want strictly increasing", seqs)
			break
		}
	}
	// The streamed events are the stored ones.
	for i, m := range msgs {
		if i >= len(hist[0].Events) || hist[0].Events[i].Seq != m.ev.Seq || hist[0].Events[i].Type != m.event {
			t.Errorf("streamed event %d (seq %d %s) differs from the stored one", i, m.ev.Seq, m.event)
			break
		}
	}
	if len(hist[0].Events) != len(msgs) {
		t.Errorf("%d stored events, %d streamed", len(hist[0].Events), len(msgs))
	}
	// History without events has none.
	if plain := h.history(th.ID, false); len(plain) != 2 || plain[0].Events != nil {
		t.Errorf("history without includeEvents: %+v", plain)
	}

	// ACP content blocks instead of text.
	var blocks struct{ Turn apiTurn }
	h.call("POST", "/v1/threads/"+th.ID+"/turns", map[string]any{"content": []map[string]string{{"type": "text", "text": "echo from blocks"}}}, 202, &blocks)
	if done := h.waitTurn(th.ID, blocks.Turn.ID, 30*time.Second); done.Output != "from blocks" || done.Input != "echo from blocks" {
		t.Errorf("content-block turn %+v", done)
	}
	for _, bad := range []any{map[string]any{}, map[string]any{"input": "x", "content": []map[string]string{{"type": "text", "text": "y"}}}, "{not json"} {
		if r := h.do("POST", "/v1/threads/"+th.ID+"/turns", bad); r.status != 400 {
			t.Errorf("turn body %v: %s, want 400", bad, r)
		}
	}

	// A streaming client that goes away does not cancel its turn.
	s = h.mustSSE("POST", "/v1/threads/"+th.ID+"/turns", map[string]string{"input": "permission"})
	gone := s.resp.Header.Get("X-Switchboard-Turn-ID")
	s.until(30*time.Second, isType("turn_started"))
	s.close()
	p := h.waitPermission(gone, 30*time.Second)
	h.call("POST", "/v1/permissions/"+p.ID, map[string]string{"outcome": "approved"}, 200, nil)
	if done := h.waitTurn(th.ID, gone, 30*time.Second); done.Status != "completed" || done.Output != "outcome: selected allow-once" {
		t.Errorf("turn whose streaming client left: %+v", done)
	}

	// Rename: the thread's title, and an event for watchers.
	watch := h.mustSSE("GET", "/v1/threads/"+th.ID+"/events", nil, "Last-Event-ID", strconv.FormatInt(last, 10))
	var renamed struct{ Thread apiThread }
	h.call("PATCH", "/v1/threads/"+th.ID, map[string]string{"title": "Renamed"}, 200, &renamed)
	if renamed.Thread.Title != "Renamed" || h.thread(th.ID).Title != "Renamed" {
		t.Errorf("renamed thread %+v", renamed.Thread)
	}
	watch.until(30*time.Second, isType("thread_updated"))
	watch.close()

	// Delete while a turn waits for a permission: 204, the turn and its
	// agent stop, the permission is no longer pending, the thread is gone.
	victim := h.newThread("fake", t.TempDir())
	running := h.startTurn(victim.ID, "permission")
	vp := h.waitPermission(running.ID, 30*time.Second)
	var agent int
	if !waitFor(30*time.Second, func() bool {
		for _, pid := range h.noteAgents() {
			if cwd, _ := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid)); cwd == victim.Cwd {
				agent = pid
			}
		}
		return agent != 0
	}) {
		t.Fatal("no agent process runs in the deleted thread's cwd")
	}
	h.call("DELETE", "/v1/threads/"+victim.ID, nil, 204, nil)
	for _, path := range []string{"/v1/threads/" + victim.ID, "/v1/threads/" + victim.ID + "/history"} {
		if r := h.do("GET", path, nil); r.status != 404 {
			t.Errorf("GET %s after DELETE: %s, want 404", path, r)
		}
	}
	var list struct{ Threads []apiThread }
	h.call("GET", "/v1/threads", nil, 200, &list)
	if slices.ContainsFunc(list.Threads, func(x apiThread) bool { return x.ID == victim.ID }) {
		t.Error("a deleted thread is still listed")
	}
	if !waitFor(10*time.Second, func() bool { return !alive(agent) }) {
		t.Errorf("the deleted thread's agent %d still runs", agent)
	}
	if r := h.do("POST", "/v1/turns/"+running.ID+"/cancel", nil); r.status != 404 && r.status != 200 {
		t.Errorf("cancelling the deleted thread's turn: %s", r)
	}
	if r := h.decide(vp.ID, map[string]string{"outcome": "approved"}); r.status != 404 && r.status != 409 {
		t.Errorf("approving the deleted thread's permission: %s, want 404 or 409", r)
	}
	var all struct{ Permissions []apiPermission }
	h.call("GET", "/v1/permissions?status=pending&scope=all", nil, 200, &all)
	if len(all.Permissions) != 0 {
		t.Errorf("pending permissions after the thread's deletion: %+v", all.Permissions)
	}
}

// 3. Permissions decided over HTTP: approve, decline, an exact option,
// a second decision, cancel while pending, decidedBy.
func e2ePermissions(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	th := h.newThread("fake", t.TempDir())
	// The thread of the subtests after "optionId" (whose agent's "always"
	// is remembered on th).
	next := h.newThread("fake", t.TempDir())

	// run starts a "permission" turn, decides its permission with
	// decision (and headers), and returns the decided permission and the
	// ended turn.
	run := func(h *hubProc, decision any, hdr ...string) (apiPermission, apiTurn) {
		t := h.t
		t.Helper()
		turn := h.startTurn(th.ID, "permission")
		p := h.waitPermission(turn.ID, 30*time.Second)
		var r struct{ Permission apiPermission }
		h.call("POST", "/v1/permissions/"+p.ID, decision, 200, &r, hdr...)
		if r.Permission.ID != p.ID {
			t.Fatalf("decided %+v, want %s", r.Permission, p.ID)
		}
		// A second decision is refused, whatever it says.
		if again := h.decide(p.ID, map[string]string{"outcome": "approved"}); again.status != 409 || again.errorCode() != "CONFLICT" {
			t.Errorf("second decision: %s, want 409 CONFLICT", again)
		}
		return r.Permission, h.waitTurn(th.ID, turn.ID, 30*time.Second)
	}

	t.Run("approve", func(t *testing.T) {
		h := h.withT(t)
		turn := h.startTurn(th.ID, "permission")
		p := h.waitPermission(turn.ID, 30*time.Second)
		var tc struct {
			Title, Kind, ToolCallID string
		}
		json.Unmarshal(p.ToolCall, &tc)
		wantOpts := []apiOption{{"allow-once", "Allow", "allow_once"}, {"allow-always", "Always allow", "allow_always"}, {"reject-once", "Reject", "reject_once"}}
		if p.Status != "pending" || p.ThreadID != th.ID || tc.Title != "Run make clean" || tc.Kind != "execute" || !slices.Equal(p.Options, wantOpts) || p.Deadline == "" {
			t.Errorf("pending permission %+v (tool call %s)", p, p.ToolCall)
		}
		var r struct{ Permission apiPermission }
		h.call("POST", "/v1/permissions/"+p.ID, map[string]string{"outcome": "approved"}, 200, &r)
		if r.Permission.Status != "approved" || r.Permission.OptionID != "allow-once" || r.Permission.DecidedBy != "client:alice" {
			t.Errorf("approved permission %+v: want approved, allow-once, decidedBy client:alice", r.Permission)
		}
		h.waitTurn(th.ID, turn.ID, 30*time.Second)
		done := h.turn(th.ID, turn.ID)
		if done.Status != "completed" || done.Output != "outcome: selected allow-once" {
			t.Errorf("turn %+v: want completed with the agent saying it got allow-once", done)
		}
		var seen []string
		for _, e := range done.Events {
			seen = append(seen, e.Type)
			if e.Type == "permission_resolved" && (e.Permission == nil || e.Permission.Status != "approved") {
				t.Errorf("permission_resolved %+v", e.Permission)
			}
		}
		if i, j := slices.Index(seen, "permission_required"), slices.Index(seen, "permission_resolved"); i < 0 || j < i {
			t.Errorf("turn events %v: want permission_required then permission_resolved", seen)
		}
	})
	t.Run("decline", func(t *testing.T) {
		h := h.withT(t)
		p, done := run(h, map[string]string{"outcome": "declined"})
		if p.Status != "declined" || p.OptionID != "reject-once" {
			t.Errorf("permission %+v: want declined, reject-once", p)
		}
		if done.Status != "completed" || done.Output != "outcome: selected reject-once" {
			t.Errorf("turn %+v", done)
		}
	})
	t.Run("optionId", func(t *testing.T) {
		h := h.withT(t)
		p, done := run(h, map[string]string{"optionId": "allow-always"})
		if p.Status != "approved" || p.OptionID != "allow-always" {
			t.Errorf("permission %+v: want approved, allow-always", p)
		}
		if done.Output != "outcome: selected allow-always" {
			t.Errorf("turn %+v", done)
		}
		// The agent's own "always" for a command is also the hub's
		// remembered rule for exactly that run (ADR 0035): the thread's
		// next "make clean" is decided without anyone asked. The subtests
		// after this one need a person asked, so they get a thread of
		// their own.
		again := h.startTurn(th.ID, "permission")
		h.waitTurn(th.ID, again.ID, 30*time.Second)
		var ps struct{ Permissions []apiPermission }
		h.call("GET", "/v1/permissions?threadId="+th.ID+"&status=approved", nil, 200, &ps)
		remembered := false
		for _, p := range ps.Permissions {
			remembered = remembered || (p.TurnID == again.ID && strings.HasPrefix(p.DecidedBy, "remembered:"))
		}
		if !remembered {
			t.Errorf("the next identical request after the agent's always: %+v, want one decided by remembered:<id>", ps.Permissions)
		}
		th = next
	})
	// A token holder cannot pass for the window or the tray: decidedBy
	// comes from the credential, never from a header it chooses.
	t.Run("decidedBy forged", func(t *testing.T) {
		for _, tt := range []struct {
			name string
			hdr  []string
			want string
		}{
			{"X-Client-ID window", []string{"X-Client-ID", "window"}, "client:window"},
			{"X-Switchboard-Via window", []string{"X-Switchboard-Via", "window"}, "client:alice"},
			{"X-Switchboard-Via tray", []string{"X-Client-ID", "switchboard-tray", "X-Switchboard-Via", "tray"}, "client:switchboard-tray"},
			{"forged X-Switchboard-Tray", []string{"X-Client-ID", "switchboard-tray", "X-Switchboard-Tray", strings.Repeat("0", 64)}, "client:switchboard-tray"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				h := h.withT(t)
				turn := h.startTurn(th.ID, "permission")
				p := h.waitPermission(turn.ID, 30*time.Second)
				var r struct{ Permission apiPermission }
				h.call("POST", "/v1/permissions/"+p.ID+"?scope=all", map[string]string{"outcome": "approved"}, 200, &r, tt.hdr...)
				if r.Permission.DecidedBy != tt.want || h.permission(p.ID).DecidedBy != tt.want {
					t.Errorf("permission %+v: want decidedBy %s", r.Permission, tt.want)
				}
				h.waitTurn(th.ID, turn.ID, 30*time.Second)
			})
		}
	})
	t.Run("bad decisions", func(t *testing.T) {
		h := h.withT(t)
		turn := h.startTurn(th.ID, "permission")
		p := h.waitPermission(turn.ID, 30*time.Second)
		for _, d := range []any{
			map[string]string{"outcome": "maybe"},
			map[string]string{"optionId": "no-such-option"},
			map[string]string{"outcome": "approved", "optionId": "allow-once"},
		} {
			if r := h.decide(p.ID, d); r.status != 400 {
				t.Errorf("decision %v: %s, want 400", d, r)
			}
		}
		if r := h.decide("pm_nonexistent", map[string]string{"outcome": "approved"}); r.status != 404 {
			t.Errorf("unknown permission: %s, want 404", r)
		}
		if got := h.permission(p.ID); got.Status != "pending" {
			t.Errorf("after refused decisions the permission is %+v, want still pending", got)
		}
		h.call("POST", "/v1/permissions/"+p.ID, map[string]string{"outcome": "declined"}, 200, nil)
		h.waitTurn(th.ID, turn.ID, 30*time.Second)
	})
	t.Run("cancel while pending", func(t *testing.T) {
		h := h.withT(t)
		turn := h.startTurn(th.ID, "permission")
		p := h.waitPermission(turn.ID, 30*time.Second)
		start := time.Now()
		var r struct{ Turn apiTurn }
		h.call("POST", "/v1/turns/"+turn.ID+"/cancel", nil, 200, &r)
		if r.Turn.Status != "cancelled" || r.Turn.StopReason != "cancelled" {
			t.Errorf("cancel answered %+v: want the turn cancelled", r.Turn)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("cancel took %v, want < 5s", d)
		}
		got := h.permission(p.ID)
		if got.Status != "cancelled" || got.DecidedBy != "cancel" || got.OptionID != "" {
			t.Errorf("permission after cancel %+v: want cancelled, decidedBy cancel, no option", got)
		}
		if again := h.decide(p.ID, map[string]string{"outcome": "approved"}); again.status != 409 {
			t.Errorf("approving a cancelled permission: %s, want 409", again)
		}
		if th := h.thread(th.ID); th.Status != "idle" {
			t.Errorf("thread %q after cancel, want idle", th.Status)
		}
		// Cancelling again is idempotent.
		h.call("POST", "/v1/turns/"+turn.ID+"/cancel", nil, 200, &r)
		if r.Turn.Status != "cancelled" {
			t.Errorf("second cancel: %+v", r.Turn)
		}
		// The agent is still usable.
		next := h.startTurn(th.ID, "echo still here")
		if done := h.waitTurn(th.ID, next.ID, 30*time.Second); done.Output != "still here" {
			t.Errorf("turn after a cancel: %+v", done)
		}
	})
	if pending := h.permissions("pending"); len(pending) != 0 {
		t.Errorf("pending permissions left: %+v", pending)
	}
}

// 3b. A permission nobody decides expires (permissions.timeout) and the
// agent is told reject-once: fail closed. A turn past limits.turnTimeout
// fails.
func e2ePermissionTimeout(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, hubConfig{
		"permissions": map[string]any{"timeout": "1s"},
		"limits":      map[string]any{"turnTimeout": "2s"},
	})
	hung := h.newThread("fake", t.TempDir())
	hang := h.startTurn(hung.ID, "hang")
	th := h.newThread("fake", t.TempDir())
	turn := h.startTurn(th.ID, "permission")
	p := h.waitPermission(turn.ID, 30*time.Second)
	done := h.waitTurn(th.ID, turn.ID, 30*time.Second)
	if done.Status != "completed" || done.Output != "outcome: selected reject-once" {
		t.Errorf("turn %+v: want the agent told reject-once", done)
	}
	got := h.permission(p.ID)
	if got.Status != "expired" || got.DecidedBy != "timeout" {
		t.Errorf("permission %+v: want expired by timeout", got)
	}
	if r := h.decide(p.ID, map[string]string{"outcome": "approved"}); r.status != 409 {
		t.Errorf("approving an expired permission: %s, want 409", r)
	}

	h.waitTurn(hung.ID, hang.ID, 30*time.Second)
	tu := h.turn(hung.ID, hang.ID)
	if tu.Status != "failed" || !slices.ContainsFunc(tu.Events, func(e apiEvent) bool { return e.Type == "error" && e.Code == "TIMEOUT" }) {
		t.Errorf("turn past limits.turnTimeout: %s %q, events %+v: want failed with a TIMEOUT error", tu.Status, tu.Error, tu.Events)
	}
}

// 4. One turn at a time per thread; threads belong to their client.
func e2eConflictAndOwnership(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	th := h.newThread("fake", t.TempDir())
	turn := h.startTurn(th.ID, "permission")
	p := h.waitPermission(turn.ID, 30*time.Second)

	r := h.do("POST", "/v1/threads/"+th.ID+"/turns", map[string]string{"input": "echo no"})
	var conflict struct {
		Error struct {
			Code    string
			Details struct{ TurnID string }
		}
	}
	r.decode(t, &conflict)
	if r.status != 409 || conflict.Error.Code != "CONFLICT" || conflict.Error.Details.TurnID != turn.ID {
		t.Errorf("second turn: %s, want 409 CONFLICT naming turn %s", r, turn.ID)
	}
	if s, r := h.sse("POST", "/v1/threads/"+th.ID+"/turns", map[string]string{"input": "echo no"}); s != nil || r.status != 409 {
		t.Errorf("second turn with Accept: text/event-stream: %s, want a JSON 409", r)
	}

	bob := []string{"X-Client-ID", "bob"}
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{"GET", "/v1/threads/" + th.ID, nil},
		{"PATCH", "/v1/threads/" + th.ID, map[string]string{"title": "mine now"}},
		{"GET", "/v1/threads/" + th.ID + "/history", nil},
		{"POST", "/v1/threads/" + th.ID + "/turns", map[string]string{"input": "echo hi"}},
		{"POST", "/v1/turns/" + turn.ID + "/cancel", nil},
		{"POST", "/v1/permissions/" + p.ID, map[string]string{"outcome": "approved"}},
		{"POST", "/v1/threads/" + th.ID + "/compact", nil},
		{"DELETE", "/v1/threads/" + th.ID, nil},
	} {
		if r := h.do(c.method, c.path, c.body, bob...); r.status != 404 || r.errorCode() != "NOT_FOUND" {
			t.Errorf("bob %s %s: %s, want 404 NOT_FOUND", c.method, c.path, r)
		}
	}
	if s, r := h.sse("GET", "/v1/threads/"+th.ID+"/events", nil, bob...); s != nil || r.status != 404 {
		t.Errorf("bob's event stream of alice's thread: %s, want 404 and no stream", r)
	}
	var threads struct{ Threads []apiThread }
	h.call("GET", "/v1/threads", nil, 200, &threads, bob...)
	if len(threads.Threads) != 0 {
		t.Errorf("bob lists %+v, want nothing", threads.Threads)
	}
	if ps := h.permissions("", bob...); len(ps) != 0 {
		t.Errorf("bob sees permissions %+v", ps)
	}

	// bob's /v1/events from the start holds only bob's events: read until
	// bob's own turn ends.
	bobEvents := h.mustSSE("GET", "/v1/events?after=0", nil, bob...)
	bobThread := h.newThread("fake", t.TempDir(), bob...)
	bobTurn := h.startTurn(bobThread.ID, "echo bob's", bob...)
	for _, m := range bobEvents.until(30*time.Second, isType("turn_completed", bobTurn.ID)) {
		if m.ev.ThreadID != bobThread.ID {
			t.Errorf("bob's stream carried %s of thread %s", m.event, m.ev.ThreadID)
		}
	}
	bobEvents.close()

	// scope=all lifts the filter.
	all := append([]string{}, bob...)
	if got := h.thread(th.ID+"?scope=all", all...); got.ID != th.ID {
		t.Errorf("scope=all thread %+v", got)
	}
	h.call("GET", "/v1/threads?scope=all", nil, 200, &threads, bob...)
	ids := []string{}
	for _, x := range threads.Threads {
		ids = append(ids, x.ID)
	}
	if !slices.Contains(ids, th.ID) || !slices.Contains(ids, bobThread.ID) {
		t.Errorf("scope=all threads %v: want alice's and bob's", ids)
	}
	var ps struct{ Permissions []apiPermission }
	h.call("GET", "/v1/permissions?status=pending&scope=all", nil, 200, &ps, bob...)
	if len(ps.Permissions) != 1 || ps.Permissions[0].ID != p.ID {
		t.Errorf("scope=all pending permissions %+v, want alice's", ps.Permissions)
	}
	allEvents := h.mustSSE("GET", "/v1/events?after=0&scope=all", nil, bob...)
	allEvents.until(30*time.Second, func(m sseMsg) bool { return m.ev.ThreadID == th.ID && m.event == "permission_required" })
	allEvents.close()
	threadEvents := h.mustSSE("GET", "/v1/threads/"+th.ID+"/events?scope=all", nil, bob...)
	threadEvents.until(30*time.Second, isType("permission_required", turn.ID))
	threadEvents.close()

	// Another client (a tray started by hand) decides alice's permission
	// through scope=all.
	var dec struct{ Permission apiPermission }
	h.call("POST", "/v1/permissions/"+p.ID+"?scope=all", map[string]string{"outcome": "approved"}, 200, &dec, "X-Client-ID", "switchboard-tray")
	if dec.Permission.DecidedBy != "client:switchboard-tray" {
		t.Errorf("decided %+v", dec.Permission)
	}
	if done := h.waitTurn(th.ID, turn.ID, 30*time.Second); done.Output != "outcome: selected allow-once" {
		t.Errorf("turn %+v", done)
	}
	// Now free: the next turn starts.
	next := h.startTurn(th.ID, "echo free")
	h.waitTurn(th.ID, next.ID, 30*time.Second)
}

// 8. Agent faults: a crash fails the turn with the agent's stderr tail and
// the next turn gets a new agent (which reloads the session: the fake
// agent's replay of it must not leak into the new turn); garbage on stdout
// is survived.
func e2eAgentFaults(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	th := h.newThread("fakeload", t.TempDir())
	s := h.mustSSE("POST", "/v1/threads/"+th.ID+"/turns", map[string]string{"input": "crash 3"})
	turnID := s.resp.Header.Get("X-Switchboard-Turn-ID")
	msgs := s.wantEnd(30 * time.Second)
	last := lastMsg(msgs)
	if last.event != "error" || !strings.Contains(last.ev.Message, "fatal: simulated crash") || last.ev.Code == "" {
		t.Errorf("crash stream %v ended with %+v: want an error event with the agent's stderr", types(msgs), last.ev)
	}
	h.waitTurn(th.ID, turnID, 30*time.Second)
	tu := h.turn(th.ID, turnID)
	if tu.Status != "failed" || tu.Output != "about to crash" || !strings.Contains(tu.Error, "fatal: simulated crash") {
		t.Errorf("crashed turn %+v", tu)
	}
	if !slices.ContainsFunc(tu.Events, func(e apiEvent) bool { return e.Type == "error" && strings.Contains(e.Message, "code 3") }) {
		t.Errorf("stored events %+v: want an error event naming exit code 3", tu.Events)
	}
	if got := h.thread(th.ID); got.Status != "idle" {
		t.Errorf("thread %q after the crash", got.Status)
	}
	next := h.startTurn(th.ID, "echo recovered")
	if done := h.waitTurn(th.ID, next.ID, 30*time.Second); done.Status != "completed" || done.Output != "recovered" {
		t.Errorf("turn after the crash: %+v", done)
	}
	g := h.startTurn(th.ID, "garbage")
	if done := h.waitTurn(th.ID, g.ID, 30*time.Second); done.Status != "completed" || done.Output != "after garbage" {
		t.Errorf("garbage turn: %+v", done)
	}
	again := h.startTurn(th.ID, "echo fine")
	if done := h.waitTurn(th.ID, again.ID, 30*time.Second); done.Output != "fine" {
		t.Errorf("turn after garbage: %+v", done)
	}
}

// 11. The agent process limit: a turn that would start one more agent
// than limits.maxAgentProcesses is 429 with Retry-After.
func e2eTooManyAgents(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, hubConfig{"limits": map[string]any{"maxAgentProcesses": 1, "agentIdleTimeout": "500ms"}})
	a := h.newThread("fake", t.TempDir())
	b := h.newThread("fake", t.TempDir())
	ta := h.startTurn(a.ID, "hang")
	r := h.do("POST", "/v1/threads/"+b.ID+"/turns", map[string]string{"input": "hang"})
	if r.status != 429 || r.errorCode() != "TOO_MANY_REQUESTS" {
		t.Fatalf("second agent: %s, want 429", r)
	}
	if ra, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || ra < 1 {
		t.Errorf("Retry-After %q, want a number of seconds", r.header.Get("Retry-After"))
	}
	if s, r := h.sse("POST", "/v1/threads/"+b.ID+"/turns", map[string]string{"input": "hang"}); s != nil || r.status != 429 || r.header.Get("Retry-After") == "" {
		t.Errorf("streamed second agent: %s, want a JSON 429 with Retry-After", r)
	}
	// The limit counts processes, not turns: thread a's agent takes
	// another turn.
	var c struct{ Turn apiTurn }
	h.call("POST", "/v1/turns/"+ta.ID+"/cancel", nil, 200, &c)
	again := h.startTurn(a.ID, "echo same agent")
	h.waitTurn(a.ID, again.ID, 30*time.Second)
	// Once a's agent stops (idle timeout), b may start one.
	var tb apiTurn
	if !waitFor(20*time.Second, func() bool {
		r := h.do("POST", "/v1/threads/"+b.ID+"/turns", map[string]string{"input": "echo my turn"})
		if r.status == 202 {
			var x struct{ Turn apiTurn }
			r.decode(t, &x)
			tb = x.Turn
		}
		return r.status == 202
	}) {
		t.Fatal("thread b never got an agent after a's went idle")
	}
	if done := h.waitTurn(b.ID, tb.ID, 30*time.Second); done.Output != "my turn" {
		t.Errorf("turn %+v", done)
	}
}
