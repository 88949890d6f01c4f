//go:build unix

package engine_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/acp/acptest"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/engine"
	"github.com/switchboard-hub/switchboard/store"
)

func TestMain(m *testing.M) {
	acptest.RunFakeAgentIfRequested()
	os.Exit(m.Run())
}

var alice = hub.Caller{ClientID: "alice"}

type harness struct {
	t      testing.TB
	e      *engine.Engine
	db     *store.DB
	dbPath string
	cwd    string
	log    *slog.Logger // nil: discard
	// maxHistory is Options.MaxHistoryBytes (0: the default).
	maxHistory int
	// clock, when set, is the engine's clock (Now and AfterFunc).
	clock *fakeClock
}

func fakeSpec(t testing.TB, id string, env ...string) acp.AgentSpec {
	path, args, fenv := acptest.FakeAgentArgv(t, env...)
	return acp.AgentSpec{ID: id, Name: "Fake " + id, Command: acp.Command{Path: path, Args: args, Env: fenv}}
}

func newHarness(t testing.TB, cfg func(*engine.Config), specs ...acp.AgentSpec) *harness {
	t.Helper()
	return newHarnessOn(t, nil, cfg, specs...)
}

// newClockHarness is newHarness on a fake clock (h.clock): the engine's
// timers (watchdogs, permissions, elicitations, idle agents) fire only when
// the test advances it.
func newClockHarness(t testing.TB, cfg func(*engine.Config), specs ...acp.AgentSpec) *harness {
	t.Helper()
	return newHarnessOn(t, newFakeClock(), cfg, specs...)
}

func newHarnessOn(t testing.TB, clock *fakeClock, cfg func(*engine.Config), specs ...acp.AgentSpec) *harness {
	t.Helper()
	h := &harness{t: t, dbPath: filepath.Join(t.TempDir(), "hub.db"), cwd: t.TempDir(), clock: clock}
	if len(specs) == 0 {
		specs = []acp.AgentSpec{fakeSpec(t, "fake"), fakeSpec(t, "fakeload", "FAKEAGENT_LOAD_SESSION=1")}
	}
	c := engine.DefaultConfig()
	if cfg != nil {
		cfg(&c)
	}
	h.open(c, specs)
	return h
}

func (h *harness) open(c engine.Config, specs []acp.AgentSpec) {
	t := h.t
	db, err := store.Open(h.dbPath, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	opts := engine.Options{Store: db, Config: c, Agents: specs, Logger: h.log, MaxHistoryBytes: h.maxHistory,
		AgentOptions: acp.AgentOptions{Process: acp.ProcessOptions{Grace: 300 * time.Millisecond}}}
	if h.clock != nil {
		opts.Now, opts.AfterFunc = h.clock.Now, h.clock.AfterFunc
	}
	e, err := engine.New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	h.e, h.db = e, db
	t.Cleanup(h.close)
}

func (h *harness) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h.e.Close(ctx)
	h.db.Close()
}

func (h *harness) thread(agent string) hub.Thread {
	h.t.Helper()
	th, err := h.e.CreateThread(context.Background(), alice, hub.CreateThreadRequest{Agent: agent, Cwd: h.cwd})
	if err != nil {
		h.t.Fatal(err)
	}
	return th
}

// watch subscribes to a thread from the beginning.
func (h *harness) watch(th hub.Thread) *hub.Subscription {
	h.t.Helper()
	sub, err := h.e.Subscribe(context.Background(), alice, th.ID, 0)
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(sub.Close)
	return sub
}

// until reads events until one of type typ (for turnID, if set) arrives.
func until(t testing.TB, sub *hub.Subscription, typ string) hub.Event {
	t.Helper()
	return untilOneOf(t, sub, typ)
}

// untilOneOf is the next event of one of the types, skipping others.
func untilOneOf(t testing.TB, sub *hub.Subscription, types ...string) hub.Event {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case ev, ok := <-sub.Events():
			if !ok {
				t.Fatalf("stream ended waiting for %v", types)
			}
			if slices.Contains(types, ev.Type) {
				return ev
			}
		case <-timeout:
			t.Fatalf("no %v event", types)
		}
	}
}

