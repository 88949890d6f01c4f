//go:build unix

package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/engine"
)

// TestInstructionsCombinedAndOverrideRefused: a new thread takes its
// agent's instructions then those of the most specific folder rule that
// sets some; override for an agent that advertises only append is refused
// on the turn that opens the session while the agent's capabilities are
// not known yet (nothing sent: no session/new), then at creation.
func TestInstructionsCombinedAndOverrideRefused(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "rec.jsonl")
	spec := fakeSpec(t, "ap", "FAKEAGENT_SYSTEM_PROMPT=append", "FAKEAGENT_RECORD="+rec)
	spec.Instructions = &acp.SystemPrompt{Mode: acp.SystemPromptOverride, Text: "Be terse."}
	var cwd string
	h := newHarness(t, func(c *engine.Config) {
		cwd = t.TempDir()
		c.Folders = []engine.FolderRule{
			{Glob: filepath.Dir(cwd) + "/**", Instructions: &acp.SystemPrompt{Text: "broad"}},
			{Glob: cwd, Instructions: &acp.SystemPrompt{Text: "Use tabs."}},
		}
	}, spec)
	th, err := h.e.CreateThread(context.Background(), alice, hub.CreateThreadRequest{Agent: "ap", Cwd: cwd})
	if err != nil {
		t.Fatal(err)
	}
	in := th.Instructions
	if in == nil || in.Mode != hub.InstructionsOverride || in.Text != "Be terse.\n\nUse tabs." || strings.Join(in.From, ",") != "agent,folder" {
		t.Fatalf("instructions %+v, want the agent's then the narrowest folder's, override", in)
	}
	turn := h.run(th, h.watch(th), "hello")
	if turn.Status != hub.TurnFailed || !strings.Contains(turn.Error, "only in append mode") {
		t.Fatalf("turn %+v, want failed: the agent takes only append", turn)
	}
	if b, _ := os.ReadFile(rec); strings.Contains(string(b), "session/new") {
		t.Fatalf("a session was opened: %s", b)
	}
	_, err = h.e.CreateThread(context.Background(), alice, hub.CreateThreadRequest{Agent: "ap", Cwd: cwd})
	if hub.ErrorCode(err) != hub.CodeConflict || !strings.Contains(err.Error(), "append mode") {
		t.Fatalf("a second thread once the agent is known: %v, want CONFLICT", err)
	}
}

// TestCombineInstructions: agent then folder, a blank line between; none
// without text; override when either asks.
func TestCombineInstructions(t *testing.T) {
	if got := hub.CombineInstructions(nil, &hub.Instructions{Text: "  "}); got != nil {
		t.Errorf("blank folder text: %+v, want none", got)
	}
	got := hub.CombineInstructions(&hub.Instructions{Text: "A\n"}, &hub.Instructions{Mode: "override", Text: "B"})
	if got == nil || got.Text != "A\n\nB" || got.Mode != hub.InstructionsOverride || strings.Join(got.From, ",") != "agent,folder" {
		t.Errorf("combined %+v", got)
	}
	if got := hub.CombineInstructions(nil, &hub.Instructions{Text: "B"}); got == nil || got.Mode != hub.InstructionsAppend || strings.Join(got.From, ",") != "folder" {
		t.Errorf("folder only %+v", got)
	}
	if err := (hub.Instructions{Mode: "replace", Text: "x"}).Validate("agents.a.instructions"); err == nil || !strings.Contains(err.Error(), "append or override") {
		t.Errorf("bad mode: %v", err)
	}
}

// TestInstructionsDeliveryAnnounced: the Delivery a session's opening sets
// is announced (thread_updated, before the turn completes) with an
// updatedAt later than the turn's start, so a client that read the thread
// earlier does not keep showing it as pending; an agent without the
// capability is announced as not_sent.
func TestInstructionsDeliveryAnnounced(t *testing.T) {
	specs := []acp.AgentSpec{fakeSpec(t, "ap", "FAKEAGENT_SYSTEM_PROMPT=append"), fakeSpec(t, "plain")}
	for i := range specs {
		specs[i].Instructions = &acp.SystemPrompt{Text: "Be terse."}
	}
	h := newHarness(t, nil, specs...)
	for _, tt := range []struct{ agent, want string }{{"ap", hub.InstructionsSent}, {"plain", hub.InstructionsNotSent}} {
		th := h.thread(tt.agent)
		if th.Instructions == nil || th.Instructions.Delivery != "" {
			t.Fatalf("%s: new thread's instructions %+v, want pending", tt.agent, th.Instructions)
		}
		sub := h.watch(th)
		if _, err := h.e.StartTurn(context.Background(), alice, th.ID, hub.TurnInput{Input: "hello"}); err != nil {
			t.Fatal(err)
		}
		started := until(t, sub, hub.EventTurnStarted)
		for {
			ev := untilOneOf(t, sub, hub.EventThreadUpdated, hub.EventTurnCompleted)
			if ev.Type == hub.EventTurnCompleted {
				t.Fatalf("%s: the turn completed with no thread_updated carrying delivery %q", tt.agent, tt.want)
			}
			got := payload[hub.Thread](t, ev, "thread")
			if in := got.Instructions; in != nil && in.Delivery == tt.want {
				// Later than the copy a client read at the turn's start.
				if !got.UpdatedAt.After(started.At) {
					t.Errorf("%s: announced updatedAt %v, want after the turn's start %v", tt.agent, got.UpdatedAt, started.At)
				}
				break
			}
		}
	}
}
