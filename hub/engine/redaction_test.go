//go:build unix

package engine_test

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

func chunksInput(cmd string, parts ...string) string {
	for _, p := range parts {
		cmd += " " + base64.StdEncoding.EncodeToString([]byte(p))
	}
	return cmd
}

// deltaText reads the thread's events until turn_completed and returns the
// message text streamed and the turn.
func deltaText(t *testing.T, sub *hub.Subscription) (string, hub.Turn) {
	t.Helper()
	var b strings.Builder
	for {
		var ev hub.Event
		select {
		case ev = <-sub.Events():
		case <-time.After(20 * time.Second):
			t.Fatal("no turn_completed")
		}
		switch ev.Type {
		case hub.EventMessageDelta:
			b.WriteString(payload[string](t, ev, "text"))
		case hub.EventTurnCompleted:
			return b.String(), payload[hub.Turn](t, ev, "turn")
		}
	}
}

// A cancelled turn releases what redaction held back: the turn's output is
// the text streamed, and nothing the agent said is lost.
func TestRedactionReleasesHeldTextOnCancel(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	th := h.thread("fake")
	sub := h.watch(th)
	token := "ghp_" + strings.Repeat("k3y", 12)
	turn, err := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: chunksInput("chunks-hang", "first part, then "+token[:20])})
	if err != nil {
		t.Fatal(err)
	}
	ev := until(t, sub, hub.EventMessageDelta) // "first part, then " is out; the token's start is held
	if got := payload[string](t, ev, "text"); got != "first part, then " {
		t.Fatalf("released %q", got)
	}
	if _, err := h.e.CancelTurn(ctx, alice, turn.ID); err != nil {
		t.Fatal(err)
	}
	text, done := deltaText(t, sub)
	if text != token[:20] || done.Status != hub.TurnCancelled || done.Output != "first part, then "+token[:20] {
		t.Errorf("after the cancel: streamed %q, turn %s %q", text, done.Status, done.Output)
	}
}

// redaction.enabled applies at once, to the next chunk.
func TestRedactionSwitchIsLive(t *testing.T) {
	h := newHarness(t, nil)
	th := h.thread("fake")
	sub := h.watch(th)
	token := "ghp_" + strings.Repeat("l1v", 12)
	run := func(want string) {
		t.Helper()
		if _, err := h.e.StartTurn(context.Background(), alice, th.ID, hub.TurnInput{Input: chunksInput("chunks", "a "+token[:9], token[9:]+" b")}); err != nil {
			t.Fatal(err)
		}
		if text, done := deltaText(t, sub); text != want || done.Output != want {
			t.Errorf("streamed %q, output %q; want %q", text, done.Output, want)
		}
	}
	run("a [REDACTED:github-token] b")
	c := h.e.Config()
	c.Redaction = false
	h.e.SetConfig(c)
	run("a " + token + " b")
	c.Redaction = true
	h.e.SetConfig(c)
	run("a [REDACTED:github-token] b")
}