func payload[T any](t testing.TB, ev hub.Event, key string) T {
	t.Helper()
	var m map[string]json.RawMessage
	var v T
	if err := json.Unmarshal(ev.Payload, &m); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(m[key], &v); err != nil {
		t.Fatalf("%s.%s: %v (%s)", ev.Type, key, err, ev.Payload)
	}
	return v
}

func (h *harness) run(th hub.Thread, sub *hub.Subscription, input string) hub.Turn {
	h.t.Helper()
	if _, err := h.e.StartTurn(context.Background(), alice, th.ID, hub.TurnInput{Input: input}); err != nil {
		h.t.Fatal(err)
	}
	return payload[hub.Turn](h.t, until(h.t, sub, hub.EventTurnCompleted), "turn")
}

func TestTurnStreamsAndCompletes(t *testing.T) {
	h := newHarness(t, nil)
	th := h.thread("fake")
	sub := h.watch(th)
	turn := h.run(th, sub, "echo hello there")
	if turn.Status != hub.TurnCompleted || turn.Output != "hello there" || turn.StopReason != "end_turn" {
		t.Fatalf("turn %+v", turn)
	}
	hist, err := h.e.History(context.Background(), alice, th.ID, true, false)
	if err != nil || len(hist) != 1 {
		t.Fatalf("history %v %v", hist, err)
	}
	// The message may come in more deltas than the agent sent (redaction
	// holds a message's last word back until the next chunk or the end):
	// their text is the output.
	var types []string
	var text strings.Builder
	for _, ev := range hist[0].Events {
		if n := len(types); n == 0 || types[n-1] != ev.Type {
			types = append(types, ev.Type)
		}
		if ev.Type == hub.EventMessageDelta {
			text.WriteString(payload[string](t, ev, "text"))
		}
	}
	// The first session announces its mode and options (ADR 0032).
	if strings.Join(types, ",") != "turn_started,mode_changed,config_options,message_delta,turn_completed" || text.String() != turn.Output {
		t.Fatalf("events %v, text %q", types, text.String())
	}
	got, _ := h.e.GetThread(context.Background(), alice, th.ID)
	if got.Status != hub.ThreadIdle {
		t.Fatalf("thread %+v", got)
	}
}

func TestUpdatesBecomeEvents(t *testing.T) {
	h := newHarness(t, nil)
	th := h.thread("fake")
	sub := h.watch(th)
	h.run(th, sub, "tools")
	h.run(th, sub, "unknown-update")
	hist, _ := h.e.History(context.Background(), alice, th.ID, true, false)
	var types []string
	for _, turn := range hist {
		for _, ev := range turn.Events {
			types = append(types, ev.Type)
		}
	}
	// The first session announces its mode and options (ADR 0032).
	want := "turn_started,mode_changed,config_options,tool_call,tool_call_update,tool_call_update,plan,turn_completed,turn_started,agent_update,usage,turn_completed"
	if strings.Join(types, ",") != want {
		t.Fatalf("events\n got %s\nwant %s", strings.Join(types, ","), want)
	}
	raw := payload[json.RawMessage](t, hist[1].Events[1], "update")
	if !strings.Contains(string(raw), `"futureField":{"nested":[1,2,3],"flag":true}`) {
		t.Fatalf("unknown update not kept raw: %s", raw)
	}
}

