//go:build unix

package app

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/app/config"
	"github.com/switchboard-hub/switchboard/app/notify"
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
	n.respond(ctx, got.ID, notify.ActionDefault)
	if !slices.Equal(shown, []string{"thread::t"}) {
		t.Errorf("a click showed %v, want the thread", shown)
	}
	n.respond(ctx, got.ID, notify.ActionApprove) // offered none: nothing
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

// answers is a hub.Service that knows no thread and records answers.
type answers struct {
	noThreads
	got map[string]hub.ElicitationAnswer
}

func (a *answers) AnswerElicitation(_ context.Context, c hub.Caller, id string, x hub.ElicitationAnswer) (hub.Elicitation, error) {
	if c.Surface != hub.SurfaceNotification {
		return hub.Elicitation{}, hub.Errorf(hub.CodeInternal, "answered as %+v", c)
	}
	a.got[id] = x
	return hub.Elicitation{ID: id}, nil
}

// TestNotifierQuestionChoices: a question whose one field is a choice of
// two or three offers a button per choice, answered with that value; a
// question with more choices, more fields or free text offers none; a
// button the notification did not offer, or one of an answered question,
// answers nothing.
func TestNotifierQuestionChoices(t *testing.T) {
	form := func(id, props string) hub.Event {
		var s hub.ElicitationSchema
		if err := json.Unmarshal([]byte(`{"type":"object","properties":`+props+`}`), &s); err != nil {
			t.Fatal(err)
		}
		q := hub.Elicitation{ID: id, ThreadID: "t", TurnID: "u", Mode: hub.ElicitationForm, Message: "Which?", Status: hub.ElicitationPending, RequestedSchema: &s}
		e, _ := hub.NewEvent(hub.EventElicitationRequired, hub.Thread{ID: "t"}, "u", time.Now(), map[string]any{"elicitation": q})
		return e
	}
	var c config.Config
	c.Notifications.Enabled, c.Notifications.Question = true, true
	sent := &sentRecorder{}
	svc := &answers{got: map[string]hub.ElicitationAnswer{}}
	n := newNotifier(svc, sent, func() config.Config { return c }, func(string, string, string) {}, slog.New(slog.DiscardHandler))
	ctx := context.Background()
	n.handle(ctx, form("enum", `{"b":{"type":"string","enum":["main","dev"]}}`))
	n.handle(ctx, form("titled", `{"b":{"type":"string","oneOf":[{"const":"a","title":"Yes"},{"const":"b"},{"const":"c","title":"No"}]}}`))
	n.handle(ctx, form("four", `{"b":{"type":"string","enum":["1","2","3","4"]}}`))
	n.handle(ctx, form("two-fields", `{"b":{"type":"string","enum":["x","y"]},"c":{"type":"string"}}`))
	n.handle(ctx, form("text", `{"b":{"type":"string"}}`))
	want := map[string][]string{"ask:enum": {"main", "dev"}, "ask:titled": {"Yes", "b", "No"}}
	for _, s := range sent.sent {
		if !slices.Equal(s.Choices, want[s.ID]) {
			t.Errorf("%s offers %q, want %q", s.ID, s.Choices, want[s.ID])
		}
		if hasButtons := len(want[s.ID]) > 0; strings.Contains(s.Body, "Answer here") != hasButtons {
			t.Errorf("%s says %q", s.ID, s.Body)
		}
	}
	if len(sent.sent) != 5 {
		t.Fatalf("sent %d notifications, want 5", len(sent.sent))
	}
	n.respond(ctx, "ask:enum", notify.ActionAnswer+"1")
	n.respond(ctx, "ask:titled", notify.ActionAnswer+"2")
	n.respond(ctx, "ask:four", notify.ActionAnswer+"0")  // offered no button
	n.respond(ctx, "ask:enum", notify.ActionAnswer+"7")  // no such button
	n.respond(ctx, "ask:enum", notify.ActionAnswer+"-1") // nor this
	if len(svc.got) != 2 || string(svc.got["enum"].Content["b"]) != `"dev"` || string(svc.got["titled"].Content["b"]) != `"c"` ||
		svc.got["enum"].Action != "accept" {
		t.Fatalf("answers %+v, want enum=dev and titled=c accepted, nothing else", svc.got)
	}
	done, _ := hub.NewEvent(hub.EventElicitationResolved, hub.Thread{ID: "t"}, "u", time.Now(),
		map[string]any{"elicitation": hub.Elicitation{ID: "enum", ThreadID: "t", Status: hub.ElicitationExpired}})
	n.handle(ctx, done)
	delete(svc.got, "enum")
	n.respond(ctx, "ask:enum", notify.ActionAnswer+"0") // answered (expired) meanwhile: its buttons are gone
	if _, again := svc.got["enum"]; again {
		t.Error("a resolved question was answered from its old notification")
	}
}
