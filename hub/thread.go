package hub

import (
	"encoding/json"
	"time"
)

// Thread statuses.
const (
	ThreadIdle    = "idle"
	ThreadRunning = "running"
	ThreadClosed  = "closed"
)

// Thread is a conversation with one agent in one folder, owned by the
// client that created it.
type Thread struct {
	ID        string    `json:"id"`
	Agent     string    `json:"agent"`
	Cwd       string    `json:"cwd"`
	Title     string    `json:"title"`
	ClientID  string    `json:"clientId"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	// Archived threads are hidden from GET /v1/threads unless asked for
	// (ThreadQuery.Archived); their status, turns and permissions are
	// unchanged. An extension of API.md.
	Archived bool `json:"archived"`
	// Host is the host the thread runs on, for a host's copy (its ID is
	// "<id>@<host>", host.go); "" on this machine. Derived from the ID.
	Host string `json:"host,omitempty"`

	// Modes is the agent session's ACP SessionModeState
	// ({"currentModeId","availableModes"}) and ConfigOptions its ACP
	// configOptions list, both as the agent last reported them (from
	// session/new, load or resume, current_mode_update,
	// config_option_update, or a set call's answer); absent until the
	// thread's agent session has been opened by an agent that has them.
	// Extensions of API.md.
	Modes         json.RawMessage `json:"modes,omitempty"`
	ConfigOptions json.RawMessage `json:"configOptions,omitempty"`
	// AvailableCommands is the agent's ACP availableCommands list (its
	// slash commands), raw as it last reported them in an
	// available_commands_update; absent until then. An extension of API.md.
	AvailableCommands json.RawMessage `json:"availableCommands,omitempty"`

	// ClientCapabilities are the ACP clientCapabilities of the editor that
	// created the thread (CreateThreadRequest.ClientCapabilities): the
	// agent's fs/terminal requests they cover go to it as client requests.
	// Absent when the owner serves nothing. An extension of API.md.
	ClientCapabilities *ClientCapabilities `json:"clientCapabilities,omitempty"`

	// AdditionalDirectories are the thread's extra folders (absolute,
	// cleaned), set at creation: its agent's sessions get them as ACP
	// additionalDirectories where the agent advertises them, and the hub
	// serves the agent's fs/* requests in them as in its own folder (ADR
	// 0047). An extension of API.md.
	AdditionalDirectories []string `json:"additionalDirectories,omitempty"`

	// Instructions are the client system prompt the thread's agent
	// sessions are opened with (instructions.go; ADR 0050): absent when
	// neither its agent nor its folder has any. An extension of API.md.
	Instructions *ThreadInstructions `json:"instructions,omitempty"`

	// Worktree is set for a thread made "in a new worktree" (issue 19):
	// its agent runs in Worktree.Path.
	Worktree *Worktree `json:"worktree,omitempty"`

	// Overlaps are the files this thread changed that another live
	// thread of the same repository changed too (Overlap), sorted by
	// path then thread; absent when there are none. Derived from git by
	// the engine after each turn (never stored). An extension of API.md.
	Overlaps []Overlap `json:"overlaps,omitempty"`

	// Summary is the thread's stored summary (from compact): what the
	// new session compaction opens is primed with, and the context of a
	// session that cannot be reopened. CompactedAt is when the thread was
	// last compacted. Extensions of API.md; absent until then.
	Summary     string     `json:"summary,omitempty"`
	CompactedAt *time.Time `json:"compactedAt,omitempty"`
	// LimitedUntil is when the agent's provider accepts requests again,
	// set when the agent reported a rate limit with its reset time (a
	// usage_update's _meta or a prompt's error: acp.RateLimit); absent
	// when not limited. Waiting and resuming at that time belong to the
	// queue (issue 33), which clears it through Engine.SetLimitedUntil. An
	// extension of API.md.
	LimitedUntil *time.Time `json:"limitedUntil,omitempty"`
	// Queued is the length of the thread's queue of prompts (hub/queue.go);
	// QueuePaused, when set, says why the queue waits for the user
	// (QueuePaused*): nothing is sent until SendNext. Extensions of API.md.
	Queued      int    `json:"queued,omitempty"`
	QueuePaused string `json:"queuePaused,omitempty"`
	// Imported is set for a thread made from the agent's own session
	// (ImportSession): which session, and where its history is. An
	// extension of API.md.
	Imported *ImportedSession `json:"imported,omitempty"`
	// AgentSessionID is the agent's ACP session id of the thread's last
	// session, for session/load or session/resume.
	AgentSessionID string `json:"-"`
	// Deleted threads are kept for the event log's integrity but are
	// invisible through every read.
	Deleted bool `json:"-"`
}
