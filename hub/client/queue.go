package client

import (
	"context"
	"net/http"

	"github.com/switchboard-hub/switchboard/hub"
)

// The threads' queued prompts (issue 33): the routes of
// /v1/threads/{id}/queue, and Remote's hub.QueueService over them.

// Enqueue queues a prompt on the thread (POST /v1/threads/{id}/queue).
func (c *Client) Enqueue(ctx context.Context, threadID string, in hub.TurnInput) (hub.QueuedPrompt, error) {
	var out struct {
		Queued hub.QueuedPrompt `json:"queued"`
	}
	err := c.call(ctx, request{method: http.MethodPost, path: "/v1/threads/" + esc(threadID) + "/queue", body: in}, &out)
	return out.Queued, err
}

// Queue lists the thread's queue, head first (GET /v1/threads/{id}/queue).
func (c *Client) Queue(ctx context.Context, threadID string) ([]hub.QueuedPrompt, error) {
	var out struct {
		Queue []hub.QueuedPrompt `json:"queue"`
	}
	err := c.call(ctx, request{method: http.MethodGet, path: "/v1/threads/" + esc(threadID) + "/queue"}, &out)
	return out.Queue, err
}

// EditQueued edits or moves a queued prompt (PATCH
// /v1/threads/{id}/queue/{qid}).
func (c *Client) EditQueued(ctx context.Context, threadID, queuedID string, e hub.QueueEdit) (hub.QueuedPrompt, error) {
	var out struct {
		Queued hub.QueuedPrompt `json:"queued"`
	}
	err := c.call(ctx, request{method: http.MethodPatch, path: "/v1/threads/" + esc(threadID) + "/queue/" + esc(queuedID), body: e}, &out)
	return out.Queued, err
}

// RemoveQueued removes a queued prompt unsent (DELETE
// /v1/threads/{id}/queue/{qid}).
func (c *Client) RemoveQueued(ctx context.Context, threadID, queuedID string) error {
	return c.call(ctx, request{method: http.MethodDelete, path: "/v1/threads/" + esc(threadID) + "/queue/" + esc(queuedID)}, nil)
}

// SendNext sends the head of the queue now (POST
// /v1/threads/{id}/queue/next).
func (c *Client) SendNext(ctx context.Context, threadID string) (hub.Turn, error) {
	var out struct {
		Turn hub.Turn `json:"turn"`
	}
	err := c.call(ctx, request{method: http.MethodPost, path: "/v1/threads/" + esc(threadID) + "/queue/next"}, &out)
	return out.Turn, err
}

// Enqueue implements hub.QueueService.
func (r *Remote) Enqueue(ctx context.Context, c hub.Caller, threadID string, in hub.TurnInput) (hub.QueuedPrompt, error) {
	return r.c.Enqueue(as(ctx, c), threadID, in)
}

// Queue implements hub.QueueService.
func (r *Remote) Queue(ctx context.Context, c hub.Caller, threadID string) ([]hub.QueuedPrompt, error) {
	return r.c.Queue(as(ctx, c), threadID)
}

// EditQueued implements hub.QueueService.
func (r *Remote) EditQueued(ctx context.Context, c hub.Caller, threadID, queuedID string, e hub.QueueEdit) (hub.QueuedPrompt, error) {
	return r.c.EditQueued(as(ctx, c), threadID, queuedID, e)
}

// RemoveQueued implements hub.QueueService.
func (r *Remote) RemoveQueued(ctx context.Context, c hub.Caller, threadID, queuedID string) error {
	return r.c.RemoveQueued(as(ctx, c), threadID, queuedID)
}

// SendNext implements hub.QueueService.
func (r *Remote) SendNext(ctx context.Context, c hub.Caller, threadID string) (hub.Turn, error) {
	return r.c.SendNext(as(ctx, c), threadID)
}

// MoveQueue moves a limited or paused thread's queue to a new thread with
// another agent, and returns that thread (POST
// /v1/threads/{id}/queue/move).
func (c *Client) MoveQueue(ctx context.Context, threadID string, req hub.QueueMoveRequest) (hub.Thread, error) {
	var out struct {
		Thread hub.Thread `json:"thread"`
	}
	err := c.call(ctx, request{method: http.MethodPost, path: "/v1/threads/" + esc(threadID) + "/queue/move", body: req}, &out)
	return out.Thread, err
}

// MoveQueue implements hub.QueueService.
func (r *Remote) MoveQueue(ctx context.Context, c hub.Caller, threadID string, req hub.QueueMoveRequest) (hub.Thread, error) {
	return r.c.MoveQueue(as(ctx, c), threadID, req)
}
