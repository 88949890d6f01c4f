//go:build unix

package app

import (
	"context"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
	"github.com/switchboard-hub/switchboard/hub"
)

// TestBindingsElicitations: the window lists an agent's question, answers
// it as decidedBy "window"; a link opens in the browser only through
// OpenElicitationURL, naming the question (never a URL), and only while it
// is pending.
func TestBindingsElicitations(t *testing.T) {
	_, _, h, dir := bindingsHub(t)
	op := &opener{recorder: newRecorder()}
	b := NewBindings(context.Background(), h.engine.Services(), op, nil)
	t.Cleanup(b.stop)
	th, err := b.CreateThread(hub.CreateThreadRequest{Agent: "fake", Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	pending := func() hub.Elicitation {
		t.Helper()
		var el hub.Elicitation
		testkit.Eventually(t, 20*time.Second, "a pending elicitation", func() bool {
			p, err := b.QueryElicitations(hub.ElicitationQuery{Status: hub.ElicitationPending, ThreadID: th.ID})
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Elicitations) == 1 {
				el = p.Elicitations[0]
			}
			return len(p.Elicitations) == 1
		})
		return el
	}

	tu, err := b.StartTurn(th.ID, hub.TurnInput{Input: `elicit {"mode":"url","message":"Sign in","elicitationId":"x","url":"https://login.example.com/a?b=1"}`})
	if err != nil {
		t.Fatal(err)
	}
	el := pending()
	if err := b.OpenElicitationURL(el.ID); err != nil {
		t.Fatal(err)
	}
	op.mu.Lock()
	urls := append([]string(nil), op.urls...)
	op.mu.Unlock()
	if len(urls) != 1 || urls[0] != "https://login.example.com/a?b=1" {
		t.Errorf("opened %q", urls)
	}
	got, err := b.AnswerElicitation(el.ID, hub.ElicitationAnswer{Action: hub.ElicitAccept})
	if err != nil || got.Status != hub.ElicitationAccepted || got.DecidedBy != "window" {
		t.Fatalf("AnswerElicitation: %+v, %v", got, err)
	}
	waitTurn(t, b, th.ID, tu.ID)
	if err := b.OpenElicitationURL(el.ID); hub.ErrorCode(err) != hub.CodeConflict {
		t.Errorf("opening an answered question's link: %v, want CONFLICT", err)
	}

	tu, err = b.StartTurn(th.ID, hub.TurnInput{Input: `elicit {"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{"a":{"type":"string"}}}}`})
	if err != nil {
		t.Fatal(err)
	}
	el = pending()
	if err := b.OpenElicitationURL(el.ID); hub.ErrorCode(err) != hub.CodeInvalidArgument {
		t.Errorf("opening a form's link: %v, want INVALID_ARGUMENT", err)
	}
	if _, err := b.AnswerElicitation(el.ID, hub.ElicitationAnswer{Action: hub.ElicitCancel}); err != nil {
		t.Fatal(err)
	}
	waitTurn(t, b, th.ID, tu.ID)
	if len(op.urls) != 1 {
		t.Errorf("opened %q", op.urls)
	}
}
