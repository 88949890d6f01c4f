package engine

import (
	"context"
	"errors"
	"slices"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/gitwork"
)

// beforeTurn takes the checkpoint before turn, on t's snapshot lane
// (snapshots.go: queued once the turn is registered on its thread and
// admitted, run while the prompt already goes to the agent): a turn (not
// an internal one, such as compaction's, which changes no file) in a git
// working tree gets its checkpoint. A checkpoint that fails is logged: the
// turn runs without one. (A thread whose worktree was discarded takes no
// turn at all: startTurnAs refuses it, CONFLICT.)
func (e *Engine) beforeTurn(ctx context.Context, t hub.Thread, turn hub.Turn) {
	if turn.Internal {
		return
	}
	r, err := openThread(ctx, t)
	if err != nil {
		e.logForeignGitDir(t.ID, err)
		return // not a git working tree: no checkpoints
	}
	ref := gitwork.CheckpointRef(t.ID, turn.ID)
	if _, err := gitwork.Checkpoint(ctx, r, ref, gitwork.CheckpointMessage(turn.StartedAt.UnixNano())); err != nil {
		e.log.Warn("hub: checkpoint failed", "thread", t.ID, "turn", turn.ID, "err", err)
	}
}

// afterTurn snapshots the folder of a turn (not an internal one) that
// ends in a git working tree, so that a later revert can tell what changed
// since the agent's last turn (RevertChanges) and overlaps can be checked
// (overlaps.go); it runs on the thread's snapshot lane, after the turn's
// checkpoint. It returns the checkout and the snapshot's commit ("" when
// it stored none; a failure is logged).
func (e *Engine) afterTurn(ctx context.Context, tr *turnRT) (gitwork.Repo, string) {
	if tr.turn.Internal {
		return gitwork.Repo{}, ""
	}
	r, err := openThread(ctx, tr.thread)
	if err != nil {
		e.logForeignGitDir(tr.thread.ID, err)
		return r, ""
	}
	ref := gitwork.TurnEndRef(tr.thread.ID, tr.turn.ID)
	end, err := gitwork.Checkpoint(ctx, r, ref, gitwork.CheckpointMessage(e.now().UnixNano()))
	if err != nil {
		e.log.Warn("hub: turn-end snapshot failed", "thread", tr.thread.ID, "turn", tr.turn.ID, "err", err)
		return r, ""
	}
	return r, end
}

// changedSinceLastTurn returns which of paths differ now from the end of
// the thread's last turn: someone else changed them since, and a revert
// would lose that.
func changedSinceLastTurn(ctx context.Context, r gitwork.Repo, threadID string, paths []string) ([]string, error) {
	ends, err := gitwork.TurnEnds(ctx, r.Top, threadID)
	if err != nil || len(ends) == 0 {
		return nil, err
	}
	changed, err := gitwork.Changed(ctx, r, ends[len(ends)-1].Commit, "")
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, p := range paths {
		want[p] = true
	}
	var out []string
	for _, p := range changed {
		if want[p] {
			out = append(out, p)
		}
	}
	return out, nil
}

// openThread opens the git working tree the thread's agent runs in; a
// live worktree only once gitwork.OpenWorktree found it is still the
// worktree the hub made (else a *gitwork.GitDirError, and no git ran in
// it).
func openThread(ctx context.Context, t hub.Thread) (gitwork.Repo, error) {
	if w := t.Worktree; w != nil && !w.Discarded && w.Path != "" {
		return gitwork.OpenWorktree(ctx, gitTree(w))
	}
	return gitwork.Open(ctx, agentDir(t))
}

// logForeignGitDir logs a worktree the hub refused (openThread).
func (e *Engine) logForeignGitDir(thread string, err error) {
	var ge *gitwork.GitDirError
	if errors.As(err, &ge) {
		e.log.Warn("hub: a worktree's git dir is not the hub's: no checkpoint", "thread", thread, "err", err)
	}
}

// threadRepo opens the git working tree the thread's agent runs in. A
// worktree that is not the one the hub made is CONFLICT (gitDirError).
func threadRepo(ctx context.Context, t hub.Thread) (gitwork.Repo, error) {
	r, err := openThread(ctx, t)
	if ge := gitDirError(err); ge != nil {
		return r, ge
	}
	if err != nil && !errors.Is(err, gitwork.ErrNotRepo) && !errors.Is(err, gitwork.ErrNotWorkTree) {
		return r, &hub.Error{Code: hub.CodeInternal, Message: "git failed", Err: err}
	}
	return r, err
}

