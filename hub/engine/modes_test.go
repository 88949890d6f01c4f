//go:build unix

package engine_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/engine"
	"github.com/switchboard-hub/switchboard/store"
)

type modeState struct {
	CurrentModeID  string `json:"currentModeId"`
	AvailableModes []struct {
		ID string `json:"id"`
	} `json:"availableModes"`
}

func modesOf(t testing.TB, th hub.Thread) modeState {
	t.Helper()
	var m modeState
	if err := json.Unmarshal(th.Modes, &m); err != nil {
		t.Fatalf("thread modes %q: %v", th.Modes, err)
	}
	return m
}

func modelOf(t testing.TB, th hub.Thread) string {
	t.Helper()
	var opts []struct {
		ID           string `json:"id"`
		CurrentValue string `json:"currentValue"`
	}
	if err := json.Unmarshal(th.ConfigOptions, &opts); err != nil {
		t.Fatalf("thread configOptions %q: %v", th.ConfigOptions, err)
	}
	for _, o := range opts {
		if o.ID == "model" {
			return o.CurrentValue
		}
	}
	return ""
}

// A turn's session/new stores the agent's modes and config options on the
// thread, and the agent's initialize answer on the agent.
func TestSessionStateFromSessionNew(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	agents, _ := h.e.ListAgents(ctx)
	for _, a := range agents {
		if a.Version != "" || a.Capabilities != nil {
			t.Fatalf("agent %s has capabilities before it ran: %+v", a.ID, a)
		}
	}
	th := h.thread("fake")
	if th.Modes != nil || th.ConfigOptions != nil {
		t.Fatalf("new thread has session state: %+v", th)
	}
	sub := h.watch(th)
	h.run(th, sub, "echo hi")
	got, err := h.e.GetThread(ctx, alice, th.ID)
	if err != nil {
		t.Fatal(err)
	}
	if m := modesOf(t, got); m.CurrentModeID != "default" || len(m.AvailableModes) != 2 {
		t.Fatalf("modes %s", got.Modes)
	}
	if modelOf(t, got) != "fake-small" {
		t.Fatalf("config options %s", got.ConfigOptions)
	}
	agents, _ = h.e.ListAgents(ctx)
	for _, a := range agents {
		if a.ID != "fake" {
			continue
		}
		var caps struct {
			PromptCapabilities struct{ Image bool } `json:"promptCapabilities"`
		}
		if a.Version != "1.0.0" || json.Unmarshal(a.Capabilities, &caps) != nil || !caps.PromptCapabilities.Image {
			t.Fatalf("agent after a run: %+v (%s)", a, a.Capabilities)
		}
	}
}

