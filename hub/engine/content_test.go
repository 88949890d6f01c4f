//go:build unix

package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// Content the agent cannot take is refused before a turn is stored: on
// capabilities learnt by starting the agent when unknown, then on those
// remembered; a type ACP does not define at once; what the agent takes
// runs (issue 14, item 5).
func TestStartTurnRefusesContentTheAgentCannotTake(t *testing.T) {
	h := newHarness(t, nil, fakeSpec(t, "textonly", "FAKEAGENT_TEXT_ONLY=1"), fakeSpec(t, "fake"))
	ctx := context.Background()
	block := func(s string) json.RawMessage { return json.RawMessage(s) }
	text := block(`{"type":"text","text":"echo seen"}`)
	image := block(`{"type":"image","mimeType":"image/png","data":"iVBORw0KGgo="}`)
	link := block(`{"type":"resource_link","uri":"file:///tmp/x","name":"x"}`)

	wantRefused := func(th hub.Thread, content []json.RawMessage, index int, typ string) {
		t.Helper()
		_, err := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Content: content})
		var he *hub.Error
		if !errors.As(err, &he) || he.Code != hub.CodeInvalidArgument ||
			he.Details["blockIndex"] != index || he.Details["type"] != typ || he.Details["agent"] != th.Agent {
			t.Fatalf("StartTurn(%s): %#v, want INVALID_ARGUMENT {blockIndex: %d, type: %s, agent: %s}", th.Agent, err, index, typ, th.Agent)
		}
		if hist, err := h.e.History(ctx, alice, th.ID, false, true); err != nil || len(hist) != 0 {
			t.Fatalf("a refused prompt stored turns: %+v %v", hist, err)
		}
	}
	capsOf := func(id string) string {
		agents, err := h.e.ListAgents(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range agents {
			if a.ID == id {
				return string(a.Capabilities)
			}
		}
		return ""
	}

	// Unknown capabilities: the agent starts, then the check refuses.
	a := h.thread("textonly")
	if c := capsOf("textonly"); c != "" {
		t.Fatalf("capabilities known before any start: %s", c)
	}
	wantRefused(a, []json.RawMessage{text, image}, 1, "image")
	if c := capsOf("textonly"); !strings.Contains(c, `"promptCapabilities":{}`) {
		t.Fatalf("capabilities after the check: %q", c)
	}
	// Known now: another thread is refused the same way.
	wantRefused(h.thread("textonly"), []json.RawMessage{image}, 0, "image")
	// Not an ACP type: refused whatever the agent.
	wantRefused(h.thread("fake"), []json.RawMessage{text, block(`{"type":"video","data":"x"}`)}, 1, "video")

	// What the agent takes runs.
	sub := h.watch(a)
	if _, err := h.e.StartTurn(ctx, alice, a.ID, hub.TurnInput{Content: []json.RawMessage{text, link}}); err != nil {
		t.Fatal(err)
	}
	if turn := payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn"); turn.Status != hub.TurnCompleted {
		t.Fatalf("text and a link to textonly: %+v", turn)
	}
	b := h.thread("fake")
	sub = h.watch(b)
	if _, err := h.e.StartTurn(ctx, alice, b.ID, hub.TurnInput{Content: []json.RawMessage{text, image}}); err != nil {
		t.Fatalf("an image to an agent that takes images: %v", err)
	}
	if turn := payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn"); turn.Status != hub.TurnCompleted || turn.Output != "seen" {
		t.Fatalf("image to fake: %+v", turn)
	}
}
