//go:build unix

package engine_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// turnEvents is the stored events of a thread's last turn.
func (h *harness) turnEvents(th hub.Thread) []hub.Event {
	h.t.Helper()
	hist, err := h.e.History(context.Background(), alice, th.ID, true, false)
	if err != nil || len(hist) == 0 {
		h.t.Fatalf("history %v %v", hist, err)
	}
	return hist[len(hist)-1].Events
}

// TestMessageIDsGroupDeltas: chunks of two interleaved messages become
// deltas, each after a message_started naming its message; the text of
// the deltas of one id is that message, whatever came between. A tool
// call keeps its name.
func TestMessageIDsGroupDeltas(t *testing.T) {
	h := newHarness(t, nil)
	th := h.thread("fake")
	sub := h.watch(th)
	h.run(th, sub, "messages")
	cur := ""
	text := map[string]string{}
	var order []string
	toolName := ""
	for _, ev := range h.turnEvents(th) {
		switch ev.Type {
		case hub.EventMessageStarted:
			cur = payload[string](t, ev, "messageId")
			if k := payload[string](t, ev, "kind"); k != "message" {
				t.Fatalf("kind %q", k)
			}
			order = append(order, cur)
		case hub.EventMessageDelta:
			text[cur] += payload[string](t, ev, "text")
		case hub.EventToolCall:
			tc := payload[map[string]any](t, ev, "toolCall")
			toolName, _ = tc["name"].(string)
		}
	}
	if strings.Join(order, ",") != "m1,m2,m1" || text["m1"] != "Hello world" || text["m2"] != "Aside." || text[""] != "" {
		t.Fatalf("order %v, text %q", order, text)
	}
	if toolName != "Bash" {
		t.Fatalf("tool name %q", toolName)
	}
}

// TestNoticeCompactionAndPlanOpsBecomeEvents: each new kind is stored as
// its own event with the fields the window renders.
func TestNoticeCompactionAndPlanOpsBecomeEvents(t *testing.T) {
	h := newHarness(t, nil)
	th := h.thread("fake")
	sub := h.watch(th)

	h.run(th, sub, "notice warning Model switched to Sonnet")
	var notice map[string]string
	for _, ev := range h.turnEvents(th) {
		if ev.Type == hub.EventNotice {
			notice = payload[map[string]string](t, ev, "notice")
		}
	}
	if notice["severity"] != "warning" || notice["title"] != "Model switched to Sonnet" || notice["description"] != "Sent by the fake agent." {
		t.Fatalf("notice %v", notice)
	}

	h.run(th, sub, "compact")
	var statuses []string
	summary := ""
	for _, ev := range h.turnEvents(th) {
		switch ev.Type {
		case hub.EventCompaction:
			statuses = append(statuses, payload[map[string]string](t, ev, "compaction")["status"])
		case hub.EventCompactionSummary:
			summary += payload[string](t, ev, "text")
		}
	}
	if strings.Join(statuses, ",") != "in_progress,completed" || summary != "We renamed the parser. Tests pass." {
		t.Fatalf("compaction %v %q", statuses, summary)
	}

	h.run(th, sub, "compact fail")
	var failed map[string]string
	for _, ev := range h.turnEvents(th) {
		if ev.Type == hub.EventCompaction {
			failed = payload[map[string]string](t, ev, "compaction")
		}
	}
	if failed["status"] != "failed" || failed["error"] != "context too small" {
		t.Fatalf("failed compaction %v", failed)
	}

	h.run(th, sub, "plan-ops")
	var ops []string
	for _, ev := range h.turnEvents(th) {
		switch ev.Type {
		case hub.EventPlanUpdate:
			ops = append(ops, "update:"+payload[map[string]any](t, ev, "plan")["planId"].(string))
		case hub.EventPlanRemoved:
			ops = append(ops, "removed:"+payload[string](t, ev, "planId"))
		}
	}
	if strings.Join(ops, ",") != "update:p1,update:p2,removed:p2" {
		t.Fatalf("plan ops %v", ops)
	}
}

