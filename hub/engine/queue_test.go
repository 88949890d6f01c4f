//go:build unix

package engine_test

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/acp/acptest"
	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/engine"
)

// promptLog is a fake agent that appends every session/prompt it receives
// to a file (FAKEAGENT_PROMPTS), and the reader of that file.
type promptLog string

func promptSpec(t testing.TB) (acp.AgentSpec, promptLog) {
	file := filepath.Join(t.TempDir(), "prompts.jsonl")
	return fakeSpec(t, "fake", "FAKEAGENT_PROMPTS="+file), promptLog(file)
}

// texts are the prompts' last text blocks (the user's message, after any
// context block), in the order received.
func (p promptLog) texts(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, blocks := range p.blocks(t) {
		last := ""
		if len(blocks) > 0 {
			last = blocks[len(blocks)-1] // after a context block, the user's message
		}
		out = append(out, last)
	}
	return out
}

// blocks are the text blocks of each prompt, in the order received.
func (p promptLog) blocks(t testing.TB) [][]string { return acptest.PromptTexts(t, string(p)) }

func (h *harness) enqueue(th hub.Thread, input string) hub.QueuedPrompt {
	h.t.Helper()
	q, err := h.e.Enqueue(context.Background(), alice, th.ID, hub.TurnInput{Input: input})
	if err != nil {
		h.t.Fatal(err)
	}
	return q
}

// inputs are the thread's turns' inputs, oldest first.
func (h *harness) inputs(th hub.Thread) []string {
	h.t.Helper()
	hist, err := h.e.History(context.Background(), alice, th.ID, false, false)
	if err != nil {
		h.t.Fatal(err)
	}
	var out []string
	for _, t := range hist {
		out = append(out, t.Input)
	}
	return out
}

func (h *harness) threadNow(th hub.Thread) hub.Thread {
	h.t.Helper()
	got, err := h.e.GetThread(context.Background(), alice, th.ID)
	if err != nil {
		h.t.Fatal(err)
	}
	return got
}

// approveNext approves the next permission the thread asks.
func (h *harness) approveNext(sub *hub.Subscription) {
	h.t.Helper()
	p := payload[hub.Permission](h.t, until(h.t, sub, hub.EventPermissionRequired), "permission")
	if _, err := h.e.DecidePermission(context.Background(), alice, p.ID, hub.Decision{Outcome: "approved"}); err != nil {
		h.t.Fatal(err)
	}
}

// Prompts queued while a turn runs are sent one by one when it ends, in
// the queue's order after a move and a removal; each is sent once, and
// each left the queue in the event that names the turn it became.
func TestQueueSendsInOrderAfterEdits(t *testing.T) {
	spec, log := promptSpec(t)
	h := newHarness(t, nil, spec)
	th := h.thread("fake")
	sub := h.watch(th)
	ctx := context.Background()
	if _, err := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "permission"}); err != nil {
		t.Fatal(err)
	}
	one, two, three := h.enqueue(th, "echo one"), h.enqueue(th, "echo two"), h.enqueue(th, "echo three")
	if _, err := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "echo not now"}); hub.ErrorCode(err) != hub.CodeConflict {
		t.Fatalf("a turn while one runs: %v, want CONFLICT", err)
	}
	pos := 0
	if q, err := h.e.EditQueued(ctx, alice, th.ID, three.ID, hub.QueueEdit{Position: &pos}); err != nil || q.Position != 0 {
		t.Fatalf("move: %+v %v", q, err)
	}
	text := "echo one, edited"
	if _, err := h.e.EditQueued(ctx, alice, th.ID, one.ID, hub.QueueEdit{Input: &text}); err != nil {
		t.Fatal(err)
	}
	if err := h.e.RemoveQueued(ctx, alice, th.ID, two.ID); err != nil {
		t.Fatal(err)
	}
	if err := h.e.RemoveQueued(ctx, alice, th.ID, two.ID); hub.ErrorCode(err) != hub.CodeNotFound {
		t.Fatalf("removed twice: %v", err)
	}
	list, _ := h.e.Queue(ctx, alice, th.ID)
	if len(list) != 2 || list[0].Input != "echo three" || list[1].Input != text || list[0].Position != 0 || list[1].Position != 1 {
		t.Fatalf("queue %+v", list)
	}
	if got := h.threadNow(th); got.Queued != 2 {
		t.Fatalf("thread queued %d, want 2", got.Queued)
	}
	h.approveNext(sub)
	want := []string{"permission", "echo three", text}
	waitUntil(t, "the queue sent", func() bool { return slices.Equal(h.inputs(th), want) && h.threadNow(th).Status == hub.ThreadIdle })
	if got := log.texts(t); !slices.Equal(got, want) {
		t.Fatalf("the agent received %q, want %q", got, want)
	}
	if got := h.threadNow(th); got.Queued != 0 || got.QueuePaused != "" {
		t.Fatalf("thread after: queued %d paused %q", got.Queued, got.QueuePaused)
	}
	// The log: three queued, one removed, two dequeued into their turns.
	hist, _ := h.e.History(ctx, alice, th.ID, true, false)
	dequeued := map[string]string{}
	for _, turn := range hist {
		for _, ev := range turn.Events {
			if ev.Type == hub.EventPromptDequeued {
				dequeued[payload[string](t, ev, "queuedId")] = payload[string](t, ev, "turnId")
			}
		}
	}
	if dequeued[three.ID] != hist[1].ID || dequeued[one.ID] != hist[2].ID {
		t.Fatalf("prompt_dequeued %v, turns %s %s", dequeued, hist[1].ID, hist[2].ID)
	}
}

