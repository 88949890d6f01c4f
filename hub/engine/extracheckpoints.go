package engine

import (
	"context"
	"slices"
	"strings"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/gitwork"
)

// Checkpoints of a thread's extra folders (issue 32, ADR 0051). Contracts:
//   - Each extra folder checkpoints cover (extraFolders: every one not
//     inside the thread's main folder or an earlier extra folder, which
//     already covers it) that is a git working tree gets, like the main
//     folder, a checkpoint before each turn and a snapshot at its end, in
//     its own repository under gitwork.FolderRefs(folder): one checkpoint
//     per folder per turn, keyed by folder, nothing in the hub's store.
//     They are taken on the thread's snapshot lane right after the main
//     folder's, so the agent's requests wait for them too.
//   - A folder that is not a git working tree has none: Changes says so
//     once for it (FolderChanges.Source "none").
//   - Changes, restore and revert cover every folder; a revert refuses
//     (CHANGED_SINCE) before touching any folder when a file it would
//     write back changed in any folder since the agent's last turn.
//   - Overlaps (overlaps.go) stay the main folder's.

// extraFolders are the thread's extra folders checkpoints cover, in the
// thread's order.
func extraFolders(t hub.Thread) []string {
	covered := []string{agentDir(t)}
	var out []string
	for _, d := range t.AdditionalDirectories {
		if slices.ContainsFunc(covered, func(c string) bool { return within(d, c) }) {
			continue
		}
		covered = append(covered, d)
		out = append(out, d)
	}
	return out
}

// extraRepo is an extra folder checkpoints cover, open (folder "": the
// thread's main folder, in a restore plan: mainFolder).
type extraRepo struct {
	folder string
	repo   gitwork.Repo
	refs   gitwork.Refs
	err    error // not nil: not a git working tree (or git failed); repo is zero
}

// openExtras opens each of the thread's extra folders (extraFolders).
func openExtras(ctx context.Context, t hub.Thread) []extraRepo {
	var out []extraRepo
	for _, d := range extraFolders(t) {
		r, err := gitwork.Open(ctx, d)
		out = append(out, extraRepo{folder: d, repo: r, refs: gitwork.FolderRefs(d), err: err})
	}
	return out
}

// snapshotExtras stores, in each extra folder that is a git working tree,
// the snapshot ref names (a checkpoint or a turn-end snapshot of turn);
// a failure is logged and the next folder is tried.
func (e *Engine) snapshotExtras(ctx context.Context, t hub.Thread, turn hub.Turn, ref func(gitwork.Refs) string) {
	for _, x := range openExtras(ctx, t) {
		if x.err != nil {
			continue
		}
		if _, err := gitwork.Checkpoint(ctx, x.repo, ref(x.refs), gitwork.CheckpointMessage(e.now().UnixNano())); err != nil {
			e.log.Warn("hub: an extra folder's snapshot failed", "thread", t.ID, "turn", turn.ID, "folder", x.folder, "err", err)
		}
	}
}

// extraChanges are the Changes of the thread's extra folders for q: each
// diffed against its own checkpoints (from its first, or the turn's); a
// folder without the checkpoint asked for lists no files.
func extraChanges(ctx context.Context, t hub.Thread, q hub.ChangesQuery) ([]hub.FolderChanges, error) {
	var out []hub.FolderChanges
	for _, x := range openExtras(ctx, t) {
		fc := hub.FolderChanges{Folder: x.folder, Source: "git", Files: []hub.FileChange{}}
		if x.err != nil {
			fc.Source = "none"
			out = append(out, fc)
			continue
		}
		from, to, err := extraRange(ctx, x, t.ID, q)
		if err != nil {
			return nil, err
		}
		fc.Base = from
		if from != "" {
			files, err := gitwork.Diff(ctx, x.repo, from, to)
			if err != nil {
				return nil, &hub.Error{Code: hub.CodeInternal, Message: "git diff failed", Err: err}
			}
			for _, f := range files {
				f.Path, f.OldPath = x.rel(f.Path), x.rel(f.OldPath)
				fc.Files = append(fc.Files, hub.FileChange(f))
			}
		}
		out = append(out, fc)
	}
	return out, nil
}

// extraRange is the commits q diffs in x: from its first checkpoint to
// now, from the turn's checkpoint to the next (q.Turn) or to now
// (q.Since); from "" when x has no such checkpoint.
func extraRange(ctx context.Context, x extraRepo, threadID string, q hub.ChangesQuery) (from, to string, err error) {
	turn := q.Turn
	if turn == "" {
		turn = q.Since
	}
	if turn == "" {
		cps, err := x.refs.Checkpoints(ctx, x.repo.Top, threadID)
		if err != nil || len(cps) == 0 {
			return "", "", gitFailed(err)
		}
		return cps[0].Commit, "", nil
	}
	from, to, err = checkpointOf(ctx, x.repo, x.refs, threadID, turn)
	if hub.ErrorCode(err) == hub.CodeNotFound {
		return "", "", nil
	}
	if q.Since != "" {
		to = ""
	}
	return from, to, err
}

// gitFailed is INTERNAL "git failed" for a git error, nil for nil.
func gitFailed(err error) error {
	if err == nil {
		return nil
	}
	return &hub.Error{Code: hub.CodeInternal, Message: "git failed", Err: err}
}

// rel is a path of x's repository (relative to its top) relative to x's
// folder; "" stays "".
func (x extraRepo) rel(p string) string {
	if x.folder == "" || x.repo.Prefix == "" || p == "" {
		return p
	}
	return strings.TrimPrefix(p, x.repo.Prefix+"/")
}

// top is a path relative to x's folder relative to its repository's top.
func (x extraRepo) top(p string) string {
	if x.folder == "" || x.repo.Prefix == "" {
		return p
	}
	return x.repo.Prefix + "/" + strings.TrimPrefix(p, "/")
}

// pruneExtras deletes the thread's snapshots in its extra folders'
// repositories (a deleted thread's).
func (e *Engine) pruneExtras(ctx context.Context, t hub.Thread) {
	for _, x := range openExtras(ctx, t) {
		if x.err != nil {
			continue
		}
		if err := gitwork.PruneCheckpoints(ctx, x.repo.Top, t.ID); err != nil {
			e.log.Warn("hub: pruning a deleted thread's checkpoints failed", "thread", t.ID, "folder", x.folder, "err", err)
		}
	}
}