// TestRateLimitSetsLimitedUntil: a usage_update reporting a refusal sets
// the thread's limitedUntil to the reset time, announced; the queue's
// SetLimitedUntil clears it.
func TestRateLimitSetsLimitedUntil(t *testing.T) {
	h := newHarness(t, nil)
	th := h.thread("fake")
	sub := h.watch(th)
	before := time.Now()
	h.run(th, sub, "rate-limit 3600")
	got, err := h.e.GetThread(context.Background(), alice, th.ID)
	if err != nil || got.LimitedUntil == nil {
		t.Fatalf("thread %+v %v", got, err)
	}
	if d := got.LimitedUntil.Sub(before); d < 3590*time.Second || d > 3610*time.Second {
		t.Fatalf("limitedUntil %v is not an hour from now", got.LimitedUntil)
	}
	// A thread_updated announced it (read from the log's start).
	replay := h.watch(th)
	for {
		ev := until(t, replay, hub.EventThreadUpdated)
		if lu := payload[hub.Thread](t, ev, "thread").LimitedUntil; lu != nil {
			if !lu.Equal(*got.LimitedUntil) {
				t.Fatalf("announced %v, stored %v", lu, got.LimitedUntil)
			}
			break
		}
	}
	cleared, err := h.e.SetLimitedUntil(context.Background(), th.ID, time.Time{})
	if err != nil || cleared.LimitedUntil != nil {
		t.Fatalf("cleared %+v %v", cleared, err)
	}
	if again, _ := h.e.GetThread(context.Background(), alice, th.ID); again.LimitedUntil != nil {
		t.Fatalf("still limited: %v", again.LimitedUntil)
	}
	if _, err := h.e.SetLimitedUntil(context.Background(), "th-nope", time.Now()); hub.ErrorCode(err) != hub.CodeNotFound {
		t.Fatalf("unknown thread: %v", err)
	}
}

// TestURLElicitationCompletes: the user accepts a URL question (opened the
// link); the agent's elicitation/complete is stored as
// elicitation_completed naming the hub's elicitation.
func TestURLElicitationCompletes(t *testing.T) {
	h := newHarness(t, nil)
	th := h.thread("fake")
	sub := h.watch(th)
	ctx := context.Background()
	if _, err := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "elicit-url https://tracker.example/login"}); err != nil {
		t.Fatal(err)
	}
	el := payload[hub.Elicitation](t, until(t, sub, hub.EventElicitationRequired), "elicitation")
	if el.Mode != hub.ElicitationURL || el.URL != "https://tracker.example/login" {
		t.Fatalf("elicitation %+v", el)
	}
	if _, err := h.e.AnswerElicitation(ctx, alice, el.ID, hub.ElicitationAnswer{Action: hub.ElicitAccept}); err != nil {
		t.Fatal(err)
	}
	// The completion commits off the agent's reader: it may come before
	// or after the turn's end (a browser flow can outlive the turn).
	var done, ended *hub.Event
	for done == nil || ended == nil {
		ev := untilOneOf(t, sub, hub.EventElicitationCompleted, hub.EventTurnCompleted)
		if ev.Type == hub.EventTurnCompleted {
			ended = &ev
		} else {
			done = &ev
		}
	}
	if id := payload[string](t, *done, "elicitationId"); id != el.ID {
		t.Fatalf("completed %q, want %q", id, el.ID)
	}
	turn := payload[hub.Turn](t, *ended, "turn")
	if !strings.Contains(turn.Output, `elicit: {"action":"accept"}`) {
		t.Fatalf("agent said %q", turn.Output)
	}
}

// TestSubagentStreamAndPermission: a sub-agent's updates become its own
// subagent_output events (never the parent's message), and its permission
// request is the thread's, decided like any other, naming the child.
func TestSubagentStreamAndPermission(t *testing.T) {
	h := newHarness(t, nil)
	th := h.thread("fake")
	sub := h.watch(th)
	ctx := context.Background()
	if _, err := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "subagent Explore the tests"}); err != nil {
		t.Fatal(err)
	}
	p := payload[hub.Permission](t, until(t, sub, hub.EventPermissionRequired), "permission")
	if p.Request == nil || p.Request.Subagent == nil || p.Request.Subagent.Title != "Explore the tests" || !strings.Contains(p.Request.Subagent.SessionID, "-sub-") {
		t.Fatalf("permission request %+v", p.Request)
	}
	if p.ThreadID != th.ID {
		t.Fatalf("permission of thread %s, want the parent %s", p.ThreadID, th.ID)
	}
	res, err := h.e.DecidePermission(ctx, alice, p.ID, hub.Decision{OptionID: "allow"})
	if err != nil || res.Permission.Status != hub.PermissionApproved || res.Permission.Request.Subagent == nil {
		t.Fatalf("decided %+v %v", res.Permission, err)
	}
	turn := payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn")
	if !strings.Contains(turn.Output, `"optionId":"allow"`) || strings.Contains(turn.Output, "Looking at the tests") {
		t.Fatalf("parent output %q: the child's text must not be the parent's", turn.Output)
	}
	var kinds []string
	childText := ""
	for _, ev := range h.turnEvents(th) {
		if ev.Type == hub.EventSubagentOutput {
			kinds = append(kinds, payload[string](t, ev, "kind"))
			if payload[string](t, ev, "sessionId") != p.Request.Subagent.SessionID {
				t.Fatalf("output of %s", ev.Payload)
			}
			if txt, ok := payloadOK[string](ev, "text"); ok {
				childText += txt
			}
		}
	}
	if strings.Join(kinds, ",") != "agent_message_chunk,tool_call" || childText != "Looking at the tests." {
		t.Fatalf("child stream %v %q", kinds, childText)
	}
	// Audited as any other decision, still naming the child.
	page, err := h.e.QueryPermissions(ctx, alice, hub.PermissionQuery{ThreadID: th.ID})
	if err != nil || len(page.Permissions) != 1 || page.Permissions[0].Request.Subagent == nil || page.Permissions[0].Request.Subagent.Title != "Explore the tests" {
		t.Fatalf("audit %+v %v", page, err)
	}
}

