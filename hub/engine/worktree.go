package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/gitwork"
)

var _ hub.WorkService = (*Engine)(nil)

// agentDir is where the thread's agent runs: its worktree's path for a
// worktree thread (until the worktree is discarded), else its folder.
func agentDir(t hub.Thread) string {
	if w := t.Worktree; w != nil && !w.Discarded && w.Path != "" {
		return w.Path
	}
	return t.Cwd
}

// worktreeFor is the config's default for a thread in folder cwd
// (folders.<glob>.worktree, the most specific matching rule that sets it).
func (c Config) worktreeFor(cwd string) bool {
	var best *FolderRule
	for i := range c.Folders {
		r := &c.Folders[i]
		if r.Worktree == nil || !MatchFolder(r.Glob, cwd) {
			continue
		}
		if best == nil || moreSpecific(r.Glob, best.Glob) {
			best = r
		}
	}
	return best != nil && *best.Worktree
}

// makeWorktree makes the worktree of a new thread t in folder cwd when
// the request asks for one (or, unasked, the folder's default says so
// and cwd is in a git working tree). Asked for outside a working tree it
// is INVALID_ARGUMENT.
func (e *Engine) makeWorktree(ctx context.Context, req hub.CreateThreadRequest, t hub.Thread) (*hub.Worktree, error) {
	asked := req.Worktree != nil && req.Worktree.On
	if req.Worktree == nil && !e.config().worktreeFor(t.Cwd) {
		return nil, nil
	}
	if req.Worktree != nil && !asked {
		return nil, nil
	}
	r, err := gitwork.Open(ctx, t.Cwd)
	switch {
	case errors.Is(err, gitwork.ErrNotWorkTree):
		if !asked {
			return nil, nil
		}
		return nil, hub.Errorf(hub.CodeInvalidArgument, "%s is not a working tree (a bare repository?): a worktree thread needs one", t.Cwd)
	case errors.Is(err, gitwork.ErrNotRepo):
		if !asked {
			return nil, nil
		}
		return nil, hub.Errorf(hub.CodeInvalidArgument, "%s is not in a git repository: a worktree thread needs one", t.Cwd)
	case err != nil:
		return nil, &hub.Error{Code: hub.CodeInternal, Message: "git failed", Err: err}
	}
	if asked && req.Worktree.Existing() {
		return e.existingWorktree(ctx, r, *req.Worktree)
	}
	short := strings.TrimPrefix(t.ID, "th_")
	if len(short) > 8 {
		short = short[:8]
	}
	w, err := gitwork.AddWorktree(ctx, r, gitwork.BranchName(t.Title, short), e.config().WorktreeLocation)
	if err != nil {
		return nil, &hub.Error{Code: hub.CodeInvalidArgument, Message: "creating the worktree failed: " + gitMessage(err), Err: err}
	}
	return &hub.Worktree{Path: w.Path, Top: w.Top, Branch: w.Branch, Base: w.Base, BaseCommit: w.BaseCommit, Repo: w.Repo}, nil
}

// gitMessage is what a client is told of a git failure: git's own
// message (about the user's repository, which the caller named).
func gitMessage(err error) string {
	var ge *gitwork.Error
	if errors.As(err, &ge) && ge.Stderr != "" {
		return ge.Stderr
	}
	return err.Error()
}

// gitTree is the gitwork view of a thread's worktree.
func gitTree(w *hub.Worktree) gitwork.Worktree {
	return gitwork.Worktree{Path: w.Path, Top: w.Top, Branch: w.Branch, Base: w.Base, BaseCommit: w.BaseCommit, Repo: w.Repo}
}

// idleThread returns the caller's thread when no turn runs on it
// (CONFLICT otherwise).
func (e *Engine) idleThread(ctx context.Context, c hub.Caller, id string) (hub.Thread, *threadRT, error) {
	t, err := e.visibleThread(ctx, c, id)
	if err != nil {
		return t, nil, err
	}
	rt := e.runtime(id)
	rt.mu.Lock()
	running := rt.turn != nil
	rt.mu.Unlock()
	if running {
		return t, nil, hub.Errorf(hub.CodeConflict, "a turn is running on this thread")
	}
	return t, rt, nil
}

