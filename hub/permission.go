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

// Who decided a permission (Permission.DecidedBy), besides the surfaces
// (SurfaceWindow …) and DecidedByOf's "client:<id>".
const (
	DecidedByTimeout = "timeout" // the deadline passed
	DecidedByCancel  = "cancel"  // the turn was cancelled while it was pending
	DecidedByHub     = "hub"     // shutdown, agent exit, restart, a turn that ended otherwise
	// DecidedByAgent ends a URL-mode elicitation the agent said is
	// complete (elicitation/complete) before anyone answered it.
	DecidedByAgent = "agent"
	// DecidedByClientPrefix prefixes the X-Client-ID of a token holder
	// with no proved surface (scripts, editors, the editor bridge).
	DecidedByClientPrefix = "client:"
	// DecidedByRulePrefix and DecidedByRememberedPrefix are reserved for
	// rules: "rule:<name>" (a config rule), "remembered:<ruleId>" (a
	// decision remembered for a thread, folder or agent).
	DecidedByRulePrefix       = "rule:"
	DecidedByRememberedPrefix = "remembered:"
	// DecidedByCoveredPrefix records a terminal that ran without a card
	// of its own: "covered:<permissionId>", the earlier execute request
	// a person (or an execute rule) approved whose argv, cwd and env
	// equal the terminal's.
	DecidedByCoveredPrefix = "covered:"
)

// PermissionOption is one choice the agent offered.
type PermissionOption struct {
	OptionID string `json:"optionId"`
	Name     string `json:"name"`
	Kind     string `json:"kind"`
}

// Permission is an agent's request to do something, waiting for the user.
type Permission struct {
	ID       string `json:"id"`
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
	Status   string `json:"status"`
	// Kind is who raised it and about what (PermKindAgent …): "" only in
	// permissions stored before the hub described requests.
	Kind string `json:"kind,omitempty"`
	// Request is the hub's description of what an approval allows
	// (permission_request.go): what rules match, what every surface
	// shows and what the audit keeps. nil only in permissions stored
	// before the hub described requests.
	Request  *PermissionRequest `json:"request,omitempty"`
	ToolCall json.RawMessage    `json:"toolCall"`
	Options  []PermissionOption `json:"options"`
	Deadline time.Time          `json:"deadline"`
	// DecidedBy is built by the hub, never copied from a request (API.md
	// "Conventions"): "window", "notification", "browser", "tray" (a
	// surface its credential proved), "client:<X-Client-ID>" (any other
	// token holder), "link:<surface>" (a decision that came over a host's
	// link, host.go), "rule:<name>", "remembered:<ruleId>", "timeout",
	// "cancel" or "hub".
	DecidedBy string     `json:"decidedBy,omitempty"`
	OptionID  string     `json:"optionId,omitempty"`
	DecidedAt *time.Time `json:"decidedAt,omitempty"`
	CreatedAt time.Time  `json:"createdAt"`
	// Agent is the id of the thread's agent (for the inbox and the audit).
	Agent string `json:"agent,omitempty"`
	// Host is the host whose agent asks, for a host's copy (its ID is
	// "<id>@<host>", host.go); "" on this machine. Derived from the ID.
	Host string `json:"host,omitempty"`
	// EscalatedAt is when the request, still pending after
	// permissions.escalateAfter, was escalated (permission_escalated).
	EscalatedAt *time.Time `json:"escalatedAt,omitempty"`
}
