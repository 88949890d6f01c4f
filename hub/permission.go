package hub

import (
	"encoding/json"
	"time"
)

// Permission statuses. Only "approved" lets an agent proceed; every other
// end is a refusal.
const (
	PermissionPending   = "pending"
	PermissionApproved  = "approved"
	PermissionDeclined  = "declined"
	PermissionCancelled = "cancelled"
	PermissionExpired   = "expired"
)

// Who decided a permission (Permission.DecidedBy).
const (
	DecidedByTimeout = "timeout"
	DecidedByHub     = "hub" // cancel, shutdown, agent exit, restart
)

// PermissionOption is one choice the agent offered.
type PermissionOption struct {
	OptionID string `json:"optionId"`
	Name     string `json:"name"`
	Kind     string `json:"kind"`
}

// Permission is an agent's request to do something, waiting for the user.
type Permission struct {
	ID       string             `json:"id"`
	ThreadID string             `json:"threadId"`
	TurnID   string             `json:"turnId"`
	Status   string             `json:"status"`
	ToolCall json.RawMessage    `json:"toolCall"`
	Options  []PermissionOption `json:"options"`
	Deadline time.Time          `json:"deadline"`
	// DecidedBy is the client id, or "window", "tray", "notification",
	// "editor", "timeout", "hub".
	DecidedBy string     `json:"decidedBy,omitempty"`
	OptionID  string     `json:"optionId,omitempty"`
	DecidedAt *time.Time `json:"decidedAt,omitempty"`
	CreatedAt time.Time  `json:"createdAt"`
}