// gitDirError is the CONFLICT (reason WORKTREE_GITDIR) of a
// *gitwork.GitDirError, nil for any other error.
func gitDirError(err error) *hub.Error {
	var ge *gitwork.GitDirError
	if !errors.As(err, &ge) {
		return nil
	}
	return &hub.Error{Code: hub.CodeConflict, Message: ge.Error(), Details: map[string]any{"reason": "WORKTREE_GITDIR"}, Err: err}
}

// ListCheckpoints implements hub.WorkService.
func (e *Engine) ListCheckpoints(ctx context.Context, c hub.Caller, id string) ([]hub.Checkpoint, error) {
	t, err := e.visibleThread(ctx, c, id)
	if err != nil {
		return nil, err
	}
	if err := e.settleSnapshots(ctx, t.ID); err != nil { // snapshots.go
		return nil, err
	}
	out := []hub.Checkpoint{}
	r, err := threadRepo(ctx, t)
	if err != nil {
		return out, nil
	}
	cps, err := gitwork.Checkpoints(ctx, r.Top, t.ID)
	if err != nil {
		return nil, &hub.Error{Code: hub.CodeInternal, Message: "git failed", Err: err}
	}
	for _, cp := range cps {
		out = append(out, hub.Checkpoint{TurnID: cp.Turn, Commit: cp.Commit, Ref: cp.Ref})
	}
	return out, nil
}

// checkpointOf finds the thread's checkpoint before turnID and the one
// after it ("" when it is the last).
func checkpointOf(ctx context.Context, r gitwork.Repo, threadID, turnID string) (cp, next string, err error) {
	cps, err := gitwork.Checkpoints(ctx, r.Top, threadID)
	if err != nil {
		return "", "", &hub.Error{Code: hub.CodeInternal, Message: "git failed", Err: err}
	}
	for i, c := range cps {
		if c.Turn == turnID {
			if i+1 < len(cps) {
				next = cps[i+1].Commit
			}
			return c.Commit, next, nil
		}
	}
	return "", "", hub.Errorf(hub.CodeNotFound, "turn %s of thread %s has no checkpoint", turnID, threadID)
}

// threadStart is the commit a thread's changes are diffed against: its
// worktree's base commit, else its first checkpoint ("" when it has
// none).
func threadStart(ctx context.Context, r gitwork.Repo, t hub.Thread) (string, error) {
	if w := t.Worktree; w != nil && !w.Discarded {
		return w.BaseCommit, nil
	}
	cps, err := gitwork.Checkpoints(ctx, r.Top, t.ID)
	if err != nil {
		return "", &hub.Error{Code: hub.CodeInternal, Message: "git failed", Err: err}
	}
	if len(cps) == 0 {
		return "", nil
	}
	return cps[0].Commit, nil
}

// Changes implements hub.WorkService.
func (e *Engine) Changes(ctx context.Context, c hub.Caller, id string, q hub.ChangesQuery) (hub.Changes, error) {
	if q.Turn != "" && q.Since != "" {
		return hub.Changes{}, hub.Errorf(hub.CodeInvalidArgument, "give turn or since, not both")
	}
	t, err := e.visibleThread(ctx, c, id)
	if err != nil {
		return hub.Changes{}, err
	}
	if err := e.settleSnapshots(ctx, t.ID); err != nil { // snapshots.go
		return hub.Changes{}, err
	}
	r, err := threadRepo(ctx, t)
	if err != nil {
		if ge := (*hub.Error)(nil); errors.As(err, &ge) {
			return hub.Changes{}, err
		}
		return e.reportedChanges(ctx, c, t, q)
	}
	from, to := "", ""
	switch {
	case q.Turn != "":
		if from, to, err = checkpointOf(ctx, r, t.ID, q.Turn); err != nil {
			return hub.Changes{}, err
		}
	case q.Since != "":
		if from, _, err = checkpointOf(ctx, r, t.ID, q.Since); err != nil {
			return hub.Changes{}, err
		}
	default:
		if from, err = threadStart(ctx, r, t); err != nil {
			return hub.Changes{}, err
		}
	}
	ch := hub.Changes{Source: "git", Base: from, Files: []hub.FileChange{}}
	if from == "" {
		return ch, nil
	}
	files, err := gitwork.Diff(ctx, r, from, to)
	if err != nil {
		return hub.Changes{}, &hub.Error{Code: hub.CodeInternal, Message: "git diff failed", Err: err}
	}
	for _, f := range files {
		ch.Files = append(ch.Files, hub.FileChange(f))
	}
	return ch, nil
}

