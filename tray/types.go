package tray

import (
	"encoding/json"
	"time"
)

// The tray's own view of the API's resources (docs/API.md "Resources"):
// only the fields it uses. It decodes the API's JSON and imports nothing of
// the hub.

// Thread is a conversation with one agent.
type Thread struct {
	ID     string `json:"id"`
	Agent  string `json:"agent"`
	Title  string `json:"title"`
	Status string `json:"status"` // idle, running, closed
}

// Turn is one prompt and its run.
type Turn struct {
	ID        string    `json:"id"`
	ThreadID  string    `json:"threadId"`
	Status    string    `json:"status"` // running, completed, cancelled, failed, interrupted
	StartedAt time.Time `json:"startedAt"`
}

// Option is one choice an agent offers on a permission.
type Option struct {
	OptionID string `json:"optionId"`
	Name     string `json:"name"`
	Kind     string `json:"kind"` // allow_once, allow_always, reject_once, reject_always
}

// Permission is an agent's request, waiting for a decision while pending.
type Permission struct {
	ID        string          `json:"id"`
	ThreadID  string          `json:"threadId"`
	TurnID    string          `json:"turnId"`
	Status    string          `json:"status"`
	ToolCall  json.RawMessage `json:"toolCall"`
	Options   []Option        `json:"options"`
	Deadline  time.Time       `json:"deadline"`
	CreatedAt time.Time       `json:"createdAt"`
	DecidedBy string          `json:"decidedBy,omitempty"`
	OptionID  string          `json:"optionId,omitempty"`
}

// ToolTitle is the tool call's title, else its kind, else "a tool call".
func (p Permission) ToolTitle() string {
	var tc struct {
		Title string `json:"title"`
		Kind  string `json:"kind"`
	}
	_ = json.Unmarshal(p.ToolCall, &tc)
	switch {
	case tc.Title != "":
		return tc.Title
	case tc.Kind != "":
		return tc.Kind
	}
	return "a tool call"
}

// Agent is an agent the hub can start.
type Agent struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// Event is one event of GET /v1/events with the payload fields the tray
// reads: permission (permission_required, permission_resolved), turn
// (turn_completed) and thread (thread_updated).
type Event struct {
	Seq        int64       `json:"seq"`
	Type       string      `json:"type"`
	ThreadID   string      `json:"threadId"`
	TurnID     string      `json:"turnId"`
	At         time.Time   `json:"at"`
	Permission *Permission `json:"permission,omitempty"`
	Turn       *Turn       `json:"turn,omitempty"`
	Thread     *Thread     `json:"thread,omitempty"`
	// Message is config_error's: why the config file was refused, "" once
	// it is valid again.
	Message string `json:"message,omitempty"`
}

// Event types the tray acts on; it ignores the others.
const (
	evTurnStarted        = "turn_started"
	evTurnCompleted      = "turn_completed"
	evPermissionRequired = "permission_required"
	evPermissionResolved = "permission_resolved"
	evThreadUpdated      = "thread_updated"
	evConfigError        = "config_error"
)

// Decision is the body of POST /v1/permissions/{id}: exactly one of
// OptionID and Outcome ("approved" or "declined").
type Decision struct {
	OptionID string
	Outcome  string
}
