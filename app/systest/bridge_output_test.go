//go:build linux

package systest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/switchboard-hub/switchboard/acp/acptest"
	"github.com/switchboard-hub/switchboard/app/editorbridge"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

// slowEditor is how long the slow editor of these tests takes over each
// session/update: 20,000 of them would take it 20 s, far longer than the
// hub and the bridge take to send them.
const slowEditor = time.Millisecond

// A turn whose output is over 64 KiB, in 20,000 chunks, to an editor that
// is slow: it gets all of it, live and when it loads the session again,
// and its connection is not dropped although acp-go-sdk queues at most
// 1024 notifications unhandled (the bridge coalesces the chunks); the
// hub's turn_completed carries its first 64 KiB with outputBytes and
// outputTruncated, the history the whole output (stored once, from the
// turn's events), and hub/client's CompletedTurn fetches it whole.
func bridgeLongOutput(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	b := startBridge(t, bins, h, "fake")
	b.mustInitialize(t)
	b.ed.setSlow(slowEditor)
	cwd := t.TempDir()
	sid := b.newSession(t, cwd)
	const chunks = 20000 // 1,280,000 bytes of text
	want := strings.Repeat(acptest.FakeText(63)+" ", chunks)

	live := b.mustPrompt(t, sid, fmt.Sprintf("flood %d 64", chunks), sdk.StopReasonEndTurn)
	wantText(t, "live", live, want)
	t.Logf("live: %d chunks came as %d notifications", chunks, len(live))
	turns := h.history(sid, true, asEditor...)
	if len(turns) != 1 || turns[0].Output != want {
		t.Fatalf("history: %d turns, output %d bytes; want the whole %d", len(turns), len(turns[0].Output), len(want))
	}
	var done *apiEvent
	for i, ev := range turns[0].Events {
		if ev.Type == hub.EventTurnCompleted {
			done = &turns[0].Events[i]
		}
	}
	if done == nil {
		t.Fatal("no turn_completed in the history")
	}
	// The event as stored and streamed, read as hub/client reads it.
	c := client.ForHub(client.NewHub(h.url, h.token), client.Options{ClientID: bridgeClientID})
	s, err := c.ThreadEvents(context.Background(), sid, done.Seq-1, client.StreamOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := s.Next()
	s.Close()
	if err != nil || ev.Type != hub.EventTurnCompleted {
		t.Fatalf("thread stream: %+v, %v", ev, err)
	}
	var p struct {
		Turn hub.Turn `json:"turn"`
	}
	if err := json.Unmarshal(ev.Payload, &p); err != nil {
		t.Fatal(err)
	}
	if !p.Turn.OutputTruncated || p.Turn.OutputBytes != len(want) || len(p.Turn.Output) != hub.TurnEventOutputMax || !strings.HasPrefix(want, p.Turn.Output) {
		t.Fatalf("turn_completed: truncated %v, outputBytes %d, output %d bytes", p.Turn.OutputTruncated, p.Turn.OutputBytes, len(p.Turn.Output))
	}
	full, err := c.CompletedTurn(context.Background(), ev)
	if err != nil || full.Output != want {
		t.Fatalf("CompletedTurn: %d bytes, %v; want %d", len(full.Output), err, len(want))
	}

	b.stop()
	b2 := startBridge(t, bins, h, "fake")
	b2.mustInitialize(t)
	b2.ed.setSlow(slowEditor)
	replay := b2.listAndLoad(t, sid, cwd)
	wantText(t, "session/load", replay, want)
	// The prompt, then the text in as few notifications as the bound
	// allows.
	if n, most := len(replay), 1+(len(want)+editorbridge.MaxCoalescedText-1)/editorbridge.MaxCoalescedText; n > most {
		t.Fatalf("session/load replayed %d chunks as %d notifications, want at most %d", chunks, n, most)
	}
}

// wantText checks that the agent's text in ns is want, byte for byte, in
// notifications of at most editorbridge.MaxCoalescedText bytes of text.
func wantText(t *testing.T, what string, ns []sdk.SessionNotification, want string) {
	t.Helper()
	if got := agentText(ns); got != want {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		t.Fatalf("%s: the editor got %d bytes of text, want %d; they differ from byte %d", what, len(got), len(want), i)
	}
	for i, n := range ns {
		if c := n.Update.AgentMessageChunk; c != nil && c.Content.Text != nil && len(c.Content.Text.Text) > editorbridge.MaxCoalescedText {
			t.Fatalf("%s: notification %d has %d bytes of text, over the bound %d", what, i, len(c.Content.Text.Text), editorbridge.MaxCoalescedText)
		}
	}
}

// An update as the tests below compare them: a text chunk's kind and
// text, an image chunk's kind and data, a tool call's id.
type seen struct {
	kind, text string
	isText     bool
}

// seenUpdates are the text and image chunks and tool calls of ns, in order.
func seenUpdates(ns []sdk.SessionNotification) []seen {
	var out []seen
	chunk := func(kind string, c sdk.ContentBlock) {
		switch {
		case c.Text != nil:
			out = append(out, seen{kind, c.Text.Text, true})
		case c.Image != nil:
			out = append(out, seen{kind, "image:" + c.Image.Data, false})
		default:
			out = append(out, seen{kind, "other content", false})
		}
	}
	for _, n := range ns {
		switch u := n.Update; {
		case u.UserMessageChunk != nil:
			chunk("user", u.UserMessageChunk.Content)
		case u.AgentMessageChunk != nil:
			chunk("message", u.AgentMessageChunk.Content)
		case u.AgentThoughtChunk != nil:
			chunk("thought", u.AgentThoughtChunk.Content)
		case u.ToolCall != nil:
			out = append(out, seen{kind: "tool_call", text: string(u.ToolCall.ToolCallId)})
		}
	}
	return out
}

// merged is ss with each run of text chunks of one kind made one.
func merged(ss []seen) []seen {
	var out []seen
	for _, s := range ss {
		if last := len(out) - 1; last >= 0 && s.isText && out[last].isText && out[last].kind == s.kind {
			out[last].text += s.text
			continue
		}
		out = append(out, s)
	}
	return out
}

// Text chunks are never merged across another update, across kinds, or
// with an image chunk, live or on session/load; every byte of text comes
// in order; session/load merges every run (the fake agent's mixed: text
// of both kinds, images and tool calls in a flood). The editor is not
// slow here: updates that are not text are never merged, so 150 rounds
// are 751 notifications at the least.
func bridgeCoalesce(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	b := startBridge(t, bins, h, "fake")
	b.mustInitialize(t)
	cwd := t.TempDir()
	sid := b.newSession(t, cwd)
	const rounds = 150
	var sent []seen // what the agent sent
	for i := range rounds {
		sent = append(sent,
			seen{"message", fmt.Sprintf("m%d.a é ", i), true},
			seen{"message", fmt.Sprintf("m%d.b 😀 ", i), true},
			seen{"thought", fmt.Sprintf("t%d.a ", i), true},
			seen{"thought", fmt.Sprintf("t%d.b ", i), true},
			seen{"message", "image:" + acptest.MixedImage, false},
			seen{"message", fmt.Sprintf("m%d.c ", i), true},
			seen{"tool_call", fmt.Sprintf("mixed-%d", i), false},
			seen{"message", fmt.Sprintf("m%d.d ", i), true},
		)
	}
	want := merged(sent)

	live := seenUpdates(b.mustPrompt(t, sid, fmt.Sprintf("mixed %d", rounds), sdk.StopReasonEndTurn))
	if got := merged(live); !slices.Equal(got, want) {
		t.Fatalf("live: %d updates, %d once merged, want %d merged:\n%s", len(live), len(got), len(want), firstDiff(got, want))
	}
	t.Logf("live: %d updates (%d once merged) came as %d", len(sent), len(want), len(live))

	b.stop()
	b2 := startBridge(t, bins, h, "fake")
	b2.mustInitialize(t)
	replay := seenUpdates(b2.listAndLoad(t, sid, cwd))
	want = append([]seen{{"user", fmt.Sprintf("mixed %d", rounds), true}}, want...)
	if !slices.Equal(replay, want) {
		t.Fatalf("session/load: %d updates, want %d:\n%s", len(replay), len(want), firstDiff(replay, want))
	}
}

// firstDiff describes where got and want part.
func firstDiff(got, want []seen) string {
	for i := range max(len(got), len(want)) {
		var g, w seen
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			return fmt.Sprintf("at %d: got %+v, want %+v", i, g, w)
		}
	}
	return "no difference"
}

