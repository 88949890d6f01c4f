-- A worktree thread's worktree (hub.Thread.Worktree, JSON: path, branch,
-- base, baseCommit, top, repo, discarded; issue 19); NULL for a thread that
-- runs in its folder.
ALTER TABLE threads ADD COLUMN worktree TEXT;