func TestOneTurnPerThreadAndOwnership(t *testing.T) {
	h := newHarness(t, nil)
	th := h.thread("fake")
	ctx := context.Background()
	turn, err := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "hang"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "echo x"}); hub.ErrorCode(err) != hub.CodeConflict {
		t.Fatalf("second turn: %v", err)
	}
	bob := hub.Caller{ClientID: "bob"}
	if _, err := h.e.GetThread(ctx, bob, th.ID); hub.ErrorCode(err) != hub.CodeNotFound {
		t.Fatalf("bob sees alice's thread: %v", err)
	}
	if _, err := h.e.CancelTurn(ctx, bob, turn.ID); hub.ErrorCode(err) != hub.CodeNotFound {
		t.Fatalf("bob cancels alice's turn: %v", err)
	}
	if _, err := h.e.GetThread(ctx, hub.Caller{ClientID: "bob", All: true}, th.ID); err != nil {
		t.Fatalf("scope=all: %v", err)
	}
	ended, err := h.e.CancelTurn(ctx, alice, turn.ID)
	if err != nil || ended.Status != hub.TurnCancelled {
		t.Fatalf("cancel %+v %v", ended, err)
	}
}

func TestCreateThreadValidation(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	for _, req := range []hub.CreateThreadRequest{
		{Agent: "nope", Cwd: h.cwd},
		{Agent: "fake", Cwd: "relative/dir"},
		{Agent: "fake", Cwd: ""},
		{Agent: "fake", Cwd: filepath.Join(h.cwd, "missing")},
	} {
		if _, err := h.e.CreateThread(ctx, alice, req); hub.ErrorCode(err) != hub.CodeInvalidArgument {
			t.Errorf("%+v: %v", req, err)
		}
	}
	if _, err := h.e.CreateThread(ctx, hub.Caller{ClientID: "bad id!"}, hub.CreateThreadRequest{Agent: "fake", Cwd: h.cwd}); hub.ErrorCode(err) != hub.CodeInvalidArgument {
		t.Errorf("bad client id: %v", err)
	}
}

func TestPermissionDecisions(t *testing.T) {
	tests := []struct {
		name      string
		caller    hub.Caller
		decision  hub.Decision
		status    string
		agent     string
		decidedBy string
	}{
		{"approved", hub.Caller{ClientID: "alice", Surface: hub.SurfaceTray}, hub.Decision{Outcome: "approved"}, hub.PermissionApproved, "outcome: selected allow-once", "tray"},
		{"declined", alice, hub.Decision{Outcome: "declined"}, hub.PermissionDeclined, "outcome: selected reject-once", "client:alice"},
		{"optionId", hub.Caller{ClientID: "alice", Surface: "editor"}, hub.Decision{OptionID: "allow-always"}, hub.PermissionApproved, "outcome: selected allow-always", "client:alice"},
	}
	h := newHarness(t, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			th := h.thread("fake")
			sub := h.watch(th)
			ctx := context.Background()
			if _, err := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "permission"}); err != nil {
				t.Fatal(err)
			}
			p := payload[hub.Permission](t, until(t, sub, hub.EventPermissionRequired), "permission")
			if p.Status != hub.PermissionPending || len(p.Options) != 3 || p.Deadline.IsZero() {
				t.Fatalf("permission %+v", p)
			}
			pending, _ := h.e.ListPermissions(ctx, alice, hub.PermissionPending)
			if len(pending) != 1 || pending[0].ID != p.ID {
				t.Fatalf("pending %+v", pending)
			}
			res, err := h.e.DecidePermission(ctx, tt.caller, p.ID, tt.decision)
			decided := res.Permission
			if err != nil || decided.Status != tt.status || decided.DecidedBy != tt.decidedBy {
				t.Fatalf("decide %+v %v", decided, err)
			}
			if _, err := h.e.DecidePermission(ctx, alice, p.ID, tt.decision); hub.ErrorCode(err) != hub.CodeConflict {
				t.Fatalf("second decision: %v", err)
			}
			turn := payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn")
			if !strings.HasSuffix(turn.Output, tt.agent) {
				t.Fatalf("agent said %q, want %q", turn.Output, tt.agent)
			}
		})
	}
	t.Run("invalid decisions", func(t *testing.T) {
		th := h.thread("fake")
		sub := h.watch(th)
		ctx := context.Background()
		h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "permission"})
		p := payload[hub.Permission](t, until(t, sub, hub.EventPermissionRequired), "permission")
		for _, d := range []hub.Decision{{}, {Outcome: "maybe"}, {OptionID: "made-up"}, {Outcome: "approved", OptionID: "allow-once"}} {
			if _, err := h.e.DecidePermission(ctx, alice, p.ID, d); hub.ErrorCode(err) != hub.CodeInvalidArgument {
				t.Errorf("%+v: %v", d, err)
			}
		}
		if _, err := h.e.DecidePermission(ctx, hub.Caller{ClientID: "bob"}, p.ID, hub.Decision{Outcome: "approved"}); hub.ErrorCode(err) != hub.CodeNotFound {
			t.Errorf("bob decided: %v", err)
		}
		h.e.DecidePermission(ctx, alice, p.ID, hub.Decision{Outcome: "declined"})
		until(t, sub, hub.EventTurnCompleted)
	})
}

