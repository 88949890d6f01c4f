package hub

import "context"

// EventCheckpointRestored (extension, issue 19): {turnId, files} — the
// thread's folder was brought back to its checkpoint before turn turnId;
// files are the paths (relative to the repository's top) written back or
// removed.
const EventCheckpointRestored = "checkpoint_restored"

// Worktree is where a worktree thread's agent runs: a git worktree on a
// branch of its own, made from the folder's HEAD when the thread was
// created (CreateThreadRequest.Worktree). Path is the agent's folder, the
// root for file confinement, terminals and checkpoints; the thread's Cwd
// stays the folder the user picked.
type Worktree struct {
	Path   string `json:"path"`
	Branch string `json:"branch"`
	// Base is the branch the worktree was made from (merged into by
	// MergeThread); "" when the folder's HEAD was detached.
	Base       string `json:"base"`
	BaseCommit string `json:"baseCommit"`
	// Top is the worktree's top folder (Path is inside it when the thread's
	// folder is a subfolder of its repository) and Repo the top folder of
	// the checkout it was made from.
	Top  string `json:"top"`
	Repo string `json:"repo"`
	// Ahead and Behind count the commits of Branch not in Base and of Base
	// not in Branch, when the thread is read (GetThread, ListThreads /
	// QueryThreads); absent in events and for a discarded worktree.
	Ahead  *int `json:"ahead,omitempty"`
	Behind *int `json:"behind,omitempty"`
	// Dirty counts the worktree's uncommitted files (untracked ones that
	// are not ignored included) and Merged says Branch has commits and all
	// of them are in Base (issue 31). Like Ahead and Behind they are
	// computed, kept by the hub between git actions and turn ends (never
	// one git process per thread per list read), and carried by the
	// thread_updated event the hub emits when they change.
	Dirty  *int  `json:"dirty,omitempty"`
	Merged *bool `json:"merged,omitempty"`
	// Adopted: the thread started in an existing worktree
	// (WorktreeRequest.Path) it shares: deleting or discarding the thread
	// leaves that worktree and its branch.
	Adopted bool `json:"adopted,omitempty"`
	// PullRequestURL is the forge's page to open a pull request of Branch,
	// set once Push pushed it to a remote on GitHub, GitLab or Gitea
	// (gitwork.CompareURL); absent for any other remote.
	PullRequestURL string `json:"pullRequestUrl,omitempty"`
	// Setup is the folder's worktreeSetup, run in the new worktree before
	// the agent starts (issue 31); absent when the folder has none.
	Setup *WorktreeSetup `json:"setup,omitempty"`
	// Discarded: the worktree and its branch were removed
	// (DiscardThread); the thread takes no more turns.
	Discarded bool `json:"discarded,omitempty"`
}

// WorktreeSetup is the run of a folder's worktreeSetup commands in a new
// worktree (issue 31): announced by thread_updated as it goes (its output
// at most twice a second). The thread's agent starts once it ended,
// whatever its end: a failed or cancelled setup leaves the thread usable.
type WorktreeSetup struct {
	Commands []string `json:"commands"`
	// Status: "running", "done", "failed" (a command exited non-zero: the
	// ones after it did not run) or "cancelled" (CancelSetup).
	Status string `json:"status"`
	// Output is the commands' output (each after a "$ <command>" line),
	// its last 64 KiB.
	Output string `json:"output"`
	// ExitCode is the failed command's exit code.
	ExitCode *int `json:"exitCode,omitempty"`
}

// The WorktreeSetup statuses.
const (
	SetupRunning   = "running"
	SetupDone      = "done"
	SetupFailed    = "failed"
	SetupCancelled = "cancelled"
)

// DeleteOptions are DELETE /v1/threads/{id}'s query: what becomes of a
// worktree thread's work when its branch has commits not in its base or
// its worktree uncommitted files (without either option, that deletion is
// CONFLICT with details {reason UNMERGED_COMMITS or UNCOMMITTED, branch,
// unmergedCommits, commits: [{commit, subject}], uncommittedFiles}).
// KeepBranch keeps the branch whatever the worktree holds, and the
// worktree too when it holds uncommitted files.
type DeleteOptions struct {
	Discard    bool // remove the worktree and the branch, commits and all
	KeepBranch bool // remove the worktree, keep the branch
}