// idleRepo is RestoreCheckpoint's and RevertChanges' start: thread id,
// idle (idleThread), its snapshots settled, and its git repository;
// notRepo when its folder is not a git working tree (a broken .git is
// gitDirError's).
func (e *Engine) idleRepo(ctx context.Context, c hub.Caller, id string, notRepo error) (hub.Thread, gitwork.Repo, error) {
	t, _, err := e.idleThread(ctx, c, id)
	if err != nil {
		return t, gitwork.Repo{}, err
	}
	if err := e.settleSnapshots(ctx, t.ID); err != nil { // snapshots.go
		return t, gitwork.Repo{}, err
	}
	r, err := threadRepo(ctx, t)
	if ge := gitDirError(err); ge != nil {
		return t, r, ge
	} else if err != nil {
		return t, r, notRepo
	}
	return t, r, nil
}

// RestoreCheckpoint implements hub.WorkService.
func (e *Engine) RestoreCheckpoint(ctx context.Context, c hub.Caller, id, turnID string) (hub.RestoreResult, error) {
	t, r, err := e.idleRepo(ctx, c, id, hub.Errorf(hub.CodeNotFound, "thread %s has no checkpoints: its folder is not a git working tree", id))
	if err != nil {
		return hub.RestoreResult{}, err
	}
	cp, _, err := checkpointOf(ctx, r, t.ID, turnID)
	if err != nil {
		return hub.RestoreResult{}, err
	}
	return e.restore(ctx, t, r, cp, turnID, nil)
}

// RevertChanges implements hub.WorkService.
func (e *Engine) RevertChanges(ctx context.Context, c hub.Caller, id string, rq hub.RevertRequest) (hub.RestoreResult, error) {
	t, r, err := e.idleRepo(ctx, c, id, hub.Errorf(hub.CodeInvalidArgument, "the thread's folder is not a git working tree: there is nothing to revert to"))
	if err != nil {
		return hub.RestoreResult{}, err
	}
	from := ""
	if rq.SinceTurn != "" {
		if from, _, err = checkpointOf(ctx, r, t.ID, rq.SinceTurn); err != nil {
			return hub.RestoreResult{}, err
		}
	} else if from, err = threadStart(ctx, r, t); err != nil {
		return hub.RestoreResult{}, err
	}
	if from == "" {
		return hub.RestoreResult{Files: []string{}}, nil
	}
	targets, err := gitwork.Changed(ctx, r, from, "")
	if err != nil {
		return hub.RestoreResult{}, &hub.Error{Code: hub.CodeInternal, Message: "git diff failed", Err: err}
	}
	if rq.Path != "" {
		targets = slices.DeleteFunc(targets, func(p string) bool { return p != rq.Path })
	}
	if !rq.Force {
		clash, err := changedSinceLastTurn(ctx, r, t.ID, targets)
		if err != nil {
			return hub.RestoreResult{}, &hub.Error{Code: hub.CodeInternal, Message: "git diff failed", Err: err}
		}
		if len(clash) > 0 {
			return hub.RestoreResult{}, &hub.Error{Code: hub.CodeConflict, Message: "these files changed since the agent's last turn: reverting would lose those changes",
				Details: map[string]any{"files": clash, "reason": "CHANGED_SINCE"}}
		}
	}
	return e.restore(ctx, t, r, from, rq.SinceTurn, targets)
}

// restore brings the thread's folder (only the paths in only, when set)
// back to the commit from and emits checkpoint_restored {turnId, files}.
func (e *Engine) restore(ctx context.Context, t hub.Thread, r gitwork.Repo, from, turnID string, only []string) (hub.RestoreResult, error) {
	var files []string
	var err error
	if only != nil && len(only) == 0 {
		files = []string{}
	} else if only != nil {
		files, err = gitwork.RestorePaths(ctx, r, from, only)
	} else {
		files, err = gitwork.Restore(ctx, r, from)
	}
	if files == nil {
		files = []string{}
	}
	if err != nil {
		return hub.RestoreResult{Files: files}, &hub.Error{Code: hub.CodeInternal, Message: "restoring failed: " + gitMessage(err), Err: err}
	}
	ev, err := hub.NewEvent(hub.EventCheckpointRestored, t, "", e.now(), map[string]any{"turnId": turnID, "commit": from, "files": files})
	if err == nil {
		err = e.commit(&hub.Write{Events: []hub.Event{ev}})
	}
	return hub.RestoreResult{Files: files}, err
}
