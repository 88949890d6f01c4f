package hub

import (
	"context"
	"encoding/json"
	"time"
)

// Elicitation statuses. Only "accepted" hands the agent what the user
// entered; every other end tells the agent "decline" or "cancel".
const (
	ElicitationPending   = "pending"
	ElicitationAccepted  = "accepted"
	ElicitationDeclined  = "declined"
	ElicitationCancelled = "cancelled"
	ElicitationExpired   = "expired" // permissions.timeout passed: the agent got "cancel"
)

// Elicitation modes (ACP elicitation/create).
const (
	ElicitationForm = "form" // a form rendered from RequestedSchema
	ElicitationURL  = "url"  // a link the user opens in their browser
)

// Elicitation actions (ElicitationAnswer.Action), as in ACP.
const (
	ElicitAccept  = "accept"
	ElicitDecline = "decline"
	ElicitCancel  = "cancel"
)

// Elicitation is an agent's question to the user (ACP elicitation/create):
// a form (Mode "form", RequestedSchema) or a link (Mode "url", URL). It is
// pending until a person answers, permissions.timeout passes (expired), or
// its turn ends (cancelled). What the user entered goes to the agent and
// is never stored: the record keeps only how it ended.
type Elicitation struct {
	ID       string `json:"id"`
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
	Mode     string `json:"mode"`
	// Message is the agent's text, shown as plain text (never markup).
	Message         string             `json:"message"`
	RequestedSchema *ElicitationSchema `json:"requestedSchema,omitempty"`
	// URL is an absolute http(s) URL without user info (others are
	// refused before they are stored).
	URL string `json:"url,omitempty"`
	// ToolCallID is the agent's tool call this question belongs to, if any.
	ToolCallID string    `json:"toolCallId,omitempty"`
	Status     string    `json:"status"`
	Deadline   time.Time `json:"deadline"`
	// DecidedBy is built by the hub as for a permission (API.md
	// "Conventions"): a surface, "client:<X-Client-ID>", "timeout",
	// "cancel" or "hub".
	DecidedBy string     `json:"decidedBy,omitempty"`
	DecidedAt *time.Time `json:"decidedAt,omitempty"`
	CreatedAt time.Time  `json:"createdAt"`
	Agent     string     `json:"agent,omitempty"`
}

// ElicitationAnswer is the body of POST /v1/elicitations/{id}: Content is
// required for "accept" (checked against the requested schema) and must be
// absent otherwise.
type ElicitationAnswer struct {
	Action  string                     `json:"action"`
	Content map[string]json.RawMessage `json:"content,omitempty"`
}

// ElicitationQuery is GET /v1/elicitations' filters, as PermissionQuery.
type ElicitationQuery struct {
	Status    string `json:"status,omitempty"`
	DecidedBy string `json:"decidedBy,omitempty"`
	Agent     string `json:"agent,omitempty"`
	ThreadID  string `json:"threadId,omitempty"`
	From      string `json:"from,omitempty"`
	To        string `json:"to,omitempty"`
	Limit     int    `json:"limit,omitempty"` // 0: at most MaxPermissionPage
	Cursor    string `json:"cursor,omitempty"`
}

// ElicitationPage is a page of elicitations, newest first.
type ElicitationPage struct {
	Elicitations []Elicitation `json:"elicitations"`
	NextCursor   string        `json:"nextCursor,omitempty"`
}

// ElicitationFilter selects stored elicitations (Store.QueryElicitations);
// its fields mean what PermissionFilter's do.
type ElicitationFilter struct {
	ClientID  string
	All       bool
	ThreadID  string
	Status    string
	DecidedBy string
	Agent     string
	From, To  time.Time
	Limit     int
	Cursor    string
}

// Elicitations is the part of Service that serves the agents' questions.
type Elicitations interface {
	// QueryElicitations lists the elicitations of the threads the caller
	// may see that q selects, newest first, a page at a time. A malformed
	// filter or cursor is INVALID_ARGUMENT.
	QueryElicitations(ctx context.Context, c Caller, q ElicitationQuery) (ElicitationPage, error)
	// AnswerElicitation records the user's answer durably, then tells the
	// agent. INVALID_ARGUMENT (details.field naming the field) for an
	// unknown action or content the schema refuses; CONFLICT when it is no
	// longer pending; NOT_FOUND when unknown or not the caller's to see.
	AnswerElicitation(ctx context.Context, c Caller, id string, a ElicitationAnswer) (Elicitation, error)
}

// ElicitationStore is the part of Store that keeps elicitations.
type ElicitationStore interface {
	GetElicitation(ctx context.Context, id string) (Elicitation, error)
	// QueryElicitations: f's filters, newest first, paged as
	// QueryPermissions.
	QueryElicitations(ctx context.Context, f ElicitationFilter) ([]Elicitation, string, error)
}
