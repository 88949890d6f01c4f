package engine

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/gitwork"
)

// beforeTurn takes the checkpoint before turn, on t's snapshot lane
// (snapshots.go: queued once the turn is registered on its thread and
// admitted, run while the prompt already goes to the agent): a turn (not
// an internal one, such as compaction's, which changes no file) in a git
// working tree gets its checkpoint. A checkpoint that fails is logged: the
// turn runs without one. (A thread whose worktree was discarded takes no
// turn at all: startTurnAs refuses it, CONFLICT.) Each extra folder that
// is a git working tree gets its checkpoint next (extracheckpoints.go).
func (e *Engine) beforeTurn(ctx context.Context, t hub.Thread, turn hub.Turn) {
	if turn.Internal {
		return
	}
	defer e.snapshotExtras(ctx, t, turn, func(s gitwork.Refs) string { return s.Checkpoint(t.ID, turn.ID) })
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
// it stored none; a failure is logged). The extra folders' turn-end
// snapshots follow (extracheckpoints.go).
func (e *Engine) afterTurn(ctx context.Context, tr *turnRT) (gitwork.Repo, string) {
	if tr.turn.Internal {
		return gitwork.Repo{}, ""
	}
	t, turn := tr.thread, tr.turn
	defer e.snapshotExtras(ctx, t, turn, func(s gitwork.Refs) string { return s.TurnEnd(t.ID, turn.ID) })
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
func changedSinceLastTurn(ctx context.Context, r gitwork.Repo, refs gitwork.Refs, threadID string, paths []string) ([]string, error) {
	ends, err := refs.TurnEnds(ctx, r.Top, threadID)
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

// checkpointOf finds the thread's checkpoint before turnID in refs and
// the one after it ("" when it is the last).
func checkpointOf(ctx context.Context, r gitwork.Repo, refs gitwork.Refs, threadID, turnID string) (cp, next string, err error) {
	cps, err := refs.Checkpoints(ctx, r.Top, threadID)
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
	var ch hub.Changes
	if err != nil {
		if ge := (*hub.Error)(nil); errors.As(err, &ge) {
			return hub.Changes{}, err
		}
		ch, err = e.reportedChanges(ctx, c, t, q)
	} else {
		ch, err = mainChanges(ctx, r, t, q)
	}
	if err != nil {
		return hub.Changes{}, err
	}
	if ch.Folders, err = extraChanges(ctx, t, q); err != nil { // extracheckpoints.go
		return hub.Changes{}, err
	}
	return ch, nil
}

// mainChanges are the Changes of the thread's main folder, r, for q.
func mainChanges(ctx context.Context, r gitwork.Repo, t hub.Thread, q hub.ChangesQuery) (hub.Changes, error) {
	var err error
	from, to := "", ""
	switch {
	case q.Turn != "":
		if from, to, err = checkpointOf(ctx, r, gitwork.MainRefs, t.ID, q.Turn); err != nil {
			return hub.Changes{}, err
		}
	case q.Since != "":
		if from, _, err = checkpointOf(ctx, r, gitwork.MainRefs, t.ID, q.Since); err != nil {
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

// errNoRepo is idleRepo's notRepo where the caller decides what a main
// folder outside git means.
var errNoRepo = errors.New("not a git working tree")

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

// RestoreCheckpoint implements hub.WorkService: every folder of the
// thread that has a checkpoint before turnID (the main one, each extra
// one: ADR 0051) goes back to it; NOT_FOUND when none has.
func (e *Engine) RestoreCheckpoint(ctx context.Context, c hub.Caller, id, turnID string) (hub.RestoreResult, error) {
	t, r, err := e.idleRepo(ctx, c, id, errNoRepo)
	if err != nil && err != errNoRepo {
		return hub.RestoreResult{}, err
	}
	var plan []folderRestore
	missing := error(hub.Errorf(hub.CodeNotFound, "thread %s has no checkpoints: its folder is not a git working tree", id))
	if err == nil {
		cp, _, err := checkpointOf(ctx, r, gitwork.MainRefs, t.ID, turnID)
		if err != nil && hub.ErrorCode(err) != hub.CodeNotFound {
			return hub.RestoreResult{}, err
		} else if err != nil {
			missing = err
		} else {
			plan = append(plan, folderRestore{x: mainFolder(r), from: cp})
		}
	}
	for _, x := range openExtras(ctx, t) {
		if x.err != nil {
			continue
		}
		cp, _, err := checkpointOf(ctx, x.repo, x.refs, t.ID, turnID)
		if hub.ErrorCode(err) == hub.CodeNotFound {
			continue
		} else if err != nil {
			return hub.RestoreResult{}, err
		}
		plan = append(plan, folderRestore{x: x, from: cp})
	}
	if len(plan) == 0 {
		return hub.RestoreResult{}, missing
	}
	return e.restore(ctx, t, turnID, plan)
}

// RevertChanges implements hub.WorkService: the folders rq names (one
// extra folder, the main one for a Path, else every folder) go back to
// their start or their checkpoint before rq.SinceTurn. Without Force a
// file changed since the agent's last turn in any of them is CONFLICT
// (details {files: the main folder's, folders: [{folder, files}],
// reason: "CHANGED_SINCE"}) and no folder changes.
func (e *Engine) RevertChanges(ctx context.Context, c hub.Caller, id string, rq hub.RevertRequest) (hub.RestoreResult, error) {
	t, r, err := e.idleRepo(ctx, c, id, errNoRepo)
	if err != nil && err != errNoRepo {
		return hub.RestoreResult{}, err
	}
	folders, ferr := revertFolders(ctx, t, r, err == nil, rq)
	if ferr != nil {
		return hub.RestoreResult{}, ferr
	}
	var plan []folderRestore
	for _, x := range folders {
		from := ""
		if x.folder != "" {
			from, _, err = extraRange(ctx, x, t.ID, hub.ChangesQuery{Since: rq.SinceTurn})
		} else if rq.SinceTurn != "" {
			from, _, err = checkpointOf(ctx, x.repo, x.refs, t.ID, rq.SinceTurn)
		} else {
			from, err = threadStart(ctx, x.repo, t)
		}
		if err != nil {
			return hub.RestoreResult{}, err
		}
		if from == "" {
			continue
		}
		targets, err := gitwork.Changed(ctx, x.repo, from, "")
		if err != nil {
			return hub.RestoreResult{}, &hub.Error{Code: hub.CodeInternal, Message: "git diff failed", Err: err}
		}
		if rq.Path != "" {
			targets = slices.DeleteFunc(targets, func(p string) bool { return p != x.top(rq.Path) })
		}
		plan = append(plan, folderRestore{x: x, from: from, only: targets})
	}
	if len(plan) == 0 {
		return hub.RestoreResult{Files: []string{}}, nil
	}
	if !rq.Force {
		if err := refuseChangedSince(ctx, t.ID, plan); err != nil {
			return hub.RestoreResult{}, err
		}
	}
	return e.restore(ctx, t, rq.SinceTurn, plan)
}

// revertFolders are the folders a revert covers (RevertChanges): main
// its repository when it is one (isRepo).
func revertFolders(ctx context.Context, t hub.Thread, main gitwork.Repo, isRepo bool, rq hub.RevertRequest) ([]extraRepo, error) {
	if rq.Folder != "" && !slices.Contains(extraFolders(t), rq.Folder) {
		return nil, hub.Errorf(hub.CodeInvalidArgument, "folder: %s is not one of the thread's extra folders", rq.Folder)
	}
	var out []extraRepo
	if rq.Folder == "" && isRepo {
		out = append(out, mainFolder(main))
	}
	if rq.Folder != "" || rq.Path == "" {
		for _, x := range openExtras(ctx, t) {
			switch {
			case rq.Folder != "" && x.folder != rq.Folder:
			case x.err != nil && rq.Folder != "":
				return nil, hub.Errorf(hub.CodeInvalidArgument, "%s is not a git working tree: there is nothing to revert to", x.folder)
			case x.err == nil:
				out = append(out, x)
			}
		}
	}
	if len(out) == 0 {
		return nil, hub.Errorf(hub.CodeInvalidArgument, "the thread's folder is not a git working tree: there is nothing to revert to")
	}
	return out, nil
}

// refuseChangedSince is CONFLICT CHANGED_SINCE when a file the plan would
// write back changed in its folder since the agent's last turn.
func refuseChangedSince(ctx context.Context, threadID string, plan []folderRestore) error {
	files, folders := []string{}, []hub.FolderFiles{}
	var names []string
	for _, p := range plan {
		clash, err := changedSinceLastTurn(ctx, p.x.repo, p.x.refs, threadID, p.only)
		if err != nil {
			return &hub.Error{Code: hub.CodeInternal, Message: "git diff failed", Err: err}
		}
		if len(clash) == 0 {
			continue
		}
		if p.x.folder == "" {
			files = clash
			names = append(names, clash...)
			continue
		}
		ff := hub.FolderFiles{Folder: p.x.folder}
		for _, f := range clash {
			ff.Files = append(ff.Files, p.x.rel(f))
			names = append(names, filepath.Join(p.x.folder, filepath.FromSlash(p.x.rel(f))))
		}
		folders = append(folders, ff)
	}
	if len(names) == 0 {
		return nil
	}
	return &hub.Error{Code: hub.CodeConflict, Message: "these files changed since the agent's last turn: reverting would lose those changes: " + strings.Join(names, ", "),
		Details: map[string]any{"files": files, "folders": folders, "reason": "CHANGED_SINCE"}}
}

// folderRestore is one folder a restore or revert brings back to from:
// only the paths in only (relative to its repository's top) when it is
// not nil.
type folderRestore struct {
	x    extraRepo // folder "": the main one
	from string
	only []string
}

// mainFolder is the thread's main folder, r, as restore plans name it.
func mainFolder(r gitwork.Repo) extraRepo {
	return extraRepo{repo: r, refs: gitwork.MainRefs}
}

// restore carries out plan, folder by folder, and emits
// checkpoint_restored {turnId, commit (the main folder's), files (the
// main folder's), folders (the extra ones')}.
func (e *Engine) restore(ctx context.Context, t hub.Thread, turnID string, plan []folderRestore) (hub.RestoreResult, error) {
	res := hub.RestoreResult{Files: []string{}}
	commit := ""
	for _, p := range plan {
		var files []string
		var err error
		if p.only != nil && len(p.only) == 0 {
			files = []string{}
		} else if p.only != nil {
			files, err = gitwork.RestorePaths(ctx, p.x.repo, p.from, p.only)
		} else {
			files, err = gitwork.Restore(ctx, p.x.repo, p.from)
		}
		if files == nil {
			files = []string{}
		}
		if p.x.folder == "" {
			res.Files, commit = files, p.from
		} else {
			ff := hub.FolderFiles{Folder: p.x.folder, Files: []string{}}
			for _, f := range files {
				ff.Files = append(ff.Files, p.x.rel(f))
			}
			res.Folders = append(res.Folders, ff)
		}
		if err != nil {
			return res, &hub.Error{Code: hub.CodeInternal, Message: "restoring failed: " + gitMessage(err), Err: err}
		}
	}
	payload := map[string]any{"turnId": turnID, "commit": commit, "files": res.Files}
	if len(res.Folders) > 0 {
		payload["folders"] = res.Folders
	}
	ev, err := hub.NewEvent(hub.EventCheckpointRestored, t, "", e.now(), payload)
	if err == nil {
		err = e.commit(&hub.Write{Events: []hub.Event{ev}})
	}
	return res, err
}
