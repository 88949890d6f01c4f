package acp

import (
	"encoding/json"
	"fmt"
)

// The client system prompt (unstable in ACP v1: schema.unstable.json's
// SessionCapabilities.systemPrompt and SystemPrompt; ADR 0050).

// System prompt modes (SystemPrompt.Mode).
const (
	// SystemPromptAppend adds the text to the agent's own instructions;
	// every agent that advertises sessionCapabilities.systemPrompt takes it.
	SystemPromptAppend = "append"
	// SystemPromptOverride replaces the agent's built-in instructions;
	// only an agent that advertises systemPrompt.mode.override takes it.
	SystemPromptOverride = "override"
)

// SystemPrompt is client-provided system-level instructions for a session:
// Mode (SystemPromptAppend or SystemPromptOverride) and Text, sent as one
// text content block. The zero value (no Text) is no system prompt.
//
// The config file's instructions ({mode, text}) decode into it as well.
type SystemPrompt struct {
	Mode string `mapstructure:"mode" yaml:"mode" json:"mode,omitempty"`
	Text string `mapstructure:"text" yaml:"text" json:"text"`
}

// IsZero reports whether p carries nothing to send.
func (p SystemPrompt) IsZero() bool { return p.Text == "" }

// SystemPromptSupport is what an agent advertised about the system prompt:
// Append when sessionCapabilities.systemPrompt is present (not null),
// Override when its mode.override is present too.
type SystemPromptSupport struct {
	Append   bool
	Override bool
}

// SystemPromptSupport reads c's sessionCapabilities.systemPrompt.
func (c AgentCapabilities) SystemPromptSupport() SystemPromptSupport {
	raw := c.SessionCapabilities.SystemPrompt
	if !advertised(raw) {
		return SystemPromptSupport{}
	}
	var caps struct {
		Mode *struct {
			Override json.RawMessage `json:"override"`
		} `json:"mode"`
	}
	_ = json.Unmarshal(raw, &caps) // a malformed mode (x-deserialize-default-on-error): append only
	return SystemPromptSupport{Append: true, Override: caps.Mode != nil && advertised(caps.Mode.Override)}
}

// Takes reports whether an agent with support s takes p: false for an
// empty p, an agent that does not advertise the capability, or override
// when only append is advertised (and for a mode ACP does not name).
func (s SystemPromptSupport) Takes(p SystemPrompt) bool {
	switch {
	case p.IsZero() || !s.Append:
		return false
	case p.Mode == SystemPromptAppend:
		return true
	case p.Mode == SystemPromptOverride:
		return s.Override
	}
	return false
}

// systemPromptParam is p as the session requests carry it, when the agent
// advertised support s: nil when there is nothing to send or the agent does
// not advertise the capability (the caller records that it was not sent),
// an error wrapping ErrUnsupported for a mode the agent does not take (never
// sent as append instead: the user chose to replace the agent's own
// instructions).
func systemPromptParam(p SystemPrompt, s SystemPromptSupport) (any, error) {
	if p.IsZero() || !s.Append {
		return nil, nil
	}
	if !s.Takes(p) {
		return nil, fmt.Errorf("systemPrompt in %s mode: %w (the agent advertises only append)", p.Mode, ErrUnsupported)
	}
	return map[string]any{"mode": p.Mode, "content": []ContentBlock{TextBlock(p.Text)}}, nil
}
