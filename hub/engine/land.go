package engine

import (
	"context"
	"errors"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/gitwork"
)

// Landing a worktree thread's work (issue 31, ADR 0041): Commit, Push,
// and the worktree's standing (ahead/behind, dirty, merged) kept between
// git actions so the thread list runs no git.

// standings caches the Standing of worktree threads by thread id: read by
// every thread read, computed on a miss, refreshed at turn end and after
// each git action (refreshStanding). The zero value is ready.
type standings struct {
	mu sync.Mutex
	m  map[string]standingOf
}

// standingOf is a cached Standing and the repository it is of.
type standingOf struct {
	gitwork.Standing
	repo string
}

func (s *standings) get(id string) (gitwork.Standing, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[id]
	return v.Standing, ok
}

// put stores v (of repo) and reports whether it differs from what was there.
func (s *standings) put(id, repo string, v gitwork.Standing) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]standingOf{}
	}
	old, ok := s.m[id]
	s.m[id] = standingOf{v, repo}
	return !ok || old.Standing != v
}

func (s *standings) drop(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, id)
}

// dropRepo forgets the standing of every thread of repo but except: a
// merge moved their base, so their behind counts changed (read again on
// the next thread read).
func (s *standings) dropRepo(repo, except string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, v := range s.m {
		if v.repo == repo && id != except {
			delete(s.m, id)
		}
	}
}

// withWorktreeStatus adds a worktree thread's standing (ahead, behind,
// dirty, merged) from the cache, reading it with git only when the cache
// has none for the thread yet.
func (e *Engine) withWorktreeStatus(ctx context.Context, t hub.Thread, err error) (hub.Thread, error) {
	if err != nil || t.Worktree == nil || t.Worktree.Discarded {
		return t, err
	}
	t = e.endStaleSetup(t) // setup.go
	s, ok := e.standing.get(t.ID)
	if !ok {
		s, err = gitwork.StandingOf(ctx, gitTree(t.Worktree))
		if err != nil {
			return t, nil // the counts are a nicety: the thread reads without them
		}
		e.standing.put(t.ID, t.Worktree.Repo, s)
	}
	return decorate(t, s), nil
}

// decorate is t with s on its worktree (a copy).
func decorate(t hub.Thread, s gitwork.Standing) hub.Thread {
	w := *t.Worktree
	w.Ahead, w.Behind, w.Dirty, w.Merged = &s.Ahead, &s.Behind, &s.Dirty, &s.Merged
	t.Worktree = &w
	return t
}

// refreshStanding reads a worktree thread's standing again (at turn end,
// after Commit, Push, Merge) and, when it changed, emits thread_updated
// with the thread carrying it. It returns the thread as emitted.
func (e *Engine) refreshStanding(ctx context.Context, id string) hub.Thread {
	t, err := e.store.GetThread(ctx, id)
	if err != nil || t.Worktree == nil || t.Worktree.Discarded {
		return t
	}
	s, err := gitwork.StandingOf(ctx, gitTree(t.Worktree))
	if err != nil {
		return t
	}
	t = decorate(t, s)
	if e.standing.put(id, t.Worktree.Repo, s) {
		if ev, err := hub.NewEvent(hub.EventThreadUpdated, t, "", e.now(), threadUpdated(t)); err == nil {
			if err := e.commit(&hub.Write{Events: []hub.Event{ev}}); err != nil {
				e.log.Warn("hub: announcing a worktree's standing failed", "thread", id, "err", err)
			}
		}
	}
	return t
}

// CommitSuggestion implements hub.WorkService.
func (e *Engine) CommitSuggestion(ctx context.Context, c hub.Caller, id string) (hub.CommitSuggestion, error) {
	t, _, err := e.worktreeThread(ctx, c, id)
	if err != nil {
		return hub.CommitSuggestion{}, err
	}
	files, err := gitwork.Uncommitted(ctx, gitTree(t.Worktree))
	if err := gitDirError(err); err != nil {
		return hub.CommitSuggestion{}, err
	}
	if files == nil {
		files = []string{}
	}
	return hub.CommitSuggestion{Message: e.commitMessage(ctx, t), Files: files}, nil
}

