package engine

import (
	"encoding/json"
	"fmt"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// Instructions, the client system prompt (ADR 0050). A new thread combines
// its agent's instructions (acp.AgentSpec.Instructions) with its folder's
// (the most specific folders rule that sets them), agent first, and keeps
// the result (hub.Thread.Instructions): every session of the thread is
// opened with the same text (sessionDirs), so what the agent got never
// changes under the thread when Settings change. Where the agent does not
// advertise sessionCapabilities.systemPrompt nothing is sent and the thread
// says so (Delivery, recordSession); override mode to an agent that
// advertises only append is refused (overrideRefusal), never sent as
// append.

// reasonInstructionsOverride is the details.reason of a thread or a turn
// refused because its instructions ask for override mode and the agent
// takes only append.
const reasonInstructionsOverride = "INSTRUCTIONS_OVERRIDE_UNSUPPORTED"

// instructionsFor is the instructions of the most specific folders rule
// matching cwd that sets them (nil: none).
func (c Config) instructionsFor(cwd string) *acp.SystemPrompt {
	var best *FolderRule
	for i := range c.Folders {
		r := &c.Folders[i]
		if r.Instructions == nil || !MatchFolder(r.Glob, cwd) {
			continue
		}
		if best == nil || moreSpecific(r.Glob, best.Glob) {
			best = r
		}
	}
	if best == nil {
		return nil
	}
	return best.Instructions
}

// threadInstructions are what a new thread of spec's agent in cwd runs
// with (nil: none), or the refusal of override mode when the agent's last
// known initialize advertised only append (an agent not yet started is
// checked when its session opens instead).
func (e *Engine) threadInstructions(spec acp.AgentSpec, cwd string) (*hub.ThreadInstructions, error) {
	in := hub.CombineInstructions(hubInstructions(spec.Instructions), hubInstructions(e.config().instructionsFor(cwd)))
	if in == nil {
		return nil, nil
	}
	if ai, ok := e.agentInit(spec.ID); ok && ai.caps != nil {
		var caps acp.AgentCapabilities
		if json.Unmarshal(ai.caps, &caps) == nil {
			if err := overrideRefusal(spec.ID, in, caps.SystemPromptSupport()); err != nil {
				return nil, err
			}
		}
	}
	return in, nil
}

func hubInstructions(p *acp.SystemPrompt) *hub.Instructions {
	if p == nil {
		return nil
	}
	return &hub.Instructions{Mode: p.Mode, Text: p.Text}
}

// overrideRefusal is the CONFLICT error of instructions in override mode
// for an agent that advertises the system prompt in append mode only; nil
// otherwise (an agent without the capability gets nothing: Delivery says
// so).
func overrideRefusal(agentID string, in *hub.ThreadInstructions, s acp.SystemPromptSupport) error {
	if in == nil || in.Mode != hub.InstructionsOverride || !s.Append || s.Override {
		return nil
	}
	return &hub.Error{Code: hub.CodeConflict,
		Message: fmt.Sprintf("%s takes instructions only in append mode, and this thread's instructions (from %v) ask to override its own: set their mode to append in Settings, or use another agent", agentID, in.From),
		Details: map[string]any{"reason": reasonInstructionsOverride, "agent": agentID}}
}