// GitFolder is the answer of GET /v1/folders/git: Git when the folder is
// in a git working tree, Repo that tree's top folder.
type GitFolder struct {
	Git  bool   `json:"git"`
	Repo string `json:"repo,omitempty"`
	// AdditionalDirectories are the extra folders a new thread in the
	// folder gets by default (folders.<glob>.additionalDirectories, the
	// ones that exist; ADR 0051): New thread pre-fills them. This is New
	// thread's one question about a folder, so it rides here.
	AdditionalDirectories []string `json:"additionalDirectories,omitempty"`
}

// MergeResult is the answer of POST /v1/threads/{id}/merge.
type MergeResult struct {
	// How: "up-to-date", "fast-forward", "merge" (git merge in the base
	// branch's checkout) or "commit-tree" (the base branch was not checked
	// out and moved to a merge commit).
	How    string `json:"how"`
	Commit string `json:"commit"`
	// Committed is the commit Merge made first of the worktree's
	// uncommitted work (issue 31: the suggested message, the user's hooks
	// and signing); absent when there was none.
	Committed string `json:"committed,omitempty"`
	Thread    Thread `json:"thread"`
}

// Checkpoint is the snapshot of a thread's folder taken before one of its
// turns (tracked files and untracked files that are not ignored), kept on
// refs/switchboard/checkpoints/<thread>/<turn>.
type Checkpoint struct {
	TurnID string `json:"turnId"`
	Commit string `json:"commit"`
	Ref    string `json:"ref"`
}

// FileChange is one file a thread changed, with its unified diff.
type FileChange struct {
	Path    string `json:"path"`
	Status  string `json:"status"` // added, modified, deleted, renamed
	OldPath string `json:"oldPath,omitempty"`
	Diff    string `json:"diff"`
}

// Changes is the answer of GET /v1/threads/{id}/changes. Source is "git"
// (diffed by the hub against the commit the thread started from, or the
// checkpoint of the turn asked for) or "agent" (a folder outside git: the
// diffs the agent's tool calls reported, "as reported by the agent").
type Changes struct {
	Source string       `json:"source"`
	Base   string       `json:"base,omitempty"` // the commit diffed against
	Files  []FileChange `json:"files"`
	// Folders are the changes in the thread's extra folders (ADR 0051),
	// one entry per extra folder checkpoints cover, in the thread's order
	// (the main folder's are Files); absent when it has none.
	Folders []FolderChanges `json:"folders,omitempty"`
}

// FolderChanges is the Changes of one extra folder of a thread. Source is
// "git" (diffed against the folder's own checkpoints) or "none" (the
// folder is not a git working tree: the hub keeps no checkpoints there
// and Files is empty). Paths are relative to Folder.
type FolderChanges struct {
	Folder string       `json:"folder"`
	Source string       `json:"source"`
	Base   string       `json:"base,omitempty"`
	Files  []FileChange `json:"files"`
}

// FolderFiles are files of one extra folder, relative to it.
type FolderFiles struct {
	Folder string   `json:"folder"`
	Files  []string `json:"files"`
}

// ChangesQuery is GET /v1/threads/{id}/changes's query: Turn, one turn's
// changes; Since, everything since that turn began; neither, everything
// since the thread started.
type ChangesQuery struct {
	Turn  string `json:"turn,omitempty"`
	Since string `json:"since,omitempty"`
}

// RevertRequest is the body of POST /v1/threads/{id}/changes/revert: one
// file (Path, relative to the repository's top, as Changes names it) or
// every file, back to the thread's start or to the checkpoint before turn
// SinceTurn.
type RevertRequest struct {
	Path string `json:"path,omitempty"`
	// Folder, one of the thread's extra folders, reverts in that folder
	// only (Path then relative to it, as FolderChanges names it); without
	// it a Path is the main folder's, and no Path reverts every folder.
	Folder    string `json:"folder,omitempty"`
	SinceTurn string `json:"sinceTurn,omitempty"`
	// Force reverts files that changed since the agent's last turn
	// (without it that is CONFLICT with details {files, reason:
	// "CHANGED_SINCE"}).
	Force bool `json:"force,omitempty"`
}

