//go:build unix

package app

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/app/config"
	"github.com/switchboard-hub/switchboard/hub"
)

// TestNotifierQuestion: an agent's question is notified once, its message
// as text, without actions; a click opens the window on its thread; its
// end withdraws it; nothing when notifications.question is off or the
// focused window shows its thread.
func TestNotifierQuestion(t *testing.T) {
	q := hub.Elicitation{ID: "el1", ThreadID: "t", TurnID: "u", Mode: hub.ElicitationURL, Message: "Sign <i>in</i>", Status: hub.ElicitationPending}
	required := func(q hub.Elicitation) hub.Event {
		e, _ := hub.NewEvent(hub.EventElicitationRequired, hub.Thread{ID: q.ThreadID}, q.TurnID, time.Now(), map[string]any{"elicitation": q})
		return e
	}
	var c config.Config
	c.Notifications.Enabled, c.Notifications.Question = true, true
	sent := &sentRecorder{}
	var shown []string
	n := newNotifier(noThreads{}, sent, func() config.Config { return c }, func(kind, id, threadID string) {
		shown = append(shown, kind+":"+id+":"+threadID)
	}, slog.New(slog.DiscardHandler))
	ctx := context.Background()
	n.handle(ctx, required(q))
	n.handle(ctx, required(q))
	if len(sent.sent) != 1 {
		t.Fatalf("sent %+v, want one", sent.sent)
	}
	got := sent.sent[0]
	if got.ID != "ask:el1" || got.Title != "Agent asks you to open a link" || !strings.HasPrefix(got.Body, "Sign <i>in</i>") || got.Approve || got.ThreadID != "t" {
		t.Errorf("notification %+v", got)
	}
	n.respond(ctx, got.ID, actionDefault)
	if !slices.Equal(shown, []string{"thread::t"}) {
		t.Errorf("a click showed %v, want the thread", shown)
	}
	n.respond(ctx, got.ID, actionApprove) // offered none: nothing
	done := q
	done.Status = hub.ElicitationExpired
	e, _ := hub.NewEvent(hub.EventElicitationResolved, hub.Thread{ID: "t"}, "u", time.Now(), map[string]any{"elicitation": done})
	n.handle(ctx, e)
	if !slices.Equal(sent.removed, []string{"ask:el1"}) {
		t.Errorf("removed %v, want the question's notification", sent.removed)
	}

	q2 := q
	q2.ID = "el2"
	n.focused.Store(true)
	n.viewing.Store("t")
	n.handle(ctx, required(q2)) // the user is looking at it
	n.viewing.Store("other")
	c.Notifications.Question = false
	q3 := q
	q3.ID = "el3"
	n.handle(ctx, required(q3)) // switched off
	c.Notifications.Question = true
	n.handle(ctx, required(q3)) // now it is
	if len(sent.sent) != 2 || sent.sent[1].ID != "ask:el3" {
		t.Errorf("sent %+v, want only el3 after el1", sent.sent)
	}
	if len(shown) != 1 {
		t.Errorf("shown %v", shown)
	}
}
