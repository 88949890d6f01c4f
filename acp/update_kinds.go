package acp

import (
	"encoding/json"
	"fmt"
)

// The session/update kinds added to the schema after the client was first
// written: notices, compaction (stable), plan operations and sub-agent
// sessions (unstable: an agent sends them only to a client that advertised
// clientCapabilities.plan / .subagents). Field names are the schema's
// (@agentclientprotocol/sdk schema/v1).

// Notice is a "notice" update: information for the user that is not part
// of the session's history. Severity is "info", "warning", "error" or a
// future word (kept as sent); Title is required.
type Notice struct {
	Severity    string `json:"severity"`
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
}

// Compaction is a compaction_update (Status set: "in_progress",
// "completed", "failed", "cancelled" or a future word; Summary and Error
// optional) or a compaction_summary_chunk (Status empty; the chunk is the
// update's Content). Both name the compaction by ID.
type Compaction struct {
	ID      string         `json:"compactionId"`
	Status  string         `json:"status,omitempty"`
	Summary []ContentBlock `json:"summary,omitempty"`
	Error   string         `json:"error,omitempty"`
}

// PlanOp is a plan_update (Plan: the plan's content, {type: "items" |
// "file" | "markdown", planId, …} raw as sent) or a plan_removed (Removed
// true). Both name the plan by PlanID.
type PlanOp struct {
	PlanID  string
	Type    string          // "items", "file", "markdown"; "" for a removal
	Plan    json.RawMessage // the update's plan object
	Entries []PlanEntry     // for Type "items"
	Removed bool
}

// Subagent is a subagent_update: a child session this session created and
// owns, or new metadata for it. Cwd and AdditionalDirectories are what the
// agent reports for the child; they never widen what the parent thread
// may touch (the hub confines the child to the parent's folders).
type Subagent struct {
	SessionID             string          `json:"sessionId"`
	Title                 string          `json:"title,omitempty"`
	Description           string          `json:"description,omitempty"`
	State                 json.RawMessage `json:"state,omitempty"`
	Cwd                   string          `json:"cwd,omitempty"`
	AdditionalDirectories []string        `json:"additionalDirectories,omitempty"`
}

func decodeNotice(b []byte) (*Notice, error) {
	var n struct {
		Severity    *string `json:"severity"`
		Title       *string `json:"title"`
		Description *string `json:"description"`
	}
	if err := unmarshal(b, &n); err != nil {
		return nil, err
	}
	if n.Severity == nil || n.Title == nil || *n.Title == "" {
		return nil, fmt.Errorf("severity and a non-empty title are required")
	}
	out := &Notice{Severity: *n.Severity, Title: *n.Title}
	if n.Description != nil {
		out.Description = *n.Description
	}
	return out, nil
}

func decodeCompaction(kind string, b []byte) (*Compaction, error) {
	var c struct {
		ID      *string         `json:"compactionId"`
		Status  *string         `json:"status"`
		Summary []ContentBlock  `json:"summary"`
		Error   *string         `json:"error"`
		Content json.RawMessage `json:"content"`
	}
	if err := unmarshal(b, &c); err != nil {
		return nil, err
	}
	if c.ID == nil || *c.ID == "" {
		return nil, fmt.Errorf("compactionId is required")
	}
	out := &Compaction{ID: *c.ID, Summary: c.Summary}
	switch kind {
	case UpdateCompaction:
		if c.Status == nil || *c.Status == "" {
			return nil, fmt.Errorf("status is required")
		}
		out.Status = *c.Status
		if c.Error != nil {
			out.Error = *c.Error
		}
	case UpdateCompactionSummary:
		if len(c.Content) == 0 {
			return nil, fmt.Errorf("content is required")
		}
	}
	return out, nil
}

func decodePlanOp(kind string, b []byte) (*PlanOp, error) {
	if kind == UpdatePlanRemoved {
		var r struct {
			PlanID *string `json:"planId"`
		}
		if err := unmarshal(b, &r); err != nil {
			return nil, err
		}
		if r.PlanID == nil || *r.PlanID == "" {
			return nil, fmt.Errorf("planId is required")
		}
		return &PlanOp{PlanID: *r.PlanID, Removed: true}, nil
	}
	var u struct {
		Plan json.RawMessage `json:"plan"`
	}
	if err := unmarshal(b, &u); err != nil {
		return nil, err
	}
	var p struct {
		Type    string      `json:"type"`
		PlanID  *string     `json:"planId"`
		Entries []PlanEntry `json:"entries"`
	}
	if len(u.Plan) == 0 {
		return nil, fmt.Errorf("plan is required")
	}
	if err := unmarshal(u.Plan, &p); err != nil {
		return nil, err
	}
	if p.PlanID == nil || *p.PlanID == "" || p.Type == "" {
		return nil, fmt.Errorf("plan needs a type and a planId")
	}
	return &PlanOp{PlanID: *p.PlanID, Type: p.Type, Plan: u.Plan, Entries: p.Entries}, nil
}

func decodeSubagent(b []byte) (*Subagent, error) {
	var s Subagent
	if err := unmarshal(b, &s); err != nil {
		return nil, err
	}
	if s.SessionID == "" {
		return nil, fmt.Errorf("sessionId is required")
	}
	return &s, nil
}
