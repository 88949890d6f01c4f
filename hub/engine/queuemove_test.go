//go:build unix

package engine_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/engine"
)

// A limited thread's queue moves to a new thread with another agent
// (ADR 0052): the prompts leave the first queue and are sent on the new
// thread, each once, in order; the new agent's first prompt opens with
// the first thread's context block; the threads are linked both ways.
// Moving it again, to the same agent, or from a thread that is neither
// limited nor paused is refused.
func TestMoveQueueToAnotherAgent(t *testing.T) {
	spec, logA := promptSpec(t)
	fileB := filepath.Join(t.TempDir(), "prompts-b.jsonl")
	specB, logB := fakeSpec(t, "other", "FAKEAGENT_PROMPTS="+fileB), promptLog(fileB)
	h := newHarness(t, nil, spec, specB)
	th := h.thread("fake")
	sub := h.watch(th)
	ctx := context.Background()
	h.run(th, sub, "echo the parser is in lexer.go")
	if _, err := h.e.MoveQueue(ctx, alice, th.ID, hub.QueueMoveRequest{AgentID: "other"}); hub.ErrorCode(err) != hub.CodeConflict {
		t.Fatalf("moving the queue of a thread that is not limited: %v, want CONFLICT", err)
	}
	if limited := h.run(th, sub, "rate-limit-error 600"); limited.Status != hub.TurnFailed {
		t.Fatalf("turn %+v", limited)
	}
	h.enqueue(th, "echo one")
	h.enqueue(th, "echo two")
	if _, err := h.e.MoveQueue(ctx, alice, th.ID, hub.QueueMoveRequest{AgentID: "fake"}); hub.ErrorCode(err) != hub.CodeInvalidArgument {
		t.Fatalf("moving the queue to the thread's own agent: %v, want INVALID_ARGUMENT", err)
	}
	if _, err := h.e.MoveQueue(ctx, alice, th.ID, hub.QueueMoveRequest{AgentID: "nobody"}); hub.ErrorCode(err) != hub.CodeInvalidArgument {
		t.Fatalf("moving the queue to an unknown agent: %v, want INVALID_ARGUMENT", err)
	}

	nt, err := h.e.MoveQueue(ctx, alice, th.ID, hub.QueueMoveRequest{AgentID: "other"})
	if err != nil {
		t.Fatal(err)
	}
	if nt.Agent != "other" || nt.Cwd != th.Cwd || nt.ContinuedFrom != th.ID || nt.ID == th.ID || nt.Title != th.Title+" (continued)" {
		t.Fatalf("the new thread: %+v", nt)
	}
	want := []string{"echo one", "echo two"}
	waitUntil(t, "the moved queue sent on the new thread", func() bool {
		return slices.Equal(h.inputs(nt), want) && h.threadNow(nt).Status == hub.ThreadIdle
	})
	if got := logB.texts(t); !slices.Equal(got, want) {
		t.Fatalf("the other agent received %q, want %q", got, want)
	}
	first := logB.blocks(t)[0]
	if len(first) != 2 || !strings.Contains(first[0], "continues one held with another agent") || !strings.Contains(first[0], "the parser is in lexer.go") {
		t.Fatalf("the other agent's first prompt: %q, want the first thread's context block then the prompt", first)
	}
	if got := logA.texts(t); !slices.Equal(got, []string{"echo the parser is in lexer.go", "rate-limit-error 600"}) {
		t.Fatalf("the first agent received %q", got)
	}
	old := h.threadNow(th)
	if old.ContinuedIn != nt.ID || old.Queued != 0 || old.QueuePaused != "" {
		t.Fatalf("the first thread after the move: %+v", old)
	}
	if q, _ := h.e.Queue(ctx, alice, th.ID); len(q) != 0 {
		t.Fatalf("the first thread's queue: %+v", q)
	}
	if _, err := h.e.MoveQueue(ctx, alice, th.ID, hub.QueueMoveRequest{AgentID: "other"}); hub.ErrorCode(err) != hub.CodeConflict {
		t.Fatalf("moving a moved queue again: %v, want CONFLICT", err)
	}
}

// A worktree thread's queue moves into the same worktree: the new thread
// adopts it, and so does the first, so that deleting the first leaves the
// worktree to the new one.
func TestMoveQueueSharesTheWorktree(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed: ", err)
	}
	spec, _ := promptSpec(t)
	specB := fakeSpec(t, "other")
	h := newHarness(t, func(c *engine.Config) { c.WorktreeLocation = t.TempDir() }, spec, specB)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"commit", "-q", "--allow-empty", "-m", "init"}} {
		c := exec.Command("git", args...)
		c.Dir = h.cwd
		c.Env = append(os.Environ(), "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	ctx := context.Background()
	th, err := h.e.CreateThread(ctx, alice, hub.CreateThreadRequest{Agent: "fake", Cwd: h.cwd, Worktree: &hub.WorktreeRequest{On: true}})
	if err != nil || th.Worktree == nil {
		t.Fatalf("worktree thread %+v: %v", th.Worktree, err)
	}
	sub := h.watch(th)
	h.run(th, sub, "rate-limit-error 600")
	h.enqueue(th, "echo one")
	nt, err := h.e.MoveQueue(ctx, alice, th.ID, hub.QueueMoveRequest{AgentID: "other"})
	if err != nil {
		t.Fatal(err)
	}
	if nt.Worktree == nil || nt.Worktree.Path != th.Worktree.Path || nt.Worktree.Branch != th.Worktree.Branch || !nt.Worktree.Adopted {
		t.Fatalf("the new thread's worktree %+v, want %s adopted", nt.Worktree, th.Worktree.Path)
	}
	if old := h.threadNow(th); old.Worktree == nil || !old.Worktree.Adopted {
		t.Fatalf("the first thread's worktree %+v, want it shared (adopted)", old.Worktree)
	}
	waitUntil(t, "the moved prompt sent", func() bool { return h.threadNow(nt).Status == hub.ThreadIdle && len(h.inputs(nt)) == 1 })
	if err := h.e.DeleteThread(ctx, alice, th.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(nt.Worktree.Path); err != nil {
		t.Fatalf("deleting the first thread removed the shared worktree: %v", err)
	}
}
