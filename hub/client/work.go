package client

import (
	"context"
	"net/http"
	"net/url"

	"github.com/switchboard-hub/switchboard/hub"
)

// The worktree, review and checkpoint calls (issue 19).

// DeleteThreadWith deletes a thread saying what becomes of a worktree
// thread's unmerged branch (DELETE /v1/threads/{id}?discard|keepBranch).
func (c *Client) DeleteThreadWith(ctx context.Context, id string, o hub.DeleteOptions) error {
	q := url.Values{}
	if o.Discard {
		q.Set("discard", "true")
	}
	if o.KeepBranch {
		q.Set("keepBranch", "true")
	}
	return c.call(ctx, request{method: http.MethodDelete, path: "/v1/threads/" + esc(id), query: q}, nil)
}

// GitFolder says whether path is in a git working tree (GET
// /v1/folders/git?path=).
func (c *Client) GitFolder(ctx context.Context, path string) (hub.GitFolder, error) {
	var out hub.GitFolder
	err := c.call(ctx, request{method: http.MethodGet, path: "/v1/folders/git", query: url.Values{"path": {path}}}, &out)
	return out, err
}

// MergeThread merges a worktree thread's branch into its base (POST
// /v1/threads/{id}/merge).
func (c *Client) MergeThread(ctx context.Context, id string) (hub.MergeResult, error) {
	var out hub.MergeResult
	err := c.call(ctx, request{method: http.MethodPost, path: "/v1/threads/" + esc(id) + "/merge"}, &out)
	return out, err
}

// DiscardThread removes a worktree thread's worktree and branch (POST
// /v1/threads/{id}/discard).
func (c *Client) DiscardThread(ctx context.Context, id string) (hub.Thread, error) {
	var out struct {
		Thread hub.Thread `json:"thread"`
	}
	err := c.call(ctx, request{method: http.MethodPost, path: "/v1/threads/" + esc(id) + "/discard"}, &out)
	return out.Thread, err
}

// Changes reads what a thread changed, since it started, in one turn or
// since a turn began (GET /v1/threads/{id}/changes?turn|since).
func (c *Client) Changes(ctx context.Context, id string, cq hub.ChangesQuery) (hub.Changes, error) {
	q := url.Values{}
	if cq.Turn != "" {
		q.Set("turn", cq.Turn)
	}
	if cq.Since != "" {
		q.Set("since", cq.Since)
	}
	var out hub.Changes
	err := c.call(ctx, request{method: http.MethodGet, path: "/v1/threads/" + esc(id) + "/changes", query: q}, &out)
	return out, err
}

// RevertChanges reverts files (POST /v1/threads/{id}/changes/revert).
func (c *Client) RevertChanges(ctx context.Context, id string, r hub.RevertRequest) (hub.RestoreResult, error) {
	var out hub.RestoreResult
	err := c.call(ctx, request{method: http.MethodPost, path: "/v1/threads/" + esc(id) + "/changes/revert", body: r}, &out)
	return out, err
}

// Checkpoints lists a thread's checkpoints (GET /v1/threads/{id}/checkpoints).
func (c *Client) Checkpoints(ctx context.Context, id string) ([]hub.Checkpoint, error) {
	var out struct {
		Checkpoints []hub.Checkpoint `json:"checkpoints"`
	}
	err := c.call(ctx, request{method: http.MethodGet, path: "/v1/threads/" + esc(id) + "/checkpoints"}, &out)
	return out.Checkpoints, err
}

// RestoreCheckpoint restores a thread's folder to before a turn (POST
// /v1/threads/{id}/checkpoints/{turnId}/restore).
func (c *Client) RestoreCheckpoint(ctx context.Context, id, turnID string) (hub.RestoreResult, error) {
	var out hub.RestoreResult
	err := c.call(ctx, request{method: http.MethodPost, path: "/v1/threads/" + esc(id) + "/checkpoints/" + esc(turnID) + "/restore"}, &out)
	return out, err
}

// Landing a worktree thread's work (issue 31).

// CommitSuggestion reads what Commit would commit and its suggested
// message (GET /v1/threads/{id}/commit).
func (c *Client) CommitSuggestion(ctx context.Context, id string) (hub.CommitSuggestion, error) {
	var out hub.CommitSuggestion
	err := c.call(ctx, request{method: http.MethodGet, path: "/v1/threads/" + esc(id) + "/commit"}, &out)
	return out, err
}

// CommitThread commits a worktree thread's uncommitted work onto its
// branch (POST /v1/threads/{id}/commit).
func (c *Client) CommitThread(ctx context.Context, id string, r hub.CommitRequest) (hub.CommitResult, error) {
	var out hub.CommitResult
	err := c.call(ctx, request{method: http.MethodPost, path: "/v1/threads/" + esc(id) + "/commit", body: r}, &out)
	return out, err
}

// PushThread pushes a worktree thread's branch (POST /v1/threads/{id}/push).
func (c *Client) PushThread(ctx context.Context, id string) (hub.PushResult, error) {
	var out hub.PushResult
	err := c.call(ctx, request{method: http.MethodPost, path: "/v1/threads/" + esc(id) + "/push"}, &out)
	return out, err
}

// CancelSetup stops a worktree thread's running setup (POST
// /v1/threads/{id}/setup/cancel).
func (c *Client) CancelSetup(ctx context.Context, id string) (hub.Thread, error) {
	var out struct {
		Thread hub.Thread `json:"thread"`
	}
	err := c.call(ctx, request{method: http.MethodPost, path: "/v1/threads/" + esc(id) + "/setup/cancel"}, &out)
	return out.Thread, err
}
