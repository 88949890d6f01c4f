package acp

import (
	"encoding/json"
	"fmt"
)

// session/update kinds of ACP v1, and the unstable ones agents already send.
// Any other kind is still delivered, raw, with its own name.
const (
	UpdateUserMessageChunk  = "user_message_chunk"
	UpdateAgentMessageChunk = "agent_message_chunk"
	UpdateAgentThoughtChunk = "agent_thought_chunk"
	UpdateToolCall          = "tool_call"
	UpdateToolCallUpdate    = "tool_call_update"
	UpdatePlan              = "plan"
	UpdateAvailableCommands = "available_commands_update"
	UpdateCurrentMode       = "current_mode_update"
	UpdateConfigOption      = "config_option_update"
	UpdateSessionInfo       = "session_info_update"
	UpdateUsage             = "usage_update"
	// Stable since the schema's 2026 revisions; sent only to a client that
	// advertised clientCapabilities.session.notices / .compaction.
	UpdateNotice            = "notice"
	UpdateCompaction        = "compaction_update"
	UpdateCompactionSummary = "compaction_summary_chunk"
	// Unstable (schema.unstable.json): sent only to a client that
	// advertised clientCapabilities.plan / .subagents.
	UpdatePlanUpdate  = "plan_update"
	UpdatePlanRemoved = "plan_removed"
	UpdateSubagent    = "subagent_update"
)

// SessionNotification is the params of session/update.
type SessionNotification struct {
	SessionID string        `json:"sessionId"`
	Update    SessionUpdate `json:"update"`
}

// SessionUpdate is one update as the agent sent it. Raw always holds the
// exact JSON object; Kind its "sessionUpdate" discriminator. For the kinds
// the hub acts on, the typed fields are filled in as well:
//
//   - message, thought and user chunks: Content, and MessageID when the
//     agent groups chunks into messages (ContentChunk.messageId)
//   - tool_call and tool_call_update: ToolCall
//   - plan: Plan
//   - current_mode_update: ModeID
//   - notice: Notice
//   - compaction_update and compaction_summary_chunk: Compaction (with
//     Content for a summary chunk)
//   - plan_update and plan_removed: PlanOp
//   - subagent_update: Subagent
//   - usage_update: RateLimit, when its _meta reports a limit hit
//     (ratelimit.go)
//
// A kind this package does not know keeps only Kind and Raw; it is never
// dropped or renamed. A known kind whose fields do not parse keeps Kind and
// Raw too, with no typed field set and ParseErr saying why. Marshalling a
// SessionUpdate writes Raw unchanged.
type SessionUpdate struct {
	Kind     string
	Raw      json.RawMessage
	Content  *ContentBlock
	ToolCall *ToolCall
	Plan     []PlanEntry
	ModeID   string
	// MessageID groups chunks into one message: chunks with the same id
	// are one message, whatever comes between them ("" when not sent).
	MessageID  string
	Notice     *Notice
	Compaction *Compaction
	PlanOp     *PlanOp
	Subagent   *Subagent
	RateLimit  *RateLimit
	ParseErr   error
}

// ToolCall is a tool_call or a tool_call_update: only ToolCallID is
// required; an update carries just the fields that changed. Content, raw
// input and raw output stay as the agent sent them.
type ToolCall struct {
	ToolCallID string  `json:"toolCallId"`
	Title      *string `json:"title,omitempty"`
	// Name is the tool's own name (e.g. "Bash"), where Title is what
	// the agent says it does.
	Name      *string            `json:"name,omitempty"`
	Kind      *string            `json:"kind,omitempty"`
	Status    *string            `json:"status,omitempty"`
	Content   json.RawMessage    `json:"content,omitempty"`
	Locations []ToolCallLocation `json:"locations,omitempty"`
	RawInput  json.RawMessage    `json:"rawInput,omitempty"`
	RawOutput json.RawMessage    `json:"rawOutput,omitempty"`
}

// ToolCallLocation is a file a tool call touches.
type ToolCallLocation struct {
	Path string `json:"path"`
	Line *int   `json:"line,omitempty"`
}

// PlanEntry is one step of the agent's plan.
type PlanEntry struct {
	Content  string `json:"content"`
	Priority string `json:"priority"`
	Status   string `json:"status"`
}

// UnmarshalJSON keeps the raw object and parses the kinds listed above in
// one pass over b (plus the small content object of a chunk). It fails only
// when b is not an object with a "sessionUpdate" string.
func (u *SessionUpdate) UnmarshalJSON(b []byte) error {
	var v struct {
		Kind          string          `json:"sessionUpdate"`
		Content       json.RawMessage `json:"content"`
		Entries       json.RawMessage `json:"entries"`
		CurrentModeID json.RawMessage `json:"currentModeId"`
		MessageID     *string         `json:"messageId"`
		Meta          json.RawMessage `json:"_meta"`
	}
	err := unmarshal(b, &v)
	if v.Kind == "" {
		if err == nil {
			err = fmt.Errorf("missing sessionUpdate")
		}
		return fmt.Errorf("session update: %w", err)
	}
	*u = SessionUpdate{Kind: v.Kind, Raw: append(json.RawMessage(nil), b...)}
	if err == nil {
		switch v.Kind {
		case UpdateUserMessageChunk, UpdateAgentMessageChunk, UpdateAgentThoughtChunk:
			var c ContentBlock
			err = unmarshal(v.Content, &c)
			u.Content = &c
			if v.MessageID != nil {
				u.MessageID = *v.MessageID
			}
		case UpdateToolCall, UpdateToolCallUpdate:
			var tc ToolCall
			err = unmarshal(b, &tc)
			u.ToolCall = &tc
		case UpdatePlan:
			err = unmarshal(v.Entries, &u.Plan)
		case UpdateCurrentMode:
			err = unmarshal(v.CurrentModeID, &u.ModeID)
		case UpdateNotice:
			u.Notice, err = decodeNotice(b)
		case UpdateCompaction, UpdateCompactionSummary:
			u.Compaction, err = decodeCompaction(v.Kind, b)
			if err == nil && v.Kind == UpdateCompactionSummary {
				var c ContentBlock
				err = unmarshal(v.Content, &c)
				u.Content = &c
			}
		case UpdatePlanUpdate, UpdatePlanRemoved:
			u.PlanOp, err = decodePlanOp(v.Kind, b)
		case UpdateSubagent:
			u.Subagent, err = decodeSubagent(b)
		case UpdateUsage:
			// A _meta that does not parse is no limit: the usage stands.
			u.RateLimit = readRateLimit(v.Meta)
		}
	}
	if err != nil {
		*u = SessionUpdate{Kind: u.Kind, Raw: u.Raw, ParseErr: fmt.Errorf("session update %s: %w", v.Kind, err)}
	}
	return nil
}

// MarshalJSON writes the update exactly as it was received.
func (u SessionUpdate) MarshalJSON() ([]byte, error) {
	if len(u.Raw) == 0 {
		return nil, fmt.Errorf("session update %q has no raw form", u.Kind)
	}
	return u.Raw, nil
}