// SetMode and SetConfigOption start the agent when none runs, forward to
// it, emit mode_changed / config_options, and the state survives a restart.
func TestSetModeAndConfigOption(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	th := h.thread("fake")
	sub := h.watch(th)

	got, err := h.e.SetMode(ctx, alice, th.ID, "plan")
	if err != nil {
		t.Fatal(err)
	}
	if m := modesOf(t, got); m.CurrentModeID != "plan" || len(m.AvailableModes) != 2 {
		t.Fatalf("after SetMode: %s", got.Modes)
	}
	// The session SetMode opened says its start mode first (a window
	// learns the modes on offer), then the change.
	if id := payload[string](t, until(t, sub, hub.EventModeChanged), "modeId"); id != "default" {
		t.Fatalf("first mode_changed %q, want the new session's default", id)
	}
	if id := payload[string](t, until(t, sub, hub.EventModeChanged), "modeId"); id != "plan" {
		t.Fatalf("mode_changed %q", id)
	}
	got, err = h.e.SetConfigOption(ctx, alice, th.ID, "model", "fake-large")
	if err != nil {
		t.Fatal(err)
	}
	if modelOf(t, got) != "fake-large" || modesOf(t, got).CurrentModeID != "plan" {
		t.Fatalf("after SetConfigOption: %s %s", got.ConfigOptions, got.Modes)
	}
	ev := until(t, sub, hub.EventConfigOptions)
	if !strings.Contains(string(ev.Payload), `"currentValue":"fake-large"`) {
		t.Fatalf("config_options %s", ev.Payload)
	}

	// The agent refuses what it does not offer.
	if _, err := h.e.SetMode(ctx, alice, th.ID, "yolo"); hub.ErrorCode(err) != hub.CodeInvalidArgument {
		t.Fatalf("unknown mode: %v", err)
	}
	if _, err := h.e.SetConfigOption(ctx, alice, th.ID, "model", "huge"); hub.ErrorCode(err) != hub.CodeInvalidArgument {
		t.Fatalf("unknown value: %v", err)
	}
	if _, err := h.e.SetMode(ctx, alice, th.ID, ""); hub.ErrorCode(err) != hub.CodeInvalidArgument {
		t.Fatalf("empty mode: %v", err)
	}
	bob := hub.Caller{ClientID: "bob"}
	if _, err := h.e.SetMode(ctx, bob, th.ID, "plan"); hub.ErrorCode(err) != hub.CodeNotFound {
		t.Fatalf("bob: %v", err)
	}

	// A turn runs on the session the set call opened.
	if turn := h.run(th, sub, "echo after"); turn.Status != hub.TurnCompleted || turn.Output != "after" {
		t.Fatalf("turn %+v", turn)
	}

	// Stored: a new engine over the same database reports the same state.
	h.close()
	db, err := store.Open(h.dbPath, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	e2, err := engine.New(ctx, engine.Options{Store: db, Agents: []acp.AgentSpec{fakeSpec(t, "fake")}})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close(ctx)
	got, err = e2.GetThread(ctx, alice, th.ID)
	if err != nil {
		t.Fatal(err)
	}
	if modesOf(t, got).CurrentModeID != "plan" || modelOf(t, got) != "fake-large" {
		t.Fatalf("after restart: %s %s", got.Modes, got.ConfigOptions)
	}
}

// The background probe fills in versions and capabilities without a turn.
func TestProbeAgents(t *testing.T) {
	db, err := store.Open(filepath.Join(t.TempDir(), "hub.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	e, err := engine.New(ctx, engine.Options{Store: db, ProbeAgents: true, Agents: []acp.AgentSpec{fakeSpec(t, "fake"),
		{ID: "missing", Name: "Missing", Command: acp.Command{Path: "/nonexistent/agent"}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	var fake hub.Agent
	waitUntil(t, "the probe's result", func() bool {
		agents, _ := e.ListAgents(ctx)
		var missing hub.Agent
		for _, a := range agents {
			switch a.ID {
			case "fake":
				fake = a
			case "missing":
				missing = a
			}
		}
		if missing.Capabilities != nil {
			t.Fatalf("an unavailable agent has capabilities: %+v", missing)
		}
		return fake.Version == "1.0.0" && strings.Contains(string(fake.Capabilities), `"promptCapabilities"`)
	})
}

// OpenSession on create starts the agent at once: the new thread carries
// its modes and config options, and the first turn uses that session.
func TestCreateThreadOpenSession(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	th, err := h.e.CreateThread(ctx, alice, hub.CreateThreadRequest{Agent: "fake", Cwd: h.cwd, OpenSession: true})
	if err != nil {
		t.Fatal(err)
	}
	if modesOf(t, th).CurrentModeID != "default" || modelOf(t, th) != "fake-small" {
		t.Fatalf("new thread: %s %s", th.Modes, th.ConfigOptions)
	}
	sub := h.watch(th)
	if turn := h.run(th, sub, "echo first"); turn.Output != "first" {
		t.Fatalf("turn %+v", turn)
	}
	// An agent that refuses the session: the thread is created all the same.
	h2 := newHarness(t, nil, fakeSpec(t, "fake", "FAKEAGENT_AUTH_REQUIRED=1"))
	th2, err := h2.e.CreateThread(ctx, alice, hub.CreateThreadRequest{Agent: "fake", Cwd: h2.cwd, OpenSession: true})
	if err != nil || th2.ID == "" {
		t.Fatalf("create with a failing agent: %+v %v", th2, err)
	}
}

// A set call that needs an agent process counts against the limit; one on
// a thread whose agent runs does not.
func TestSetModeProcessLimit(t *testing.T) {
	h := newHarness(t, func(c *engine.Config) { c.MaxAgentProcesses = 1 })
	ctx := context.Background()
	a, b := h.thread("fake"), h.thread("fake")
	turn, err := h.e.StartTurn(ctx, alice, a.ID, hub.TurnInput{Input: "hang"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.e.SetMode(ctx, alice, b.ID, "plan"); hub.ErrorCode(err) != hub.CodeTooManyRequests {
		t.Fatalf("SetMode over the limit: %v", err)
	}
	// While a turn runs on its agent: allowed, and the event carries the turn.
	sub := h.watch(a)
	waitUntil(t, "SetMode to succeed during the turn", func() bool {
		_, err := h.e.SetMode(ctx, alice, a.ID, "plan")
		return err == nil
	})
	if ev := until(t, sub, hub.EventModeChanged); ev.TurnID != turn.ID {
		t.Fatalf("mode_changed during the turn: turn %q, want %q", ev.TurnID, turn.ID)
	}
	if _, err := h.e.CancelTurn(ctx, alice, turn.ID); err != nil {
		t.Fatal(err)
	}
}

// The agent's slash commands are kept on the thread as it last reported
// them, so a client opening the thread later can offer them at once.
func TestAvailableCommandsOnThread(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	th := h.thread("fake")
	sub := h.watch(th)
	h.run(th, sub, "commands init review")
	stored, err := h.e.Subscribe(ctx, alice, th.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer stored.Close()
	if ev := until(t, stored, hub.EventAvailableCommands); !strings.Contains(string(ev.Payload), `"name":"review"`) {
		t.Fatalf("available_commands %s", ev.Payload)
	}
	got, err := h.e.GetThread(ctx, alice, th.ID)
	if err != nil {
		t.Fatal(err)
	}
	var cmds []struct{ Name string }
	if err := json.Unmarshal(got.AvailableCommands, &cmds); err != nil || len(cmds) != 2 || cmds[0].Name != "init" || cmds[1].Name != "review" {
		t.Fatalf("thread availableCommands %s (%v)", got.AvailableCommands, err)
	}
	// A new list replaces the old; an empty one clears it.
	h.run(th, sub, "commands")
	if got, _ = h.e.GetThread(ctx, alice, th.ID); string(got.AvailableCommands) != "[]" {
		t.Fatalf("after an empty list: %s", got.AvailableCommands)
	}
}
