package hostmirror

import (
	"context"

	"github.com/switchboard-hub/switchboard/hub"
)

// queueRouter forwards the queue calls on a host's thread to that host
// (issue 33: the queue lives on the hub where the thread runs, which
// sends it), and leaves a local thread's to the local QueueService. A
// host's queued prompts come back with local ids ("<id>@<host>").
type queueRouter struct {
	hub.QueueService
	r *Router
}

func localQueued(host string, q hub.QueuedPrompt) hub.QueuedPrompt {
	q.ID, q.ThreadID = hub.HostID(q.ID, host), hub.HostID(q.ThreadID, host)
	return q
}

// Enqueue implements hub.QueueService.
func (q *queueRouter) Enqueue(ctx context.Context, c hub.Caller, threadID string, in hub.TurnInput) (hub.QueuedPrompt, error) {
	rem, rid, host, ok, err := q.r.on(threadID)
	if !ok {
		return q.QueueService.Enqueue(ctx, c, threadID, in)
	}
	if err != nil {
		return hub.QueuedPrompt{}, err
	}
	got, err := rem.Enqueue(ctx, c, rid, in)
	if err != nil {
		return hub.QueuedPrompt{}, fail(host, err)
	}
	return localQueued(host, got), nil
}

// Queue implements hub.QueueService.
func (q *queueRouter) Queue(ctx context.Context, c hub.Caller, threadID string) ([]hub.QueuedPrompt, error) {
	rem, rid, host, ok, err := q.r.on(threadID)
	if !ok {
		return q.QueueService.Queue(ctx, c, threadID)
	}
	if err != nil {
		return nil, err
	}
	list, err := rem.Queue(ctx, c, rid)
	if err != nil {
		return nil, fail(host, err)
	}
	for i := range list {
		list[i] = localQueued(host, list[i])
	}
	return list, nil
}

// EditQueued implements hub.QueueService.
func (q *queueRouter) EditQueued(ctx context.Context, c hub.Caller, threadID, queuedID string, e hub.QueueEdit) (hub.QueuedPrompt, error) {
	rem, rid, host, ok, err := q.r.on(threadID)
	if !ok {
		return q.QueueService.EditQueued(ctx, c, threadID, queuedID, e)
	}
	if err != nil {
		return hub.QueuedPrompt{}, err
	}
	qid, _ := hub.SplitHostID(queuedID)
	got, err := rem.EditQueued(ctx, c, rid, qid, e)
	if err != nil {
		return hub.QueuedPrompt{}, fail(host, err)
	}
	return localQueued(host, got), nil
}

// RemoveQueued implements hub.QueueService.
func (q *queueRouter) RemoveQueued(ctx context.Context, c hub.Caller, threadID, queuedID string) error {
	rem, rid, host, ok, err := q.r.on(threadID)
	if !ok {
		return q.QueueService.RemoveQueued(ctx, c, threadID, queuedID)
	}
	if err != nil {
		return err
	}
	qid, _ := hub.SplitHostID(queuedID)
	return fail(host, rem.RemoveQueued(ctx, c, rid, qid))
}

// SendNext implements hub.QueueService.
func (q *queueRouter) SendNext(ctx context.Context, c hub.Caller, threadID string) (hub.Turn, error) {
	rem, rid, host, ok, err := q.r.on(threadID)
	if !ok {
		return q.QueueService.SendNext(ctx, c, threadID)
	}
	if err != nil {
		return hub.Turn{}, err
	}
	t, err := rem.SendNext(ctx, c, rid)
	if err != nil {
		return hub.Turn{}, fail(host, err)
	}
	return localTurn(host, t), nil
}

// MoveQueue implements hub.QueueService: the new thread is the host's
// (the queue moves on the hub where it lives).
func (q *queueRouter) MoveQueue(ctx context.Context, c hub.Caller, threadID string, req hub.QueueMoveRequest) (hub.Thread, error) {
	rem, rid, host, ok, err := q.r.on(threadID)
	if !ok {
		return q.QueueService.MoveQueue(ctx, c, threadID, req)
	}
	if err != nil {
		return hub.Thread{}, err
	}
	t, err := rem.MoveQueue(ctx, c, rid, req)
	if err != nil {
		return hub.Thread{}, fail(host, err)
	}
	return localThread(host, t), nil
}