// An editor gets the agent's messageId on each chunk (two interleaved
// messages stay two), and a sub-agent's output on the child's session, as
// the agent sent it; the child's permission request is the editor's to
// answer like any other.
func bridgeMessagesAndSubagents(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	b := startBridge(t, bins, h, "fake")
	b.mustInitialize(t)
	sid := b.newSession(t, t.TempDir())

	var chunks []string
	for _, n := range b.mustPrompt(t, sid, "messages", sdk.StopReasonEndTurn) {
		if c := n.Update.AgentMessageChunk; c != nil && c.Content.Text != nil {
			id := "(none)"
			if c.MessageId != nil {
				id = *c.MessageId
			}
			chunks = append(chunks, id+":"+c.Content.Text.Text)
		}
	}
	if got := strings.Join(chunks, " | "); got != "m1:Hello  | m2:Aside. | m1:world" {
		t.Errorf("message chunks %q: want each with its messageId, the two messages apart", got)
	}

	b.ed.setPerm(func(_ context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		for _, o := range p.Options {
			if o.Kind == sdk.PermissionOptionKindAllowOnce {
				return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: o.OptionId}}}, nil
			}
		}
		return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{}}}, nil
	})
	var childText []string
	var childTools, parentText int
	children := map[string]bool{}
	for _, n := range b.mustPrompt(t, sid, "subagent Explore the tests", sdk.StopReasonEndTurn) {
		if string(n.SessionId) == string(sid) {
			if c := n.Update.AgentMessageChunk; c != nil && c.Content.Text != nil && strings.Contains(c.Content.Text.Text, "Looking at the tests") {
				parentText++
			}
			continue
		}
		children[string(n.SessionId)] = true
		if c := n.Update.AgentMessageChunk; c != nil && c.Content.Text != nil {
			childText = append(childText, c.Content.Text.Text)
		}
		if n.Update.ToolCall != nil {
			childTools++
		}
	}
	if len(children) != 1 || strings.Join(childText, "") != "Looking at the tests." || childTools != 1 || parentText != 0 {
		t.Errorf("child sessions %v, child text %q, child tool calls %d, the child's text on the parent %d times", children, childText, childTools, parentText)
	}
	for c := range children {
		if !strings.Contains(c, "-sub-") {
			t.Errorf("child session %q: want the agent's child session id", c)
		}
	}
}

