package hub

import (
	"strings"
	"unicode/utf8"
)

// Instructions: the client system prompt (ADR 0050). The user writes
// instructions per agent (agents.<id>.instructions) and per folder
// (folders.<glob>.instructions); a new thread combines them once, at
// creation (ThreadInstructions), and its agent's sessions are opened with
// them as ACP's unstable systemPrompt where the agent advertises it.

// Instruction modes (Instructions.Mode).
const (
	// InstructionsAppend adds the text to the agent's own instructions.
	InstructionsAppend = "append"
	// InstructionsOverride replaces the agent's built-in instructions;
	// only an agent that advertises systemPrompt.mode.override takes it.
	InstructionsOverride = "override"
)

// Where a thread's instructions came from (ThreadInstructions.From).
const (
	InstructionsFromAgent  = "agent"
	InstructionsFromFolder = "folder"
)

// Delivery of a thread's instructions (ThreadInstructions.Delivery).
const (
	// InstructionsSent: the thread's last session was opened with them.
	InstructionsSent = "sent"
	// InstructionsNotSent: the thread's agent does not advertise
	// sessionCapabilities.systemPrompt, so its last session was opened
	// without them.
	InstructionsNotSent = "not_sent"
)

// MaxInstructionsBytes bounds Instructions.Text.
const MaxInstructionsBytes = 32 << 10

// Instructions are one agent's or one folder's instructions as the config
// file holds them: Mode (InstructionsAppend, the default, or
// InstructionsOverride) and Text.
type Instructions struct {
	Mode string `json:"mode,omitempty"`
	Text string `json:"text"`
}

// IsZero reports whether i holds no text (nothing to send).
func (i Instructions) IsZero() bool { return strings.TrimSpace(i.Text) == "" }

// Validate checks i as the settings field named field: a known mode, UTF-8
// text without NUL of at most MaxInstructionsBytes. Its error is a
// FieldError naming field.mode or field.text.
func (i Instructions) Validate(field string) error {
	if i.Mode != "" && i.Mode != InstructionsAppend && i.Mode != InstructionsOverride {
		return FieldError(field+".mode", "%s.mode must be append or override, not %q", field, i.Mode)
	}
	if len(i.Text) > MaxInstructionsBytes {
		return FieldError(field+".text", "%s.text is %d bytes: at most %d", field, len(i.Text), MaxInstructionsBytes)
	}
	if !utf8.ValidString(i.Text) || strings.ContainsRune(i.Text, 0) {
		return FieldError(field+".text", "%s.text must be UTF-8 text without NUL characters", field)
	}
	return nil
}

// ThreadInstructions are the instructions a thread's agent sessions are
// opened with: the agent's then the folder's, combined at the thread's
// creation (ADR 0050) and never changed after, and whether its last
// session got them.
type ThreadInstructions struct {
	// Mode is InstructionsOverride when any source asks to override,
	// else InstructionsAppend.
	Mode string `json:"mode"`
	// Text is the agent's text, then the folder's, a blank line between.
	Text string `json:"text"`
	// From names the sources, in order: InstructionsFromAgent,
	// InstructionsFromFolder.
	From []string `json:"from"`
	// Delivery is InstructionsSent or InstructionsNotSent once a session
	// has been opened (the last one); absent before.
	Delivery string `json:"delivery,omitempty"`
}

// CombineInstructions is what a new thread runs with, given its agent's
// and its folder's instructions (nil or zero: none): nil when neither
// holds text.
func CombineInstructions(agent, folder *Instructions) *ThreadInstructions {
	var out ThreadInstructions
	var texts []string
	for _, src := range []struct {
		in   *Instructions
		from string
	}{{agent, InstructionsFromAgent}, {folder, InstructionsFromFolder}} {
		if src.in == nil || src.in.IsZero() {
			continue
		}
		texts = append(texts, strings.TrimSpace(src.in.Text))
		out.From = append(out.From, src.from)
		if src.in.Mode == InstructionsOverride {
			out.Mode = InstructionsOverride
		}
	}
	if len(texts) == 0 {
		return nil
	}
	if out.Mode == "" {
		out.Mode = InstructionsAppend
	}
	out.Text = strings.Join(texts, "\n\n")
	return &out
}
