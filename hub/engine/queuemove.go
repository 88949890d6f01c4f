package engine

import (
	"context"
	"strings"

	"github.com/switchboard-hub/switchboard/hub"
)

// A limited thread's queue moved to another agent (issue 33, ADR 0052):
// hub.QueueService.MoveQueue.
//
// What is guaranteed: the new thread, the prompts leaving the first
// queue (hub.Write.Dequeue), the same prompts joining the new queue (new
// ids, the same order, text and content), the link both ways and the
// events of both threads are one Write, so one store transaction. A
// crash leaves the prompts in exactly one queue: the first (nothing
// committed) or the new one (all committed). The first thread's queue
// lock is held from reading its queue to the commit, so no head of it is
// sent meanwhile; and a head sent before the lock was taken is no longer
// in the queue read. The new thread sends its head as any idle thread
// does (kickQueue), once committed.
//
// The new thread runs in the same folder and the same working copy as
// the first (its worktree adopted by both: deleting either thread leaves
// it to the other, and to the user once both are gone), with the first thread's extra folders; its sessions open
// with the first thread's context block (movedContext), the builder
// compaction and a lost session use (contextBlock).

// contextMovedHead heads the context block of a thread continued from
// another (ContinuedFrom).
const contextMovedHead = "[Switchboard] This conversation continues one held with another agent, whose usage limit was reached. Context follows; the user's next message comes after it.\n"

// MoveQueue implements hub.QueueService.
func (e *Engine) MoveQueue(ctx context.Context, c hub.Caller, threadID string, req hub.QueueMoveRequest) (hub.Thread, error) {
	t, err := e.visibleThread(ctx, c, threadID)
	if err != nil {
		return hub.Thread{}, err
	}
	switch {
	case req.AgentID == "":
		return hub.Thread{}, hub.Errorf(hub.CodeInvalidArgument, `"agentId" names the agent the queue moves to`)
	case req.AgentID == t.Agent:
		return hub.Thread{}, hub.Errorf(hub.CodeInvalidArgument, "thread %s runs %s already: choose another agent", t.ID, t.Agent)
	case t.ContinuedIn != "":
		return hub.Thread{}, hub.Errorf(hub.CodeConflict, "the queue of thread %s moved to %s already", t.ID, t.ContinuedIn)
	case t.Worktree != nil && t.Worktree.Discarded:
		return hub.Thread{}, hub.Errorf(hub.CodeConflict, "thread %s's worktree was discarded: there is nothing to continue in", t.ID)
	}
	unlock := e.queues.lock(t.ID)
	defer unlock()
	if t, err = e.store.GetThread(ctx, t.ID); err != nil { // as the lock found it
		return hub.Thread{}, err
	}
	limited := t.LimitedUntil != nil && e.until(*t.LimitedUntil) > 0
	switch {
	case t.Status == hub.ThreadRunning:
		return hub.Thread{}, hub.Errorf(hub.CodeConflict, "a turn runs on thread %s: its queue moves only while it waits", t.ID)
	case !limited && t.QueuePaused == "":
		return hub.Thread{}, hub.Errorf(hub.CodeConflict, "thread %s is neither limited nor paused: its queue is sent here", t.ID)
	}
	nt, err := e.newThread(ctx, c, hub.CreateThreadRequest{Agent: req.AgentID, Cwd: t.Cwd, Title: continuedTitle(t.Title),
		AdditionalDirectories: t.AdditionalDirectories, Worktree: &hub.WorktreeRequest{}}) // no worktree of its own
	if err != nil {
		return hub.Thread{}, err
	}
	if w := t.Worktree; w != nil {
		nt.Worktree = &hub.Worktree{Path: w.Path, Top: w.Top, Branch: w.Branch, Base: w.Base, BaseCommit: w.BaseCommit, Repo: w.Repo, Adopted: true}
	}
	nt.ContinuedFrom = t.ID
	list, err := e.store.QueuedPrompts(ctx, t.ID)
	if err != nil {
		return hub.Thread{}, err
	}
	now := e.now()
	w := &hub.Write{Threads: []hub.Thread{nt}, Events: []hub.Event{threadCreated(nt)}}
	for i, q := range list {
		w.Dequeue = append(w.Dequeue, q.ID)
		ev, _ := hub.NewEvent(hub.EventPromptDequeued, t, "", now, map[string]any{"queuedId": q.ID, "reason": hub.DequeuedMoved, "movedTo": nt.ID})
		w.Events = append(w.Events, ev)
		moved := hub.QueuedPrompt{ID: newID("qp"), ThreadID: nt.ID, Position: i, Input: q.Input, Content: q.Content, CreatedAt: q.CreatedAt, UpdatedAt: now}
		w.Queued = append(w.Queued, moved)
		e.queuedEvents(w, nt, moved)
	}
	running := ""
	first := hub.ThreadChange{ThreadID: t.ID, ContinuedIn: &nt.ID, QueuePaused: &running, UpdatedAt: now, Announce: true}
	if wt := t.Worktree; wt != nil && !wt.Adopted {
		shared := *wt // shared now: deleting the first thread must not remove it from under the new one
		shared.Adopted = true
		first.Worktree = &shared
	}
	w.ThreadChanges = []hub.ThreadChange{first, {ThreadID: nt.ID, Announce: true}} // one announcement each (queuedEvents added one per prompt)
	if err := e.commit(w); err != nil {
		return hub.Thread{}, err
	}
	e.log.Info("hub: a thread's queue moved to another agent", "thread", t.ID, "to", nt.ID, "agent", nt.Agent, "prompts", len(list))
	e.threadCreated(ctx, nt, hub.CreateThreadRequest{})
	e.kickQueue(nt.ID) // sent as on any idle thread
	return w.ThreadChanges[1].Thread, nil
}

// continuedTitle is the title of the thread a queue moved to: the first
// one's, marked, within the 200 characters of a title.
func continuedTitle(title string) string {
	const mark = " (continued)"
	if strings.HasSuffix(title, mark) {
		return title // moved again: marked once
	}
	if r := []rune(title); len(r) > 200-len(mark) {
		title = string(r[:200-len(mark)])
	}
	return title + mark
}
