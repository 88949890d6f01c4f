//go:build unix

package engine_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/engine"
)

// yoloSpec is the fake agent starting its sessions in an auto-approve mode
// ("yolo", as Qwen's "auto"), with the given session defaults.
func yoloSpec(t testing.TB, d acp.SessionDefaults) acp.AgentSpec {
	s := fakeSpec(t, "yolo", "FAKEAGENT_MODES=yolo,default,plan")
	s.Defaults = d
	return s
}

// The defaults are set on a thread's first session before its first
// prompt: the prompt runs in them (the fake agent says the mode and model
// it found), and the thread shows them with the events a window reads.
func TestDefaultsAppliedBeforeFirstPrompt(t *testing.T) {
	h := newHarness(t, nil, yoloSpec(t, acp.SessionDefaults{Mode: "default", Options: acp.OptionValues{"model": "fake-large"}}))
	th := h.thread("yolo")
	sub := h.watch(th)
	if turn := h.run(th, sub, "state"); turn.Output != "state mode=default model=fake-large" {
		t.Fatalf("first prompt ran in %q, want the defaults", turn.Output)
	}
	got, _ := h.e.GetThread(context.Background(), alice, th.ID)
	if modesOf(t, got).CurrentModeID != "default" || modelOf(t, got) != "fake-large" {
		t.Fatalf("thread after the first turn: %s %s", got.Modes, got.ConfigOptions)
	}
	stored, err := h.e.Subscribe(context.Background(), alice, th.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer stored.Close()
	if id := payload[string](t, until(t, stored, hub.EventModeChanged), "modeId"); id != "default" {
		t.Fatalf("mode_changed %q, want default", id)
	}
	if ev := until(t, stored, hub.EventConfigOptions); !strings.Contains(string(ev.Payload), `"currentValue":"fake-large"`) {
		t.Fatalf("config_options %s", ev.Payload)
	}
}

// A session opened when the thread is created gets the defaults; a mode
// the user then chooses on the thread beats the default at the first
// prompt.
func TestDefaultsUserChoiceWins(t *testing.T) {
	h := newHarness(t, nil, yoloSpec(t, acp.SessionDefaults{Mode: "default"}))
	ctx := context.Background()
	th, err := h.e.CreateThread(ctx, alice, hub.CreateThreadRequest{Agent: "yolo", Cwd: h.cwd, OpenSession: true})
	if err != nil {
		t.Fatal(err)
	}
	if m := modesOf(t, th).CurrentModeID; m != "default" {
		t.Fatalf("session opened at creation is in %q, want the default", m)
	}
	if _, err := h.e.SetMode(ctx, alice, th.ID, "plan"); err != nil {
		t.Fatal(err)
	}
	sub := h.watch(th)
	if turn := h.run(th, sub, "state"); !strings.HasPrefix(turn.Output, "state mode=plan ") {
		t.Fatalf("first prompt ran in %q, want the user's plan", turn.Output)
	}
}

// A default the agent does not offer refuses the prompt with the key, the
// agent and what it offers; fixed live (SetAgents, as a config reload
// does), the next prompt runs in it on the same session.
func TestDefaultNotOfferedRefusesPrompt(t *testing.T) {
	h := newHarness(t, nil, yoloSpec(t, acp.SessionDefaults{Mode: "careful"}))
	th := h.thread("yolo")
	sub := h.watch(th)
	turn := h.run(th, sub, "state")
	if turn.Status != hub.TurnFailed || turn.Output != "" ||
		!strings.Contains(turn.Error, `agents.yolo.defaults.mode is "careful"`) || !strings.Contains(turn.Error, `"yolo", "default", "plan"`) {
		t.Fatalf("turn %+v, want failed unprompted, naming the key and the modes offered", turn)
	}
	// Opened outside a turn, the session is not refused, but the turn is.
	th2, err := h.e.CreateThread(context.Background(), alice, hub.CreateThreadRequest{Agent: "yolo", Cwd: h.cwd, OpenSession: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.e.StartTurn(context.Background(), alice, th2.ID, hub.TurnInput{Input: "state"})
	if err != nil {
		t.Fatal(err)
	}
	sub2 := h.watch(th2)
	if ev := until(t, sub2, hub.EventError); !strings.Contains(string(ev.Payload), "SESSION_DEFAULTS_NOT_OFFERED") || !strings.Contains(string(ev.Payload), `"agent":"yolo"`) {
		t.Fatalf("error event %s, want the reason and the agent", ev.Payload)
	}
	until(t, sub2, hub.EventTurnCompleted)
	h.e.SetAgents([]acp.AgentSpec{yoloSpec(t, acp.SessionDefaults{Mode: "plan"})})
	if turn := h.run(th2, sub2, "state"); !strings.HasPrefix(turn.Output, "state mode=plan ") {
		t.Fatalf("after fixing the default: %+v", turn)
	}
	// After a prompt the thread's choices are its own: a later default
	// does not change them.
	h.e.SetAgents([]acp.AgentSpec{yoloSpec(t, acp.SessionDefaults{Mode: "default"})})
	if turn := h.run(th2, sub2, "state"); !strings.HasPrefix(turn.Output, "state mode=plan ") {
		t.Fatalf("a default changed after the first prompt: %+v", turn)
	}
}

// An option value the agent does not offer: refused, the values it offers
// named, and session_changed says which default (refused, its key).
func TestDefaultNotOfferedError(t *testing.T) {
	h := newHarness(t, nil, yoloSpec(t, acp.SessionDefaults{Options: acp.OptionValues{"model": "fake-huge"}}))
	th := h.thread("yolo")
	sub := h.watch(th)
	turn := h.run(th, sub, "state")
	if turn.Status != hub.TurnFailed || !strings.Contains(turn.Error, `agents.yolo.defaults.options.model is "fake-huge"`) || !strings.Contains(turn.Error, `"fake-small", "fake-large"`) {
		t.Fatalf("turn %+v", turn)
	}
	stored, _ := h.e.Subscribe(context.Background(), alice, th.ID, 0)
	defer stored.Close()
	ev := until(t, stored, hub.EventSessionChanged)
	sc := new(engine.SessionChanged)
	if err := json.Unmarshal(ev.Payload, sc); err != nil || !sc.Refused || len(sc.Unrestored) != 1 || sc.Unrestored[0].Key != "agents.yolo.defaults.options.model" {
		t.Fatalf("session_changed %s", ev.Payload)
	}
}