// An editor sees the retried answer: its prompt fails because the agent
// needs signing in; the user signs the agent in from Switchboard; the
// hub sends the prompt again, once, and the editor gets that answer as
// session/update notifications of its session.
func bridgeSignInRetry(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, hubConfig{"agents": map[string]agentConf{"authagent": fakeAgentConf(t, "FAKEAGENT_AUTH_REQUIRED=1")}})
	b := startBridge(t, bins, h, "authagent")
	b.mustInitialize(t)
	sid := b.newSession(t, t.TempDir())
	b.ed.take()
	_, err := b.prompt(t, sid, "echo after the sign-in")
	wantErr(t, "a prompt before the sign-in", err, "sign")
	h.call("POST", "/v1/agents/authagent/auth", map[string]string{"methodId": "fake-login"}, 200, nil)
	var got string
	if !waitFor(30*time.Second, func() bool {
		for _, n := range b.ed.take() {
			if c := n.Update.AgentMessageChunk; c != nil && c.Content.Text != nil && string(n.SessionId) == sid {
				got += c.Content.Text.Text
			}
		}
		return got == "after the sign-in"
	}) {
		t.Fatalf("the editor got %q of the retried answer, want %q", got, "after the sign-in")
	}
	turns := h.history(sid, false, asEditor...)
	if len(turns) != 2 || turns[0].Status != "failed" || turns[1].Output != "after the sign-in" {
		t.Fatalf("the thread's turns %+v: want the failed one and its retry", turns)
	}
}
