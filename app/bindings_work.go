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
