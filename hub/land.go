package hub

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Landing a worktree thread's work (issue 31, docs/API.md "Land the
// work"): Commit and Push on the thread, a new thread on an existing
// branch or worktree.

// The details.reason of a Commit's or Push's CONFLICT, and of a new
// thread's on a branch checked out elsewhere.
const (
	ReasonNothingToCommit = "NOTHING_TO_COMMIT"
	ReasonHookFailed      = "HOOK_FAILED"      // details.output: what the hook printed
	ReasonHooksChanged    = "HOOKS_CHANGED"    // details.files: hooks the thread changed; send confirm
	ReasonSigningFailed   = "SIGNING_FAILED"   // details.output: git's message
	ReasonPushRejected    = "PUSH_REJECTED"    // details.output: why
	ReasonNoRemote        = "NO_REMOTE"        // the repository has no remote to push to
	ReasonBranchInUse     = "BRANCH_IN_USE"    // details.path: where the branch is checked out
	ReasonUncommitted     = "UNCOMMITTED"      // Delete: details.uncommittedFiles
	ReasonUnmerged        = "UNMERGED_COMMITS" // Delete: details.commits
)

// CommitRequest is the body of POST /v1/threads/{id}/commit. Message ""
// takes the suggestion (CommitSuggestion). Confirm runs hooks the thread
// changed (HOOKS_CHANGED) after the user saw them named.
type CommitRequest struct {
	Message string `json:"message,omitempty"`
	Confirm bool   `json:"confirm,omitempty"`
}

// CommitResult is the answer of POST /v1/threads/{id}/commit: the commit
// made on the thread's branch, the files in it, and the thread.
type CommitResult struct {
	Commit string   `json:"commit"`
	Files  []string `json:"files"`
	Thread Thread   `json:"thread"`
}

// CommitSuggestion is the answer of GET /v1/threads/{id}/commit: the
// message Commit prefills (the thread's title, then its turns' prompts),
// the files it would commit and whether the repository's hooks would run.
type CommitSuggestion struct {
	Message string   `json:"message"`
	Files   []string `json:"files"`
}

// PushResult is the answer of POST /v1/threads/{id}/push: the remote the
// branch went to and, for a remote on GitHub, GitLab or Gitea, the
// forge's page to open a pull request (absent for any other).
type PushResult struct {
	Remote         string `json:"remote"`
	Branch         string `json:"branch"`
	PullRequestURL string `json:"pullRequestUrl,omitempty"`
	Thread         Thread `json:"thread"`
}

// WorktreeRequest is CreateThreadRequest.Worktree: JSON true or false (a
// new worktree on a new branch, or none), or an object naming where the
// thread starts — {"branch": "<name>"}, an existing branch checked out in
// a new worktree (CONFLICT, details.reason BRANCH_IN_USE, when it is
// checked out elsewhere), or {"path": "<worktree>"}, an existing worktree
// of the folder's repository, shared (deleting the thread leaves it).
type WorktreeRequest struct {
	On     bool
	Branch string
	Path   string
}

// Existing reports whether the request names an existing branch or worktree.
func (w WorktreeRequest) Existing() bool { return w.Branch != "" || w.Path != "" }

// UnmarshalJSON reads true, false, {"branch"} or {"path"}.
func (w *WorktreeRequest) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] != '{' {
		*w = WorktreeRequest{}
		return json.Unmarshal(b, &w.On)
	}
	var o struct {
		Branch string `json:"branch"`
		Path   string `json:"path"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return err
	}
	if (o.Branch == "") == (o.Path == "") {
		return errors.New(`worktree must be true, false, {"branch": "<name>"} or {"path": "<worktree>"}`)
	}
	*w = WorktreeRequest{On: true, Branch: o.Branch, Path: o.Path}
	return nil
}

// MarshalJSON writes what UnmarshalJSON reads.
func (w WorktreeRequest) MarshalJSON() ([]byte, error) {
	switch {
	case w.Branch != "":
		return json.Marshal(map[string]string{"branch": w.Branch})
	case w.Path != "":
		return json.Marshal(map[string]string{"path": w.Path})
	}
	return json.Marshal(w.On)
}
