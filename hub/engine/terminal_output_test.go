//go:build unix

package engine_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// A command the agent runs in a hub-hosted terminal: its output reaches the
// thread as terminal_output events of the turn, in order, live, the last
// one with the exit status, all before turn_completed.
func TestTerminalOutputEvents(t *testing.T) {
	h := newHarness(t, nil)
	script := filepath.Join(h.cwd, "job.sh")
	if err := os.WriteFile(script, []byte("printf 'one\\n'; sleep 0.4; printf 'two ✓\\n'; exit 3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	th := h.thread("fake")
	sub := h.watch(th)
	turn, err := h.e.StartTurn(context.Background(), alice, th.ID, hub.TurnInput{Input: "terminal sh " + script})
	if err != nil {
		t.Fatal(err)
	}

	var outs []hub.TerminalOutput
	var terminalID string
	timeout := time.After(20 * time.Second)
	for done := false; !done; {
		select {
		case ev := <-sub.Events():
			if ev.TurnID != turn.ID && ev.Type != hub.EventThreadUpdated {
				t.Errorf("%s event of turn %q, want %q", ev.Type, ev.TurnID, turn.ID)
			}
			switch ev.Type {
			case hub.EventPermissionRequired: // the hub asks before it runs a command
				p := payload[hub.Permission](t, ev, "permission")
				if _, err := h.e.DecidePermission(context.Background(), alice, p.ID, hub.Decision{Outcome: "approved"}); err != nil {
					t.Fatal(err)
				}
			case hub.EventToolCall:
				var tc struct {
					Content []struct{ Type, TerminalID string }
				}
				if err := json.Unmarshal(payload[json.RawMessage](t, ev, "toolCall"), &tc); err != nil || len(tc.Content) != 1 || tc.Content[0].Type != "terminal" {
					t.Fatalf("tool_call %s: want one terminal content item", ev.Payload)
				}
				terminalID = tc.Content[0].TerminalID
			case hub.EventTerminalOutput:
				var o hub.TerminalOutput
				if err := json.Unmarshal(ev.Payload, &o); err != nil {
					t.Fatal(err)
				}
				if len(outs) > 0 && outs[len(outs)-1].ExitStatus != nil {
					t.Errorf("terminal_output %s after the one with the exit status", ev.Payload)
				}
				outs = append(outs, o)
			case hub.EventTurnCompleted:
				done = true
			}
		case <-timeout:
			t.Fatal("no turn_completed")
		}
	}

	if len(outs) < 2 {
		t.Fatalf("%d terminal_output events before turn_completed, want the output streamed in at least 2 (%+v)", len(outs), outs)
	}
	var text strings.Builder
	for i, o := range outs {
		if o.TerminalID == "" || o.TerminalID != terminalID {
			t.Errorf("event %d: terminalId %q, want the tool call's %q", i, o.TerminalID, terminalID)
		}
		if o.Dropped {
			t.Errorf("event %d: dropped under the cap", i)
		}
		text.WriteString(o.Text)
	}
	if got := text.String(); got != "one\ntwo ✓\n" {
		t.Errorf("terminal output %q", got)
	}
	last := outs[len(outs)-1].ExitStatus
	if last == nil || last.ExitCode == nil || *last.ExitCode != 3 || last.Signal != nil {
		t.Errorf("last exit status %+v, want exit code 3", last)
	}

	// Stored like every event: the history has them in the turn.
	hist, err := h.e.History(context.Background(), alice, th.ID, true, false)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ht := range hist {
		for _, ev := range ht.Events {
			if ev.Type == hub.EventTerminalOutput {
				n++
			}
		}
	}
	if n != len(outs) {
		t.Errorf("history has %d terminal_output events, the stream %d", n, len(outs))
	}
}
