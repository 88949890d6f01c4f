package notify

import (
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// TestTurnEnded: the agent, the status and the thread's title when the
// thread is known; the error before the output.
func TestTurnEnded(t *testing.T) {
	turn := hub.Turn{ID: "u1", Status: hub.TurnFailed, Output: "half", Error: "agent crashed"}
	x := TurnEnded("th", turn, &hub.Thread{ID: "th", Title: "Fix CI"}, "Fake")
	if x.ID != "turn:th/u1" || x.Title != "Fake: turn failed — Fix CI" || x.Body != "agent crashed" || x.ThreadID != "th" {
		t.Errorf("known thread: %+v", x)
	}
	turn.Error = ""
	if x = TurnEnded("th", turn, nil, ""); x.Title != "Turn failed" || x.Body != "half" {
		t.Errorf("unknown thread: %+v", x)
	}
}

// TestBudget: a warning says how much is spent, an overrun replaces it
// (same id) and says what happened; a payload without a budget is none.
func TestBudget(t *testing.T) {
	ev := func(typ string, payload map[string]any) hub.Event {
		e, err := hub.NewEvent(typ, hub.Thread{ID: "th"}, "u", time.Now(), payload)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	p := map[string]any{"budget": "daily", "currency": "USD", "spent": 8.0, "limit": 10.0, "crossedBy": map[string]any{"threadId": "th"}}
	w, ok := Budget(ev(hub.EventBudgetWarning, p))
	if !ok || w.ID != "budget:daily" || w.Title != "Switchboard: daily budget at 80 %" || w.Body != "8.00 of 10.00 USD spent." || w.ThreadID != "th" {
		t.Errorf("warning: %+v %v", w, ok)
	}
	x, ok := Budget(ev(hub.EventBudgetExceeded, p))
	if !ok || x.ID != w.ID || x.Title != "Switchboard: daily budget spent" || !strings.Contains(x.Body, "was cancelled") {
		t.Errorf("exceeded: %+v %v", x, ok)
	}
	if x, ok := Budget(ev(hub.EventBudgetWarning, map[string]any{"spent": 1})); ok {
		t.Errorf("no budget named: %+v", x)
	}
}

// TestClip: trimmed, and cut to n runes with "…".
func TestClip(t *testing.T) {
	if got := Clip("  héllo  ", 5); got != "héllo" {
		t.Errorf("Clip fits: %q", got)
	}
	if got := Clip("héllo world", 5); got != "héll…" {
		t.Errorf("Clip cut: %q", got)
	}
}