// No answer by the deadline: expired, and the agent is told reject_once.
func TestPermissionTimeoutFailsClosed(t *testing.T) {
	h := newClockHarness(t, func(c *engine.Config) { c.PermissionTimeout = time.Minute })
	th := h.thread("fake")
	sub := h.watch(th)
	if _, err := h.e.StartTurn(context.Background(), alice, th.ID, hub.TurnInput{Input: "permission"}); err != nil {
		t.Fatal(err)
	}
	until(t, sub, hub.EventPermissionRequired)
	h.clock.advanceOnce(t, time.Minute) // the permission expires on the engine's clock
	turn := payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn")
	if !strings.HasSuffix(turn.Output, "outcome: selected reject-once") {
		t.Fatalf("agent said %q", turn.Output)
	}
	ps, _ := h.e.ListPermissions(context.Background(), alice, "")
	if len(ps) != 1 || ps[0].Status != hub.PermissionExpired || ps[0].DecidedBy != hub.DecidedByTimeout {
		t.Fatalf("permissions %+v", ps)
	}
}

func TestCancelWhilePermissionPending(t *testing.T) {
	h := newHarness(t, nil)
	th := h.thread("fake")
	sub := h.watch(th)
	ctx := context.Background()
	turn, _ := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "permission"})
	p := payload[hub.Permission](t, until(t, sub, hub.EventPermissionRequired), "permission")
	ended, err := h.e.CancelTurn(ctx, alice, turn.ID)
	if err != nil || ended.Status != hub.TurnCancelled || !strings.HasSuffix(ended.Output, "outcome: cancelled") {
		t.Fatalf("cancel %+v %v", ended, err)
	}
	got, _ := h.e.ListPermissions(ctx, alice, "")
	if len(got) != 1 || got[0].ID != p.ID || got[0].Status != hub.PermissionCancelled || got[0].DecidedBy != hub.DecidedByCancel {
		t.Fatalf("permission %+v, want cancelled, decidedBy cancel", got)
	}
	if _, err := h.e.DecidePermission(ctx, alice, p.ID, hub.Decision{Outcome: "approved"}); hub.ErrorCode(err) != hub.CodeConflict {
		t.Fatalf("late approval: %v", err)
	}
}

// An agent that ignores cancel is killed; the turn still ends cancelled in
// time, and the next turn gets a fresh process.
func TestCancelAgentThatIgnoresIt(t *testing.T) {
	h := newHarness(t, nil)
	// fakeload reopens its session after the kill, so the next prompt
	// reaches it without a context block.
	th := h.thread("fakeload")
	sub := h.watch(th)
	ctx := context.Background()
	turn, _ := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "hang-hard"})
	until(t, sub, hub.EventTurnStarted)
	// A cancel before the session is open (a slow start on a loaded
	// machine) ends the turn without a prompt and without a session to
	// load, so the next turn would get a context block: wait for the
	// session's id to be stored, then let the prompt reach the agent.
	waitUntil(t, "the agent's session to open", func() bool {
		got, err := h.db.GetThread(ctx, th.ID)
		return err == nil && got.AgentSessionID != ""
	})
	time.Sleep(500 * time.Millisecond)
	start := time.Now()
	ended, err := h.e.CancelTurn(ctx, alice, turn.ID)
	if err != nil || ended.Status != hub.TurnCancelled {
		t.Fatalf("cancel %+v %v", ended, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("cancel took %v", d)
	}
	until(t, sub, hub.EventTurnCompleted)
	if next := h.run(th, sub, "echo alive"); next.Status != hub.TurnCompleted || next.Output != "alive" {
		t.Fatalf("next turn %+v", next)
	}
}

