package engine

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// checkContent refuses, before a turn is stored, a prompt that thread t's
// agent cannot take: a block of a type ACP does not define, or an image,
// audio or embedded resource outside the promptCapabilities the agent
// advertised. The capabilities are those of the thread's running agent,
// else those the agent gave in its last initialize (a probe, another
// thread); when neither is known the agent is started and its session
// opened as a turn would (counted against limits.maxAgentProcesses, left
// running for the turn and the idle timer). Text and resource links need
// no check and start nothing.
//
// The error is INVALID_ARGUMENT with details {blockIndex, type, agent}.
func (e *Engine) checkContent(ctx context.Context, t hub.Thread, blocks []acp.ContentBlock) error {
	i := acp.UnsupportedBlock(acp.PromptCapabilities{}, blocks)
	if i < 0 {
		return nil // text and resource links only: every agent takes them
	}
	if j := acp.UnsupportedBlock(everyCap, blocks); j >= 0 {
		return unsupportedContent(t.Agent, blocks, j) // no agent takes it
	}
	caps, known := e.promptCaps(t)
	if !known {
		ctx, cancel := context.WithTimeout(ctx, setCallTimeout)
		defer cancel()
		rt, a, _, err := e.openOutsideTurn(ctx, t)
		if err != nil {
			return err
		}
		e.idleUnlessTurn(rt)
		caps = a.Capabilities().PromptCapabilities
	}
	if i := acp.UnsupportedBlock(caps, blocks); i >= 0 {
		return unsupportedContent(t.Agent, blocks, i)
	}
	return nil
}

// promptCaps returns the prompt capabilities of t's agent: its running
// process's, else the last initialize answer remembered for the agent.
func (e *Engine) promptCaps(t hub.Thread) (acp.PromptCapabilities, bool) {
	rt := e.runtime(t.ID)
	rt.mu.Lock()
	a := rt.agent
	rt.mu.Unlock()
	if agentAlive(a) {
		return a.Capabilities().PromptCapabilities, true
	}
	in, ok := e.agentInit(t.Agent)
	if !ok || in.caps == nil {
		return acp.PromptCapabilities{}, false
	}
	var caps acp.AgentCapabilities
	if err := json.Unmarshal(in.caps, &caps); err != nil {
		return acp.PromptCapabilities{}, false
	}
	return caps.PromptCapabilities, true
}

// everyCap is every prompt capability ACP defines.
var everyCap = acp.PromptCapabilities{Image: true, Audio: true, EmbeddedContext: true}

func unsupportedContent(agent string, blocks []acp.ContentBlock, i int) error {
	typ := blocks[i].Type
	msg := fmt.Sprintf("content[%d]: agent %s does not take %s content", i, agent, typ)
	if acp.UnsupportedBlock(everyCap, blocks[i:i+1]) >= 0 {
		msg = fmt.Sprintf("content[%d]: %q is not an ACP content block type", i, typ)
	}
	return &hub.Error{Code: hub.CodeInvalidArgument, Message: msg,
		Details: map[string]any{"blockIndex": i, "type": typ, "agent": agent}}
}
