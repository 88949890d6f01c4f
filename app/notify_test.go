//go:build unix

package app

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/app/config"
	"github.com/switchboard-hub/switchboard/app/notify"
	"github.com/switchboard-hub/switchboard/hub"
)

// sentRecorder is a fake notifySender.
type sentRecorder struct {
	mu      sync.Mutex
	sent    []notify.Notification
	removed []string
}

func (s *sentRecorder) Send(n notify.Notification) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent = append(s.sent, n)
	return nil
}

func (s *sentRecorder) Remove(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.removed = append(s.removed, id)
}

func (s *sentRecorder) wait(t *testing.T, ok func(notify.Notification) bool) notify.Notification {
	t.Helper()
	var n notify.Notification
	waitFor(t, "such a notification", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		i := slices.IndexFunc(s.sent, ok)
		if i >= 0 {
			n = s.sent[i]
		}
		return i >= 0
	})
	return n
}

// TestNotifier: a pending permission is notified with the agent, the tool
// call's title and its command; Approve from the notification decides it
// once, as decidedBy "notification"; a completed turn is notified only
// while the window is unfocused; a click opens the window on it.
func TestNotifier(t *testing.T) {
	b, _, h, cwd := bindingsHub(t)
	sent := &sentRecorder{}
	var shownMu sync.Mutex
	var shown []string
	n := newNotifier(h.engine, sent, h.currentConfig, func(kind, id, threadID string) {
		shownMu.Lock()
		shown = append(shown, kind+":"+id+":"+threadID)
		shownMu.Unlock()
	}, slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go n.run(ctx)
	waitSubscribed(t, n)

	th, err := b.CreateThread(hub.CreateThreadRequest{Agent: "fake", Cwd: cwd})
	if err != nil {
		t.Fatal(err)
	}
	n.focused.Store(true)
	turn, err := b.StartTurn(th.ID, hub.TurnInput{Input: "permission"})
	if err != nil {
		t.Fatal(err)
	}
	pn := sent.wait(t, func(x notify.Notification) bool { return strings.HasPrefix(x.ID, "perm:") })
	// What runs (the hub's description), never only the agent's title.
	wantBody := "Runs: make clean\nIn: " + th.Cwd + "\nThe agent says: “Run make clean”"
	if pn.Title != "Fake: Run a command" || pn.Body != wantBody || !pn.Approve || pn.ThreadID != th.ID {
		t.Errorf("permission notification %+v, want title %q, body %q, Approve", pn, "Fake: Run a command", wantBody)
	}
	permID := strings.TrimPrefix(pn.ID, "perm:")

	n.respond(ctx, pn.ID, notify.ActionDefault)
	n.respond(ctx, pn.ID, notify.ActionApprove)
	n.respond(ctx, pn.ID, notify.ActionDeny) // single use: refused, changes nothing
	ps, err := h.engine.ListPermissions(ctx, windowCaller, "")
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(ps, func(p hub.Permission) bool { return p.ID == permID })
	if i < 0 || ps[i].Status != hub.PermissionApproved || ps[i].DecidedBy != "notification" {
		t.Fatalf("permission %+v, want approved by notification", ps)
	}
	shownMu.Lock()
	if !slices.Contains(shown, "permission:"+permID+":") {
		t.Errorf("a click showed %v, want the permission", shown)
	}
	shownMu.Unlock()

	// Focused: no notification for the completed turn. Then unfocused.
	waitTurn(t, b, th.ID, turn.ID)
	hist, _ := b.History(th.ID, true, false)
	last := hist[len(hist)-1].Events
	seq := last[len(last)-1].Seq
	waitFor(t, "the notifier to handle the turn's end", func() bool { return n.handled.Load() >= seq })
	n.focused.Store(false)
	turn2, err := b.StartTurn(th.ID, hub.TurnInput{Input: "echo all done"})
	if err != nil {
		t.Fatal(err)
	}
	tn := sent.wait(t, func(x notify.Notification) bool { return strings.HasPrefix(x.ID, "turn:") })
	if tn.ID != "turn:"+th.ID+"/"+turn2.ID || !strings.Contains(tn.Title, "Fake") || tn.Body != "all done" || tn.Approve {
		t.Errorf("turn notification %+v, want turn %s from Fake saying all done", tn, turn2.ID)
	}
	n.respond(ctx, tn.ID, notify.ActionDefault)
	shownMu.Lock()
	if want := "turn:" + turn2.ID + ":" + th.ID; !slices.Contains(shown, want) {
		t.Errorf("a click showed %v, want %s", shown, want)
	}
	shownMu.Unlock()
	sent.mu.Lock()
	defer sent.mu.Unlock()
	if len(sent.removed) != 1 || sent.removed[0] != pn.ID {
		t.Errorf("removed %v, want the decided permission's notification", sent.removed)
	}
}

func waitTurn(t *testing.T, b *Bindings, threadID, id string) {
	t.Helper()
	waitFor(t, "turn "+id+" to end", func() bool {
		hist, _ := b.History(threadID, false, false)
		for _, h := range hist {
			if h.ID == id && h.Ended() {
				return true
			}
		}
		return false
	})
}

// TestNotifierConfig: notifications.enabled off silences everything,
// notifications.turnCompleted off the completed turns only, each other
// reason's switch its own, and an internal turn (compact) is never
// notified.
func TestNotifierConfig(t *testing.T) {
	turn := func(internal bool) hub.Event {
		e, _ := hub.NewEvent(hub.EventTurnCompleted, hub.Thread{ID: "t"}, "u", time.Now(),
			map[string]any{"turn": hub.Turn{ID: "u", Status: hub.TurnCompleted, Internal: internal}})
		return e
	}
	perm := func(id string) hub.Event {
		e, _ := hub.NewEvent(hub.EventPermissionRequired, hub.Thread{ID: "t"}, "u", time.Now(),
			map[string]any{"permission": hub.Permission{ID: id, ThreadID: "t", Status: hub.PermissionPending,
				ToolCall: json.RawMessage(`{"title":"Run","rawInput":{"command":"ls"}}`)}})
		return e
	}
	escalated := func(id string) hub.Event {
		at := time.Now()
		e, _ := hub.NewEvent(hub.EventPermissionEscalated, hub.Thread{ID: "t"}, "u", at,
			map[string]any{"permission": hub.Permission{ID: id, ThreadID: "t", Status: hub.PermissionPending, EscalatedAt: &at,
				ToolCall: json.RawMessage(`{"title":"Run","rawInput":{"command":"ls"}}`)}})
		return e
	}
	configErr := func(msg string) hub.Event {
		return hub.Event{Type: hub.EventConfigError, At: time.Now(),
			Payload: json.RawMessage(`{"file":"/c/config.yaml","message":"` + msg + `"}`)}
	}
	budgetEv := func(typ string) hub.Event {
		return hub.Event{Type: typ, At: time.Now(),
			Payload: json.RawMessage(`{"budget":"daily","currency":"USD","spent":0.9,"limit":1}`)}
	}
	for _, tc := range []struct {
		name           string
		enabled, turns bool
		events         []hub.Event
		wantIDs        []string
		off            string // a reason switched off
	}{
		{"permission off", true, true, []hub.Event{perm("p1"), escalated("p1"), turn(false)}, []string{"turn:t/u"}, "permission"},
		{"error off", true, true, []hub.Event{configErr("line 2: bad"), perm("p1")}, []string{"perm:p1"}, "error"},
		{"budget off", true, true, []hub.Event{budgetEv(hub.EventBudgetWarning), perm("p1")}, []string{"perm:p1"}, "budget"},
		{"config error", true, true, []hub.Event{configErr("config /c/config.yaml: line 2: bad")}, []string{"config"}, ""},
		{"config error, notifications off", false, true, []hub.Event{configErr("line 2: bad")}, nil, ""},
		{"config fixed", true, true, []hub.Event{configErr("")}, nil, ""},
		{"budget warning then exceeded", true, true, []hub.Event{budgetEv(hub.EventBudgetWarning), budgetEv(hub.EventBudgetExceeded)}, []string{"budget:daily", "budget:daily"}, ""},
		{"budget, notifications off", false, true, []hub.Event{budgetEv(hub.EventBudgetWarning)}, nil, ""},
		{"all off", false, true, []hub.Event{turn(false), perm("p1")}, nil, ""},
		{"turns off", true, false, []hub.Event{turn(false), perm("p1")}, []string{"perm:p1"}, ""},
		{"internal turn", true, true, []hub.Event{turn(true)}, nil, ""},
		{"once per permission", true, true, []hub.Event{perm("p1"), perm("p1")}, []string{"perm:p1"}, ""},
		// "!": critical.
		{"escalated: once more, critical", true, true, []hub.Event{perm("p1"), escalated("p1"), escalated("p1"), perm("p1")}, []string{"perm:p1", "perm:p1!"}, ""},
		{"escalated, first seen so", true, true, []hub.Event{escalated("p1"), perm("p1")}, []string{"perm:p1!"}, ""},
		{"escalated, all off", false, true, []hub.Event{perm("p1"), escalated("p1")}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c config.Config
			c.Notifications.Enabled, c.Notifications.TurnCompleted = tc.enabled, tc.turns
			nc := &c.Notifications
			nc.Permission, nc.Question, nc.Error, nc.Budget = tc.off != "permission", tc.off != "question", tc.off != "error", tc.off != "budget"
			sent := &sentRecorder{}
			n := newNotifier(noThreads{}, sent, func() config.Config { return c }, func(string, string, string) {}, slog.New(slog.DiscardHandler))
			for _, e := range tc.events {
				n.handle(context.Background(), e)
			}
			var ids []string
			for _, s := range sent.sent {
				if s.Critical != strings.HasPrefix(s.Title, "Still waiting — ") {
					t.Errorf("notification %+v: critical ones, and only they, say Still waiting", s)
				}
				if s.Critical {
					s.ID += "!"
				}
				ids = append(ids, s.ID)
			}
			if !slices.Equal(ids, tc.wantIDs) {
				t.Errorf("notified %v, want %v", ids, tc.wantIDs)
			}
			if tc.name == "config fixed" && !slices.Equal(sent.removed, []string{"config"}) {
				t.Errorf("removed %v, want the config notification withdrawn", sent.removed)
			}
		})
	}
}

// noThreads is a hub.Service that knows no thread and no agent.
type noThreads struct{ hub.Service }

func (noThreads) GetThread(context.Context, hub.Caller, string) (hub.Thread, error) {
	return hub.Thread{}, hub.Errorf(hub.CodeNotFound, "no thread")
}

func (noThreads) ListAgents(context.Context) ([]hub.Agent, error) { return nil, nil }