func TestAgentCrashFailsTurnThenRecovers(t *testing.T) {
	h := newHarness(t, nil)
	th := h.thread("fakeload")
	sub := h.watch(th)
	ctx := context.Background()
	if _, err := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "crash 9"}); err != nil {
		t.Fatal(err)
	}
	errEv := until(t, sub, hub.EventError)
	msg := payload[string](t, errEv, "message")
	if !strings.Contains(msg, "code 9") || !strings.Contains(msg, "fatal: simulated crash") {
		t.Fatalf("error event %s", errEv.Payload)
	}
	turn := payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn")
	if turn.Status != hub.TurnFailed || turn.Output != "about to crash" {
		t.Fatalf("turn %+v", turn)
	}
	if next := h.run(th, sub, "garbage"); next.Status != hub.TurnCompleted || next.Output != "after garbage" {
		t.Fatalf("next turn %+v", next)
	}
}

func TestProcessLimit(t *testing.T) {
	h := newHarness(t, func(c *engine.Config) { c.MaxAgentProcesses = 1 })
	a, b := h.thread("fake"), h.thread("fake")
	ctx := context.Background()
	if _, err := h.e.StartTurn(ctx, alice, a.ID, hub.TurnInput{Input: "hang"}); err != nil {
		t.Fatal(err)
	}
	_, err := h.e.StartTurn(ctx, alice, b.ID, hub.TurnInput{Input: "echo x"})
	var he *hub.Error
	if hub.ErrorCode(err) != hub.CodeTooManyRequests || !asError(err, &he) || he.RetryAfter <= 0 {
		t.Fatalf("want TOO_MANY_REQUESTS with Retry-After, got %v", err)
	}
}

func asError(err error, target **hub.Error) bool {
	e, ok := err.(*hub.Error)
	*target = e
	return ok
}

// After the idle timeout the agent is stopped; the next turn reopens the
// session with session/load when the agent has it, otherwise with a
// context block carrying the earlier turns.
func TestIdleAgentReopensSession(t *testing.T) {
	h := newClockHarness(t, func(c *engine.Config) { c.AgentIdleTimeout = 200 * time.Millisecond })
	t.Run("context block", func(t *testing.T) {
		th := h.thread("fake")
		sub := h.watch(th)
		h.run(th, sub, "echo the answer is 42")
		waitIdleStop(t, h, th)
		next := h.run(th, sub, "echo again")
		// The fake agent reads the first text block as its command: here the
		// injected context, which it reports back verbatim.
		if !strings.Contains(next.Output, "continues an earlier session") || !strings.Contains(next.Output, "Assistant: the answer is 42") {
			t.Fatalf("no context block in %q", next.Output)
		}
	})
	t.Run("session/load", func(t *testing.T) {
		th := h.thread("fakeload")
		sub := h.watch(th)
		h.run(th, sub, "echo first")
		waitIdleStop(t, h, th)
		next := h.run(th, sub, "echo second")
		if next.Output != "second" {
			t.Fatalf("output %q", next.Output)
		}
		hist, _ := h.e.History(context.Background(), alice, th.ID, true, false)
		var ty []string
		for _, ev := range hist[1].Events {
			ty = append(ty, ev.Type)
		}
		// The reopened session is announced (session_changed); the replay
		// of the old one is not stored again.
		if got := strings.Join(ty, ","); got != "turn_started,session_changed,message_delta,turn_completed" {
			t.Fatalf("replayed history leaked into the new turn: events %s", got)
		}
	})
}

