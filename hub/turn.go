package hub

import (
	"encoding/json"
	"time"
)

// Turn statuses.
const (
	TurnRunning     = "running"
	TurnCompleted   = "completed"
	TurnCancelled   = "cancelled"
	TurnFailed      = "failed"
	TurnInterrupted = "interrupted" // the hub stopped while it ran
)

// Turn is one prompt and everything the agent did for it.
type Turn struct {
	ID       string `json:"id"`
	ThreadID string `json:"threadId"`
	Status   string `json:"status"`
	Input    string `json:"input"`
	// Content is the prompt as ACP content blocks, when given as such.
	Content    json.RawMessage `json:"content,omitempty"`
	Output     string          `json:"output"`
	StopReason string          `json:"stopReason,omitempty"`
	Error      string          `json:"error,omitempty"`
	StartedAt  time.Time       `json:"startedAt"`
	EndedAt    *time.Time      `json:"endedAt,omitempty"`
	// Internal turns (compact's summary request) are hidden from history
	// unless asked for.
	Internal bool `json:"internal,omitempty"`
}

// Ended reports whether the turn reached a final status.
func (t Turn) Ended() bool { return t.Status != TurnRunning }
