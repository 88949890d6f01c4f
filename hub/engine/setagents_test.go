//go:build unix

package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// TestSetAgentsKeepsRunningTurn changes an agent's spec while a turn runs
// on it: the turn keeps its process to the end; the process is then
// stopped and the next turn starts the agent as now configured. Removing
// the agent stops its idle process and refuses the next turn.
func TestSetAgentsKeepsRunningTurn(t *testing.T) {
	other := fakeSpec(t, "other")
	h := newHarness(t, nil, fakeSpec(t, "fake"), other)
	ctx := context.Background()
	th := h.thread("fake")
	sub := h.watch(th)
	pids := func() []int { return h.agentPIDs(th.ID) }
	waitPIDs := func(what string, ok func([]int) bool) []int {
		t.Helper()
		var p []int
		waitUntil(t, what, func() bool { p = pids(); return ok(p) })
		return p
	}

	if _, err := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "ticks 10 10"}); err != nil {
		t.Fatal(err)
	}
	until(t, sub, hub.EventMessageDelta)
	first := waitPIDs("the agent process", func(p []int) bool { return len(p) == 1 })[0]

	h.e.SetAgents([]acp.AgentSpec{fakeSpec(t, "fake", "FAKEAGENT_CHANGED=1"), other})
	turn := payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn")
	if turn.Status != hub.TurnCompleted || len(turn.Output) != 10*64 {
		t.Fatalf("the running turn did not keep its process: %s %q (%d chars)", turn.Status, turn.Error, len(turn.Output))
	}
	waitPIDs("the changed agent's process to stop", func(p []int) bool { return len(p) == 0 })

	// A new process: the fake agent has no session/load, so the hub sends
	// the context block (which the fake echoes as an unknown command).
	if next := h.run(th, sub, "echo again"); next.Status != hub.TurnCompleted || !strings.Contains(next.Output, "continues an earlier session") {
		t.Fatalf("next turn %s %q", next.Status, next.Output)
	}
	second := waitPIDs("a new agent process", func(p []int) bool { return len(p) == 1 })[0]
	if second == first {
		t.Fatalf("the next turn reused the old process %d", first)
	}

	// Removed: the idle process stops at once; the next turn fails.
	h.e.SetAgents([]acp.AgentSpec{other})
	waitPIDs("the removed agent's process to stop", func(p []int) bool { return len(p) == 0 })
	if last := h.run(th, sub, "echo no"); last.Status != hub.TurnFailed || !strings.Contains(last.Error, "no longer configured") {
		t.Fatalf("turn on a removed agent: %s %q", last.Status, last.Error)
	}
}