func TestCompactStoresSummaryInternally(t *testing.T) {
	h := newHarness(t, nil)
	th := h.thread("fake")
	sub := h.watch(th)
	h.run(th, sub, "echo hi")
	ctx := context.Background()
	got, err := h.e.CompactThread(ctx, alice, th.ID)
	if err != nil {
		t.Fatal(err)
	}
	hist, _ := h.e.History(ctx, alice, th.ID, false, false)
	all, _ := h.e.History(ctx, alice, th.ID, false, true)
	// The summary turn, then the new session's context turn: both hidden.
	if len(hist) != 1 || len(all) != 3 || !all[1].Internal || !all[2].Internal {
		t.Fatalf("history %d, with internal %d", len(hist), len(all))
	}
	if got.ID != th.ID || got.Summary == "" || got.CompactedAt == nil {
		t.Fatalf("thread %+v: want its summary and compactedAt", got)
	}
	// The new session received the summary: the fake agent echoes the
	// whole prompt back ("unknown command: …").
	if !strings.Contains(all[2].Output, got.Summary) || !strings.Contains(all[2].Output, "was compacted") {
		t.Fatalf("context turn output %q lacks the summary %q", all[2].Output, got.Summary)
	}
}

// A hub killed mid-turn: on restart the turn is interrupted, the pending
// permission expired, the thread idle, its history intact.
func TestRestartRecovery(t *testing.T) {
	h := newHarness(t, nil)
	th := h.thread("fake")
	sub := h.watch(th)
	ctx := context.Background()
	h.run(th, sub, "echo earlier turn")
	turn, _ := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "permission"})
	p := payload[hub.Permission](t, until(t, sub, hub.EventPermissionRequired), "permission")
	// Simulate a crash: the store is closed under the engine, which is
	// never shut down gracefully.
	h.db.Close()
	h.open(engine.DefaultConfig(), []acp.AgentSpec{fakeSpec(t, "fake")})
	got, err := h.e.History(ctx, alice, th.ID, true, false)
	if err != nil || len(got) != 2 || got[1].ID != turn.ID || got[1].Status != hub.TurnInterrupted {
		t.Fatalf("history %+v %v", got, err)
	}
	if got[0].Output != "earlier turn" {
		t.Fatalf("output %q", got[0].Output)
	}
	ps, _ := h.e.ListPermissions(ctx, alice, "")
	if len(ps) != 1 || ps[0].ID != p.ID || ps[0].Status != hub.PermissionExpired {
		t.Fatalf("permissions %+v", ps)
	}
	if cur, _ := h.e.GetThread(ctx, alice, th.ID); cur.Status != hub.ThreadIdle {
		t.Fatalf("thread %+v", cur)
	}
}

func TestShutdownCancelsTurnsAndPermissions(t *testing.T) {
	h := newHarness(t, nil)
	th := h.thread("fake")
	sub := h.watch(th)
	ctx := context.Background()
	h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "permission"})
	until(t, sub, hub.EventPermissionRequired)
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := h.e.Close(sctx); err != nil {
		t.Fatal(err)
	}
	ps, _ := h.db.ListPermissions(ctx, hub.PermissionFilter{All: true})
	if len(ps) != 1 || ps[0].Status != hub.PermissionCancelled || ps[0].DecidedBy != hub.DecidedByHub {
		t.Fatalf("permissions after shutdown %+v", ps)
	}
	hist, _ := h.e.History(ctx, alice, th.ID, false, false)
	if hist[0].Status != hub.TurnCancelled {
		t.Fatalf("turn after shutdown %+v", hist[0])
	}
}

