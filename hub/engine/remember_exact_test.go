//go:build unix

package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// The agent's own "always" for a command (ADR 0035) also remembers that
// exact run for the thread: the terminal the agent then creates for it
// without asking is not asked again — and a different command, other
// arguments, another environment or another folder still are.
func TestAgentAlwaysRemembersExactCommand(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	th, other := h.thread("fake"), h.thread("fake")
	sub, osub := h.watch(th), h.watch(other)

	h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: askInput(map[string]any{
		"toolCallId": "c1", "kind": "execute", "title": "`echo hi`", "rawInput": map[string]any{"command": "echo hi"}})})
	p := payload[hub.Permission](t, until(t, sub, hub.EventPermissionRequired), "permission")
	res, err := h.e.DecidePermission(ctx, alice, p.ID, hub.Decision{OptionID: "allow-always"})
	if err != nil || res.Rule == nil || res.Rule.Scope != hub.RememberThread || res.Rule.ThreadID != th.ID ||
		res.Rule.Command != "echo hi" || res.Rule.Decision != hub.RuleAllow || res.Rule.RunsIn == "" || res.Rule.EnvKey != "" {
		t.Fatalf("the agent's always: %+v %v; want an exact thread rule for echo hi", res.Rule, err)
	}
	until(t, sub, hub.EventTurnCompleted)

	// The agent, remembering its own "always", runs the terminal without
	// asking: the hub does not ask either.
	turn := h.run(th, sub, "terminal echo hi")
	if !strings.Contains(turn.Output, "terminal exit 0") {
		t.Fatalf("the remembered command: agent said %q", turn.Output)
	}
	ps, _ := h.e.ListPermissions(ctx, alice, "")
	if len(ps) == 0 || ps[0].Kind != hub.PermKindTerminal || ps[0].DecidedBy != hub.DecidedByRememberedPrefix+res.Rule.ID {
		t.Fatalf("newest permission %+v: want the terminal decided by the remembered rule", ps[0])
	}

	// Only that run: each of these is asked.
	dir := filepath.Join(h.cwd, "sub")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	asked := func(s *hub.Subscription, th hub.Thread, input string) {
		t.Helper()
		if _, err := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: input}); err != nil {
			t.Fatal(err)
		}
		q := payload[hub.Permission](t, until(t, s, hub.EventPermissionRequired), "permission")
		if q.Kind != hub.PermKindTerminal {
			t.Fatalf("%s: asked %+v", input, q)
		}
		if _, err := h.e.DecidePermission(ctx, alice, q.ID, hub.Decision{Outcome: "declined"}); err != nil {
			t.Fatal(err)
		}
		until(t, s, hub.EventTurnCompleted)
	}
	asked(sub, th, "terminal echo bye")           // another command
	asked(sub, th, "terminal echo hi there")      // other arguments
	asked(sub, th, "terminal-env LANG=C echo hi") // another environment
	asked(sub, th, "terminal-in "+dir+" echo hi") // another folder
	asked(osub, other, "terminal echo hi")        // another thread
}

// Chosen with a wider scope from the card's "Always…" menu, the agent's
// always remembers the command for the folder; a read's "always" stays
// the agent's own (no hub rule).
func TestAgentAlwaysScopeAndNonCommands(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	th, other := h.thread("fake"), h.thread("fake")
	sub, osub := h.watch(th), h.watch(other)

	h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: askInput(map[string]any{
		"toolCallId": "c1", "kind": "execute", "title": "`echo hi`", "rawInput": map[string]any{"command": "echo hi"}})})
	p := payload[hub.Permission](t, until(t, sub, hub.EventPermissionRequired), "permission")
	res, err := h.e.DecidePermission(ctx, alice, p.ID, hub.Decision{OptionID: "allow-always", Remember: hub.RememberFolder})
	if err != nil || res.Rule == nil || res.Rule.Scope != hub.RememberFolder || res.Rule.Command != "echo hi" {
		t.Fatalf("the agent's always for the folder: %+v %v", res.Rule, err)
	}
	until(t, sub, hub.EventTurnCompleted)
	if turn := h.run(other, osub, "terminal echo hi"); !strings.Contains(turn.Output, "terminal exit 0") {
		t.Fatalf("the same folder's other thread: agent said %q", turn.Output)
	}

	h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: askInput(map[string]any{
		"toolCallId": "r1", "kind": "read", "title": "Read x", "locations": []map[string]string{{"path": filepath.Join(h.cwd, "x")}}})})
	p = payload[hub.Permission](t, until(t, sub, hub.EventPermissionRequired), "permission")
	res, err = h.e.DecidePermission(ctx, alice, p.ID, hub.Decision{OptionID: "allow-always"})
	if err != nil || res.Rule != nil {
		t.Fatalf("a read's always: %+v %v; want no hub rule", res.Rule, err)
	}
	until(t, sub, hub.EventTurnCompleted)
}

// Through an agent that keeps its own "always" (the fake agent's
// ask-always-terminal, like claude-agent-acp): the first run is asked and
// its terminal covered; the second is not asked by the agent, and the
// hub's remembered rule lets its terminal run; another line is asked.
func TestAgentAlwaysThroughAgentThatRemembers(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	th := h.thread("fake")
	sub := h.watch(th)

	h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "ask-always-terminal echo hi"})
	p := payload[hub.Permission](t, until(t, sub, hub.EventPermissionRequired), "permission")
	if p.ToolCall == nil || len(p.Options) != 3 || p.Options[1].Kind != "allow_always" {
		t.Fatalf("asked %+v", p)
	}
	res, err := h.e.DecidePermission(ctx, alice, p.ID, hub.Decision{OptionID: "allow-always"})
	if err != nil || res.Rule == nil || res.Rule.Command != "echo hi" {
		t.Fatalf("decide: %+v %v", res.Rule, err)
	}
	turn := payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn")
	if !strings.Contains(turn.Output, "terminal exit 0") {
		t.Fatalf("first run: %q", turn.Output)
	}

	turn = h.run(th, sub, "ask-always-terminal echo hi")
	if !strings.Contains(turn.Output, "ask-always-terminal remembered") || !strings.Contains(turn.Output, "terminal exit 0") {
		t.Fatalf("second run: %q", turn.Output)
	}
	ps, _ := h.e.ListPermissions(ctx, alice, "")
	if ps[0].Kind != hub.PermKindTerminal || ps[0].DecidedBy != hub.DecidedByRememberedPrefix+res.Rule.ID {
		t.Fatalf("the second run's terminal %+v: want decided by the remembered rule", ps[0])
	}
	for _, x := range ps {
		if x.Status == hub.PermissionPending {
			t.Fatalf("pending %+v", x)
		}
	}

	h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "ask-always-terminal echo bye"})
	p = payload[hub.Permission](t, until(t, sub, hub.EventPermissionRequired), "permission")
	if p.Request == nil || strings.Join(p.Request.Argv, " ") != "echo bye" {
		t.Fatalf("another line: %+v", p.Request)
	}
	h.e.DecidePermission(ctx, alice, p.ID, hub.Decision{Outcome: "declined"})
	until(t, sub, hub.EventTurnCompleted)
}