// Many "Send next" at once send the head once: it leaves the queue in
// the transaction that stores its turn, so every other start fails.
func TestQueueNeverSendsTwice(t *testing.T) {
	spec, log := promptSpec(t)
	h := newHarness(t, nil, spec)
	th := h.thread("fake")
	ctx := context.Background()
	started, err := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "hang"})
	if err != nil {
		t.Fatal(err)
	}
	h.enqueue(th, "echo once")
	waitUntil(t, "the hang prompt received", func() bool { return len(log.texts(t)) == 1 })
	if _, err := h.e.CancelTurn(ctx, alice, started.ID); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the queue paused", func() bool { return h.threadNow(th).QueuePaused == hub.QueuePausedCancelled })
	var wg sync.WaitGroup
	var mu sync.Mutex
	var sent int
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := h.e.SendNext(ctx, alice, th.ID)
			mu.Lock()
			defer mu.Unlock()
			switch hub.ErrorCode(err) {
			case "":
				sent++
			case hub.CodeConflict, hub.CodeNotFound:
			default:
				t.Errorf("send next: %v", err)
			}
		}()
	}
	wg.Wait()
	if sent != 1 {
		t.Fatalf("%d sends succeeded, want 1", sent)
	}
	waitUntil(t, "the prompt answered", func() bool { return len(h.inputs(th)) == 2 && h.threadNow(th).Status == hub.ThreadIdle })
	if got := log.texts(t); !slices.Equal(got, []string{"hang", "echo once"}) {
		t.Fatalf("the agent received %q", got)
	}
	if got := h.threadNow(th); got.QueuePaused != "" || got.Queued != 0 {
		t.Fatalf("after send next: paused %q queued %d", got.QueuePaused, got.Queued)
	}
}

// A cancelled turn pauses the queue and a failed one too: nothing is
// sent until the user sends the next one; a limit without a reset time
// pauses it as "limited" (the window asks "Resume").
func TestQueuePausesAfterCancelOrFailure(t *testing.T) {
	spec, log := promptSpec(t)
	h := newHarness(t, nil, spec)
	ctx := context.Background()
	for _, c := range []struct{ script, paused string }{
		{"hang", hub.QueuePausedCancelled},
		{"rate-limit-error-noreset", hub.QueuePausedLimited},
	} {
		th := h.thread("fake")
		sub := h.watch(th)
		turn, err := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: c.script})
		if err != nil {
			t.Fatal(err)
		}
		h.enqueue(th, "echo later")
		if c.script == "hang" {
			waitUntil(t, "the hang prompt received", func() bool { return len(log.texts(t)) == 1 })
			if _, err := h.e.CancelTurn(ctx, alice, turn.ID); err != nil {
				t.Fatal(err)
			}
		}
		until(t, sub, hub.EventTurnCompleted)
		waitUntil(t, "the pause", func() bool { return h.threadNow(th).QueuePaused != "" })
		if got := h.threadNow(th); got.QueuePaused != c.paused || got.Queued != 1 || got.LimitedUntil != nil {
			t.Fatalf("%s: paused %q queued %d limited %v", c.script, got.QueuePaused, got.Queued, got.LimitedUntil)
		}
		testkit.Never(t, 300*time.Millisecond, "a paused queue sent", func() bool { return len(h.inputs(th)) > 1 })
	}
	if got := log.texts(t); !slices.Equal(got, []string{"hang", "rate-limit-error-noreset"}) {
		t.Fatalf("the agent received %q", got)
	}
}