// RestoreResult lists the files a restore or revert wrote back or removed.
type RestoreResult struct {
	Files []string `json:"files"` // the main folder's
	// Folders are the extra folders' (ADR 0051), each one that had a
	// checkpoint to go back to; absent when none.
	Folders []FolderFiles `json:"folders,omitempty"`
}

// WorkService is the worktree, review and checkpoint part of the hub
// (issue 19). The engine implements it; adapters reach it as
// Services.Work. Every method checks the caller may see the thread
// (NOT_FOUND otherwise).
type WorkService interface {
	// DeleteThreadWith is DeleteThread with what to do with a worktree
	// thread's branch (DeleteOptions).
	DeleteThreadWith(ctx context.Context, c Caller, id string, o DeleteOptions) error
	// MergeThread merges a worktree thread's branch into its base branch:
	// CONFLICT with details {files} on a conflict (nothing changes) or
	// when the base branch's checkout has uncommitted changes (details
	// {files, reason: "DIRTY"}); INVALID_ARGUMENT for a thread without a
	// worktree, from a detached HEAD, or with a git older than 2.38.
	MergeThread(ctx context.Context, c Caller, id string) (MergeResult, error)
	// GitFolder says whether path (absolute, an existing folder) is in a
	// git working tree, which is where a worktree thread can be made
	// (GET /v1/folders/git?path=); INVALID_ARGUMENT otherwise.
	GitFolder(ctx context.Context, c Caller, path string) (GitFolder, error)
	// DiscardThread removes a worktree thread's worktree and branch.
	DiscardThread(ctx context.Context, c Caller, id string) (Thread, error)
	// Changes is what the thread changed since it started, in one turn
	// (q.Turn) or since a turn began (q.Since: what restoring its
	// checkpoint would undo). Both is INVALID_ARGUMENT.
	Changes(ctx context.Context, c Caller, id string, q ChangesQuery) (Changes, error)
	// RevertChanges restores files to the thread's start or a turn's
	// checkpoint. CONFLICT while a turn runs.
	RevertChanges(ctx context.Context, c Caller, id string, r RevertRequest) (RestoreResult, error)
	// ListCheckpoints lists the thread's checkpoints, oldest first.
	ListCheckpoints(ctx context.Context, c Caller, id string) ([]Checkpoint, error)
	// CommitSuggestion is what Commit would commit and the message it
	// prefills (GET /v1/threads/{id}/commit).
	CommitSuggestion(ctx context.Context, c Caller, id string) (CommitSuggestion, error)
	// CommitThread commits the worktree's uncommitted changes onto its
	// branch through the user's git (identity, hooks, signing): CONFLICT
	// with details.reason NOTHING_TO_COMMIT, HOOK_FAILED or SIGNING_FAILED
	// (details.output; nothing changed) or HOOKS_CHANGED (details.files;
	// send Confirm).
	CommitThread(ctx context.Context, c Caller, id string, r CommitRequest) (CommitResult, error)
	// PushThread pushes the thread's branch to the repository's remote,
	// never forced: CONFLICT with details.reason PUSH_REJECTED (details.output)
	// or NO_REMOTE.
	PushThread(ctx context.Context, c Caller, id string) (PushResult, error)
	// CancelSetup stops a worktree thread's running setup (its commands'
	// process group is killed) and returns the thread, its setup
	// "cancelled"; CONFLICT when none runs.
	CancelSetup(ctx context.Context, c Caller, id string) (Thread, error)
	// RestoreCheckpoint brings the thread's folder back to its state
	// before turn turnID and emits checkpoint_restored. CONFLICT while a
	// turn runs; NOT_FOUND for a turn without a checkpoint.
	RestoreCheckpoint(ctx context.Context, c Caller, id, turnID string) (RestoreResult, error)
}