// worktreeThread is idleThread for a thread with a live worktree.
func (e *Engine) worktreeThread(ctx context.Context, c hub.Caller, id string) (hub.Thread, *threadRT, error) {
	t, rt, err := e.idleThread(ctx, c, id)
	if err != nil {
		return t, rt, err
	}
	if t.Worktree == nil {
		return t, rt, hub.Errorf(hub.CodeInvalidArgument, "thread %s has no worktree", id)
	}
	if t.Worktree.Discarded {
		return t, rt, hub.Errorf(hub.CodeConflict, "the worktree of thread %s was discarded", id)
	}
	return t, rt, nil
}

// MergeThread implements hub.WorkService.
func (e *Engine) MergeThread(ctx context.Context, c hub.Caller, id string) (hub.MergeResult, error) {
	t, _, err := e.worktreeThread(ctx, c, id)
	if err != nil {
		return hub.MergeResult{}, err
	}
	// The agent's work is usually uncommitted: Merge commits it first
	// (the suggested message; Commit takes an edited one), then merges.
	committed := ""
	if dirty, _ := gitwork.Uncommitted(ctx, gitTree(t.Worktree)); len(dirty) > 0 {
		cr, err := e.commitWork(ctx, t, hub.CommitRequest{})
		if err != nil {
			return hub.MergeResult{}, err
		}
		committed = cr.Commit
	}
	res, err := gitwork.Merge(ctx, gitTree(t.Worktree))
	var ce *gitwork.ConflictError
	switch {
	case gitDirError(err) != nil:
		return hub.MergeResult{}, gitDirError(err)
	case errors.As(err, &ce):
		d := map[string]any{"files": ce.Files}
		if ce.Dirty {
			d["reason"] = "DIRTY"
		}
		return hub.MergeResult{}, &hub.Error{Code: hub.CodeConflict, Message: ce.Error(), Details: d}
	case errors.Is(err, gitwork.ErrNoBase), errors.Is(err, gitwork.ErrOldGit):
		return hub.MergeResult{}, hub.Errorf(hub.CodeInvalidArgument, "%s", err.Error())
	case err != nil:
		return hub.MergeResult{}, &hub.Error{Code: hub.CodeConflict, Message: "the merge failed: " + gitMessage(err), Details: map[string]any{"reason": "GIT"}, Err: err}
	}
	if res.How != "up-to-date" {
		e.standing.dropRepo(t.Worktree.Repo, id) // their base moved
	}
	return hub.MergeResult{How: res.How, Commit: res.Commit, Committed: committed, Thread: e.refreshStanding(ctx, id)}, nil
}

// DiscardThread implements hub.WorkService: the agent is stopped, the
// worktree and its branch removed, the thread's checkpoints pruned, and
// the thread closed with its worktree marked discarded.
func (e *Engine) DiscardThread(ctx context.Context, c hub.Caller, id string) (hub.Thread, error) {
	t, rt, err := e.worktreeThread(ctx, c, id)
	if err != nil {
		return t, err
	}
	if t.Worktree.Adopted {
		return t, hub.Errorf(hub.CodeInvalidArgument, "the thread shares the worktree %s it started in: discarding would remove work that is not only its own; delete the thread instead (the worktree stays)", t.Worktree.Top)
	}
	e.stopAgent(ctx, rt)
	if err := e.settleSnapshots(ctx, id); err != nil { // snapshots.go: no snapshot after the prune
		return t, err
	}
	if err := gitwork.Discard(ctx, gitTree(t.Worktree)); gitDirError(err) != nil {
		return t, gitDirError(err)
	} else if err != nil {
		return t, &hub.Error{Code: hub.CodeConflict, Message: "discarding the worktree failed: " + gitMessage(err), Details: map[string]any{"reason": "GIT"}, Err: err}
	}
	_ = gitwork.PruneCheckpoints(ctx, t.Worktree.Repo, t.ID)
	e.standing.drop(id)
	w := *t.Worktree
	w.Discarded = true
	defer e.dropOverlaps(ctx, id) // overlaps.go
	return e.changeThread(ctx, c, hub.ThreadChange{ThreadID: id, Worktree: &w, Status: hub.ThreadClosed})
}

