package tray

import (
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// TestModelQuestions: the agents' pending questions count beside the
// permissions (the label, the icon, the status line), from the snapshot
// and from events; an answered one, or its turn's end, drops it.
func TestModelQuestions(t *testing.T) {
	q := hub.Elicitation{ID: "el1", ThreadID: "th1", TurnID: "tu1", Mode: hub.ElicitationForm, Status: hub.ElicitationPending}
	m := NewModel()
	s := snap()
	s.Questions = []hub.Elicitation{q}
	m.Connect(s)
	got := m.Menu()
	if got.Title != "1" || got.Icon != IconNeedsYou || !strings.Contains(got.Status, "1 question waiting") {
		t.Fatalf("menu %+v", got)
	}
	m.Apply(permEvent(hub.EventPermissionRequired, perm("pe1", "th2", "tu2", "ls", "allow_once")))
	q2 := q
	q2.ID, q2.TurnID = "el2", "tu3"
	m.Apply(with(hub.Event{Type: hub.EventElicitationRequired, ThreadID: "th1", TurnID: "tu3"}, "elicitation", q2))
	if got := m.Menu(); got.Title != "3" || !strings.Contains(got.Status, "2 questions waiting") || !strings.Contains(got.Status, "1 approval waiting") {
		t.Fatalf("menu %+v", got)
	}
	done := q
	done.Status = hub.ElicitationAccepted
	m.Apply(with(hub.Event{Type: hub.EventElicitationResolved, ThreadID: "th1", TurnID: "tu1"}, "elicitation", done))
	m.Apply(with(hub.Event{Type: hub.EventTurnCompleted, ThreadID: "th1", TurnID: "tu3"}, "turn", hub.Turn{ID: "tu3", ThreadID: "th1"}))
	if got := m.Menu(); got.Title != "1" || strings.Contains(got.Status, "question") {
		t.Fatalf("menu %+v", got)
	}
	m.Apply(with(hub.Event{Type: hub.EventElicitationRequired}, "elicitation", "not an object"))
	if got := m.Menu(); got.Title != "1" {
		t.Fatalf("an odd payload changed the menu: %+v", got)
	}
}