// A limit with a reset time holds the queue until the reset on the
// engine's clock; then limitedUntil is cleared and the head is sent.
func TestQueueWaitsForTheLimitReset(t *testing.T) {
	clock := newFakeClock()
	spec, log := promptSpec(t)
	h := newHarnessOn(t, clock, nil, spec)
	th := h.thread("fake")
	sub := h.watch(th)
	limited := h.run(th, sub, "rate-limit-error 600")
	if limited.Status != hub.TurnFailed {
		t.Fatalf("turn %+v", limited)
	}
	h.enqueue(th, "echo after the reset")
	got := h.threadNow(th)
	if got.LimitedUntil == nil || got.Queued != 1 || got.QueuePaused != "" {
		t.Fatalf("limited thread: %+v", got)
	}
	testkit.Never(t, 300*time.Millisecond, "a limited queue sent", func() bool { return len(h.inputs(th)) > 1 })
	clock.Advance(590 * time.Second)
	testkit.Never(t, 200*time.Millisecond, "sent before the reset", func() bool { return len(h.inputs(th)) > 1 })
	clock.Advance(20 * time.Second)
	waitUntil(t, "the queue sent at the reset", func() bool {
		return slices.Equal(h.inputs(th), []string{"rate-limit-error 600", "echo after the reset"}) && h.threadNow(th).Status == hub.ThreadIdle
	})
	if got := h.threadNow(th); got.LimitedUntil != nil || got.Queued != 0 {
		t.Fatalf("after the reset: %+v", got)
	}
	if got := log.texts(t); len(got) != 2 {
		t.Fatalf("the agent received %q", got)
	}
}

// The queue survives a restart: the hub that starts again sends the
// head of each idle thread's queue, in order, and a restart that
// interrupts a turn does not pause it.
func TestQueueResumesAfterRestart(t *testing.T) {
	spec, log := promptSpec(t)
	h := newHarness(t, nil, spec)
	th := h.thread("fake")
	ctx := context.Background()
	if _, err := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "hang"}); err != nil {
		t.Fatal(err)
	}
	h.enqueue(th, "echo first")
	h.enqueue(th, "echo second")
	waitUntil(t, "the hang prompt received", func() bool { return len(log.texts(t)) == 1 })
	h.close()
	h.open(engine.DefaultConfig(), []acp.AgentSpec{spec})
	want := []string{"hang", "echo first", "echo second"}
	waitUntil(t, "the queue sent after the restart", func() bool {
		return slices.Equal(h.inputs(th), want) && h.threadNow(th).Status == hub.ThreadIdle
	})
	if got := log.texts(t); !slices.Equal(got, want) {
		t.Fatalf("the agent received %q, want %q", got, want)
	}
}

// A limited thread with nothing queued keeps its reset across a restart:
// the hub that starts again re-arms the timer, and at the reset the limit
// is cleared (before: only a thread with a queued prompt was re-armed, so
// this one stayed "limited" until its next turn).
func TestLimitWithEmptyQueueRearmedAtRestart(t *testing.T) {
	clock := newFakeClock()
	spec, _ := promptSpec(t)
	h := newHarnessOn(t, clock, nil, spec)
	th := h.thread("fake")
	sub := h.watch(th)
	if got := h.run(th, sub, "rate-limit-error 600"); got.Status != hub.TurnFailed {
		t.Fatalf("turn %+v", got)
	}
	if got := h.threadNow(th); got.LimitedUntil == nil || got.Queued != 0 {
		t.Fatalf("limited thread: %+v", got)
	}
	h.close()
	h.open(engine.DefaultConfig(), []acp.AgentSpec{spec})
	clock.Advance(590 * time.Second)
	testkit.Never(t, 200*time.Millisecond, "the limit cleared before the reset", func() bool { return h.threadNow(th).LimitedUntil == nil })
	clock.Advance(20 * time.Second)
	waitUntil(t, "the limit cleared at the reset", func() bool { return h.threadNow(th).LimitedUntil == nil })
}