// DeleteThread implements Service: DeleteThreadWith without options.
func (e *Engine) DeleteThread(ctx context.Context, c hub.Caller, id string) error {
	return e.DeleteThreadWith(ctx, c, id, hub.DeleteOptions{})
}

// DeleteThreadWith implements hub.WorkService. A worktree thread whose
// worktree holds uncommitted files, or whose branch has commits not in
// its base, is CONFLICT naming them (details uncommittedFiles, commits)
// unless o says what to do: Discard removes everything; KeepBranch keeps
// the branch, and the worktree too when it holds uncommitted files.
// Otherwise its worktree and branch are removed with the thread. A thread
// that shares a worktree it did not make (Adopted) leaves it. The
// thread's checkpoints are pruned, its extra folders' too.
func (e *Engine) DeleteThreadWith(ctx context.Context, c hub.Caller, id string, o hub.DeleteOptions) error {
	t, err := e.visibleThread(ctx, c, id)
	if err != nil {
		return err
	}
	w := t.Worktree
	live := w != nil && !w.Discarded && !w.Adopted
	var dirty []string
	if live && !o.Discard {
		g := gitTree(w)
		commits, _ := gitwork.UnmergedCommits(ctx, g, 50)
		n, err := gitwork.Unmerged(ctx, g)
		if err != nil {
			n = 0
		}
		dirty, _ = gitwork.Uncommitted(ctx, g)
		if !o.KeepBranch && (n > 0 || len(dirty) > 0) {
			if commits == nil {
				commits = []gitwork.UnmergedCommit{}
			}
			d := map[string]any{"branch": w.Branch, "unmergedCommits": n, "commits": commits, "reason": hub.ReasonUnmerged}
			msg := fmt.Sprintf("Deleting the thread would lose %d commit(s) not in %s", n, w.Base)
			if len(dirty) > 0 {
				d["uncommittedFiles"] = dirty
				d["reason"] = hub.ReasonUncommitted
				msg = fmt.Sprintf("Deleting the thread would lose %d uncommitted file(s) (%s) and %d commit(s) not in its base", len(dirty), strings.Join(dirty, ", "), n)
			}
			return &hub.Error{Code: hub.CodeConflict, Message: msg + ": keep the branch (keepBranch=true), commit or merge first, or discard it all (discard=true).", Details: d}
		}
	}
	if err := e.deleteThreadNow(ctx, c, id); err != nil {
		return err
	}
	e.standing.drop(id)
	repo := ""
	if w != nil {
		repo = w.Repo
		if live {
			g := gitTree(w)
			switch {
			case o.KeepBranch && len(dirty) > 0:
				err = nil // the uncommitted work stays in the worktree, on its branch
			case o.KeepBranch:
				err = gitwork.Forget(ctx, g)
			default:
				err = gitwork.Discard(ctx, g)
			}
			if err != nil {
				e.log.Warn("hub: removing a deleted thread's worktree failed", "thread", id, "err", err)
			}
		}
	} else if r, err := gitwork.Open(ctx, t.Cwd); err == nil {
		repo = r.Top
	}
	if repo != "" {
		if err := gitwork.PruneCheckpoints(ctx, repo, id); err != nil {
			e.log.Warn("hub: pruning a deleted thread's checkpoints failed", "thread", id, "err", err)
		}
	}
	e.pruneExtras(ctx, t) // extracheckpoints.go
	return nil
}