// payloadOK is payload's field key when present.
func payloadOK[T any](ev hub.Event, key string) (T, bool) {
	var m map[string]json.RawMessage
	var v T
	if json.Unmarshal(ev.Payload, &m) != nil || m[key] == nil {
		return v, false
	}
	return v, json.Unmarshal(m[key], &v) == nil
}

// TestBooleanConfigOption: a boolean option is set as {type: "boolean",
// value} (the fake agent refuses it otherwise); a value that is not
// "true" or "false" is INVALID_ARGUMENT, never sent.
func TestBooleanConfigOption(t *testing.T) {
	h := newHarness(t, nil, fakeSpec(t, "fake", "FAKEAGENT_BOOL_OPTION=1"))
	ctx := context.Background()
	th := h.thread("fake")
	got, err := h.e.SetConfigOption(ctx, alice, th.ID, "fast", "true")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got.ConfigOptions), `"currentValue":true`) {
		t.Fatalf("options %s", got.ConfigOptions)
	}
	if _, err := h.e.SetConfigOption(ctx, alice, th.ID, "fast", "yes"); hub.ErrorCode(err) != hub.CodeInvalidArgument || !strings.Contains(err.Error(), `"true" or "false"`) {
		t.Fatalf("bad value: %v", err)
	}
	got, err = h.e.SetConfigOption(ctx, alice, th.ID, "fast", "false")
	if err != nil || !strings.Contains(string(got.ConfigOptions), `"currentValue":false`) {
		t.Fatalf("options %s %v", got.ConfigOptions, err)
	}
	// A select option is still set by its value id.
	if got, err = h.e.SetConfigOption(ctx, alice, th.ID, "model", "fake-large"); err != nil || !strings.Contains(string(got.ConfigOptions), `"currentValue":"fake-large"`) {
		t.Fatalf("model %s %v", got.ConfigOptions, err)
	}
}

// TestRateLimitFromPromptError: a prompt that fails with a rate limit in
// its error's data fails the turn with reason RATE_LIMITED and
// limitedUntil, and sets the thread's limitedUntil.
func TestRateLimitFromPromptError(t *testing.T) {
	h := newHarness(t, nil)
	th := h.thread("fake")
	sub := h.watch(th)
	ctx := context.Background()
	if _, err := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "rate-limit-error 600"}); err != nil {
		t.Fatal(err)
	}
	ev := until(t, sub, hub.EventError)
	if r := payload[string](t, ev, "reason"); r != hub.ReasonRateLimited {
		t.Fatalf("error reason %q (%s)", r, ev.Payload)
	}
	at, err := time.Parse(time.RFC3339, payload[string](t, ev, "limitedUntil"))
	if err != nil || at.Before(time.Now().Add(590*time.Second)) || at.After(time.Now().Add(610*time.Second)) {
		t.Fatalf("limitedUntil %v %v", at, err)
	}
	if turn := payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn"); turn.Status != hub.TurnFailed {
		t.Fatalf("turn %+v", turn)
	}
	got, _ := h.e.GetThread(ctx, alice, th.ID)
	if got.LimitedUntil == nil || !got.LimitedUntil.Equal(at) || got.Status != hub.ThreadIdle {
		t.Fatalf("thread limitedUntil %v status %s, want %v idle", got.LimitedUntil, got.Status, at)
	}
}
