package app

import "github.com/switchboard-hub/switchboard/hub"

// The window's worktree, review and checkpoint bindings (issue 19): one
// call each of hub.Services.Work, as the window (NOT_FOUND when the hub
// has none).

func (b *Bindings) work() (hub.WorkService, error) {
	if b.svcs.Work == nil {
		return nil, hub.ErrNoWork
	}
	return b.svcs.Work, nil
}

// DeleteThreadWith is WorkService.DeleteThreadWith (DELETE
// /v1/threads/{id}?discard|keepBranch).
func (b *Bindings) DeleteThreadWith(id string, o hub.DeleteOptions) error {
	ws, err := b.work()
	if err != nil {
		return err
	}
	return ws.DeleteThreadWith(b.ctx, windowCaller, id, o)
}

// GitFolder is WorkService.GitFolder (GET /v1/folders/git?path=).
func (b *Bindings) GitFolder(path string) (hub.GitFolder, error) {
	ws, err := b.work()
	if err != nil {
		return hub.GitFolder{}, err
	}
	return ws.GitFolder(b.ctx, windowCaller, path)
}

// MergeThread is WorkService.MergeThread (POST /v1/threads/{id}/merge).
func (b *Bindings) MergeThread(id string) (hub.MergeResult, error) {
	ws, err := b.work()
	if err != nil {
		return hub.MergeResult{}, err
	}
	return ws.MergeThread(b.ctx, windowCaller, id)
}

// DiscardThread is WorkService.DiscardThread (POST /v1/threads/{id}/discard).
func (b *Bindings) DiscardThread(id string) (hub.Thread, error) {
	ws, err := b.work()
	if err != nil {
		return hub.Thread{}, err
	}
	return ws.DiscardThread(b.ctx, windowCaller, id)
}

// Changes is WorkService.Changes (GET /v1/threads/{id}/changes[?turn|since]).
func (b *Bindings) Changes(id string, q hub.ChangesQuery) (hub.Changes, error) {
	ws, err := b.work()
	if err != nil {
		return hub.Changes{}, err
	}
	return ws.Changes(b.ctx, windowCaller, id, q)
}

// RevertChanges is WorkService.RevertChanges (POST
// /v1/threads/{id}/changes/revert).
func (b *Bindings) RevertChanges(id string, r hub.RevertRequest) (hub.RestoreResult, error) {
	ws, err := b.work()
	if err != nil {
		return hub.RestoreResult{}, err
	}
	return ws.RevertChanges(b.ctx, windowCaller, id, r)
}

// ListCheckpoints is WorkService.ListCheckpoints (GET
// /v1/threads/{id}/checkpoints).
func (b *Bindings) ListCheckpoints(id string) ([]hub.Checkpoint, error) {
	ws, err := b.work()
	if err != nil {
		return nil, err
	}
	return ws.ListCheckpoints(b.ctx, windowCaller, id)
}

// RestoreCheckpoint is WorkService.RestoreCheckpoint (POST
// /v1/threads/{id}/checkpoints/{turnId}/restore).
func (b *Bindings) RestoreCheckpoint(id, turnID string) (hub.RestoreResult, error) {
	ws, err := b.work()
	if err != nil {
		return hub.RestoreResult{}, err
	}
	return ws.RestoreCheckpoint(b.ctx, windowCaller, id, turnID)
}

// CommitSuggestion is WorkService.CommitSuggestion (GET /v1/threads/{id}/commit).
func (b *Bindings) CommitSuggestion(id string) (hub.CommitSuggestion, error) {
	ws, err := b.work()
	if err != nil {
		return hub.CommitSuggestion{}, err
	}
	return ws.CommitSuggestion(b.ctx, windowCaller, id)
}

// CommitThread is WorkService.CommitThread (POST /v1/threads/{id}/commit).
func (b *Bindings) CommitThread(id string, r hub.CommitRequest) (hub.CommitResult, error) {
	ws, err := b.work()
	if err != nil {
		return hub.CommitResult{}, err
	}
	return ws.CommitThread(b.ctx, windowCaller, id, r)
}

// PushThread is WorkService.PushThread (POST /v1/threads/{id}/push).
func (b *Bindings) PushThread(id string) (hub.PushResult, error) {
	ws, err := b.work()
	if err != nil {
		return hub.PushResult{}, err
	}
	return ws.PushThread(b.ctx, windowCaller, id)
}

// OpenPullRequest opens the forge's page to open a pull request of the
// worktree thread's pushed branch in the user's browser (issue 31). The
// window names the thread, not the URL: the one opened is the thread's
// Worktree.PullRequestURL, which the hub set when it pushed the branch
// to a remote on GitHub, GitLab or Gitea. INVALID_ARGUMENT before such a
// push.
func (b *Bindings) OpenPullRequest(threadID string) error {
	t, err := b.svcs.Service.GetThread(b.ctx, windowCaller, threadID)
	if err != nil {
		return err
	}
	if t.Worktree == nil || t.Worktree.PullRequestURL == "" {
		return hub.Errorf(hub.CodeInvalidArgument, "push the branch to a GitHub, GitLab or Gitea remote first: there is no pull request page to open")
	}
	if err := hub.CheckElicitationURL(t.Worktree.PullRequestURL); err != nil {
		return err
	}
	o, ok := b.emit.(urlOpener)
	if !ok {
		return hub.Errorf(hub.CodeInternal, "this window cannot open a browser")
	}
	return o.OpenURL(t.Worktree.PullRequestURL)
}

// CancelSetup is WorkService.CancelSetup (POST /v1/threads/{id}/setup/cancel).
func (b *Bindings) CancelSetup(id string) (hub.Thread, error) {
	ws, err := b.work()
	if err != nil {
		return hub.Thread{}, err
	}
	return ws.CancelSetup(b.ctx, windowCaller, id)
}