// commitMessage is the message Commit suggests: the thread's title, then
// the first line of each of its turns' prompts (at most 20, each cut at 72
// characters) as a list.
func (e *Engine) commitMessage(ctx context.Context, t hub.Thread) string {
	var b strings.Builder
	b.WriteString(t.Title)
	turns, _ := e.store.ListTurns(ctx, t.ID, false)
	n := 0
	for _, tu := range turns {
		line, _, _ := strings.Cut(strings.TrimSpace(tu.Input), "\n")
		if line = strings.TrimSpace(line); line == "" || n == 20 {
			continue
		}
		if utf8.RuneCountInString(line) > 72 {
			line = string([]rune(line)[:71]) + "…"
		}
		if n == 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("- " + line + "\n")
		n++
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// CommitThread implements hub.WorkService.
func (e *Engine) CommitThread(ctx context.Context, c hub.Caller, id string, r hub.CommitRequest) (hub.CommitResult, error) {
	t, _, err := e.worktreeThread(ctx, c, id)
	if err != nil {
		return hub.CommitResult{}, err
	}
	res, err := e.commitWork(ctx, t, r)
	if err != nil {
		return hub.CommitResult{}, err
	}
	return hub.CommitResult{Commit: res.Commit, Files: res.Files, Thread: e.refreshStanding(ctx, id)}, nil
}

// commitWork commits t's worktree (r.Message "": the suggestion) and
// answers git's refusals as the hub's errors.
func (e *Engine) commitWork(ctx context.Context, t hub.Thread, r hub.CommitRequest) (gitwork.CommitResult, error) {
	msg := strings.TrimSpace(r.Message)
	if msg == "" {
		msg = e.commitMessage(ctx, t)
	}
	res, err := gitwork.Commit(ctx, gitTree(t.Worktree), msg+"\n", r.Confirm)
	var he *gitwork.HookError
	var se *gitwork.SignError
	var hc *gitwork.HooksChangedError
	switch {
	case err == nil:
		return res, nil
	case gitDirError(err) != nil:
		return res, gitDirError(err)
	case errors.Is(err, gitwork.ErrNothingToCommit):
		return res, &hub.Error{Code: hub.CodeConflict, Message: "Nothing to commit: the worktree has no uncommitted change.",
			Details: map[string]any{"reason": hub.ReasonNothingToCommit}}
	case errors.As(err, &hc):
		return res, &hub.Error{Code: hub.CodeConflict, Message: "The commit would run git hooks this thread changed (" + strings.Join(hc.Files, ", ") + "): read them, then commit with confirm to run them.",
			Details: map[string]any{"reason": hub.ReasonHooksChanged, "files": hc.Files}}
	case errors.As(err, &he):
		return res, &hub.Error{Code: hub.CodeConflict, Message: "A git hook refused the commit; nothing changed. Fix what it says, then commit again.",
			Details: map[string]any{"reason": hub.ReasonHookFailed, "output": he.Output}}
	case errors.As(err, &se):
		return res, &hub.Error{Code: hub.CodeConflict, Message: "Git could not sign the commit (commit.gpgSign is on); nothing changed. Set user.signingKey to a key you have, or turn commit.gpgSign off for this repository.",
			Details: map[string]any{"reason": hub.ReasonSigningFailed, "output": se.Output}}
	}
	return res, &hub.Error{Code: hub.CodeConflict, Message: "The commit failed: " + gitMessage(err), Details: map[string]any{"reason": "GIT"}, Err: err}
}

// PushThread implements hub.WorkService.
func (e *Engine) PushThread(ctx context.Context, c hub.Caller, id string) (hub.PushResult, error) {
	t, _, err := e.worktreeThread(ctx, c, id)
	if err != nil {
		return hub.PushResult{}, err
	}
	res, err := gitwork.Push(ctx, gitTree(t.Worktree))
	var pe *gitwork.PushError
	switch {
	case errors.Is(err, gitwork.ErrNoRemote):
		return hub.PushResult{}, &hub.Error{Code: hub.CodeConflict, Message: "The repository has no remote to push to: add one (git remote add origin <url>), then push again.",
			Details: map[string]any{"reason": hub.ReasonNoRemote}}
	case errors.As(err, &pe) && pe.Rejected:
		return hub.PushResult{}, &hub.Error{Code: hub.CodeConflict, Message: "The remote rejected the push (the branch there has commits this one lacks, or it is protected); nothing was forced. Pull or rebase the branch, then push again.",
			Details: map[string]any{"reason": hub.ReasonPushRejected, "output": pe.Output}}
	case errors.As(err, &pe):
		return hub.PushResult{}, &hub.Error{Code: hub.CodeConflict, Message: "The push failed: " + firstLine(pe.Output),
			Details: map[string]any{"reason": "GIT", "output": pe.Output}}
	case err != nil:
		return hub.PushResult{}, &hub.Error{Code: hub.CodeInternal, Message: "git failed", Err: err}
	}
	if res.PullRequestURL != t.Worktree.PullRequestURL {
		w := *t.Worktree
		w.PullRequestURL = res.PullRequestURL
		if _, err := e.changeThread(ctx, c, hub.ThreadChange{ThreadID: id, Worktree: &w}); err != nil {
			return hub.PushResult{}, err
		}
	}
	return hub.PushResult{Remote: res.Remote, Branch: t.Worktree.Branch, PullRequestURL: res.PullRequestURL, Thread: e.refreshStanding(ctx, id)}, nil
}

// firstLine is s's first non-empty line.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return s
}

// existingWorktree makes the worktree of a thread started on an existing
// branch or worktree of the repository of folder r (req.Worktree names it).
func (e *Engine) existingWorktree(ctx context.Context, r gitwork.Repo, req hub.WorktreeRequest) (*hub.Worktree, error) {
	var w gitwork.Worktree
	var err error
	if req.Branch != "" {
		w, err = gitwork.AddWorktreeOn(ctx, r, req.Branch, e.config().WorktreeLocation)
	} else {
		w, err = gitwork.AdoptWorktree(ctx, r, req.Path)
	}
	var bu *gitwork.BranchInUseError
	switch {
	case errors.As(err, &bu):
		return nil, &hub.Error{Code: hub.CodeConflict, Message: bu.Error(),
			Details: map[string]any{"reason": hub.ReasonBranchInUse, "branch": bu.Branch, "path": bu.Path}}
	case gitDirError(err) != nil:
		return nil, gitDirError(err)
	case err != nil:
		return nil, &hub.Error{Code: hub.CodeInvalidArgument, Message: "starting on that worktree failed: " + gitMessage(err), Err: err}
	}
	return &hub.Worktree{Path: w.Path, Top: w.Top, Branch: w.Branch, Base: w.Base, BaseCommit: w.BaseCommit, Repo: w.Repo, Adopted: req.Path != ""}, nil
}
