package hub

// Overlap is one file a thread changed that another live thread of the
// same repository changed too (Thread.Overlaps): "changed" is listed in
// the thread's Changes since it started, read at the end of its latest
// turn; "live" is not archived, not deleted, its worktree not discarded.
// An extension of API.md (issue 31, ADR 0042).
type Overlap struct {
	Path     string `json:"path"`     // relative to the repository's top, "/"-separated
	ThreadID string `json:"threadId"` // the other thread
	// Conflict is set when the two threads work in different checkouts
	// (worktrees): true when merging their latest turn-end snapshots
	// (git merge-tree --write-tree) conflicts in Path, false when it
	// merges cleanly. Absent for two threads in the same checkout, whose
	// edits land in the same file on disk.
	Conflict *bool `json:"conflict,omitempty"`
}