// A client that starts the next turn as soon as it sees turn_completed is
// never refused with CONFLICT.
func TestNextTurnRightAfterCompleted(t *testing.T) {
	h := newHarness(t, nil)
	th := h.thread("fake")
	sub := h.watch(th)
	for i := 0; i < 20; i++ {
		if turn := h.run(th, sub, "echo again"); turn.Status != hub.TurnCompleted {
			t.Fatalf("turn %d: %+v", i, turn)
		}
	}
}

// A turn cut off by a crash keeps the text it had streamed: recovery
// rebuilds its output from the stored message_delta events.
func TestRecoveryRebuildsOutput(t *testing.T) {
	h := newHarness(t, nil)
	th := h.thread("fake")
	ctx := context.Background()
	now := time.Now()
	turn := hub.Turn{ID: "tu_crashed", ThreadID: th.ID, Status: hub.TurnRunning, Input: "write a poem", StartedAt: now}
	w := &hub.Write{Turns: []hub.Turn{turn}}
	for _, text := range []string{"Roses ", "are ", "red"} {
		w.Events = append(w.Events, hub.Event{Type: hub.EventMessageDelta, ThreadID: th.ID, TurnID: turn.ID, At: now,
			Payload: json.RawMessage(`{"text":"` + text + `"}`)})
	}
	w.Events = append(w.Events, hub.Event{Type: hub.EventThoughtDelta, ThreadID: th.ID, TurnID: turn.ID, At: now,
		Payload: json.RawMessage(`{"text":"(not output)"}`)})
	if err := h.db.Commit(ctx, w); err != nil {
		t.Fatal(err)
	}
	h.e.Close(ctx)
	h.db.Close()
	h.open(engine.DefaultConfig(), []acp.AgentSpec{fakeSpec(t, "fake")})
	got, err := h.e.History(ctx, alice, th.ID, false, false)
	if err != nil || len(got) != 1 || got[0].Status != hub.TurnInterrupted || got[0].Output != "Roses are red" {
		t.Fatalf("history %+v %v", got, err)
	}
}

// A cancel that arrives while the turn is still starting its agent or
// session, or just before its prompt, still ends the turn cancelled in
// time: the ACP cancel is not lost ahead of the prompt.
func TestCancelRightAfterStart(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	for i := 0; i < 8; i++ {
		th := h.thread("fake")
		if i%2 == 1 { // a warm agent: the cancel races the prompt, not the launch
			sub := h.watch(th)
			h.run(th, sub, "echo warm")
		}
		turn, err := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "hang"})
		if err != nil {
			t.Fatal(err)
		}
		if i >= 4 {
			time.Sleep(time.Duration(i) * 5 * time.Millisecond)
		}
		ended, err := h.e.CancelTurn(ctx, alice, turn.ID)
		if err != nil || ended.Status != hub.TurnCancelled {
			t.Fatalf("round %d: %+v %v", i, ended, err)
		}
	}
}

// An agent's question expires after permissions.timeout on the engine's
// clock: the agent gets "cancel", the question is stored expired.
func TestElicitationExpires(t *testing.T) {
	h := newClockHarness(t, func(c *engine.Config) { c.PermissionTimeout = time.Minute })
	th := h.thread("fake")
	sub := h.watch(th)
	ctx := context.Background()
	q := `{"mode":"form","message":"Which branch?","requestedSchema":{"type":"object","properties":{"branch":{"type":"string"}}}}`
	if _, err := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "elicit " + q}); err != nil {
		t.Fatal(err)
	}
	until(t, sub, hub.EventElicitationRequired)
	h.clock.advanceOnce(t, time.Minute)
	turn := payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn")
	if !strings.Contains(turn.Output, `elicit: {"action":"cancel"}`) {
		t.Fatalf("agent said %q", turn.Output)
	}
	page, err := h.e.QueryElicitations(ctx, alice, hub.ElicitationQuery{})
	if err != nil || len(page.Elicitations) != 1 || page.Elicitations[0].Status != hub.ElicitationExpired || page.Elicitations[0].DecidedBy != hub.DecidedByTimeout {
		t.Fatalf("elicitations %+v %v", page, err)
	}
}
