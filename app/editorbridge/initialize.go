package editorbridge

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

// initialize: the hub is found (or started), the agent looked up, and the
// editor told what the bridge can do.

func (b *server) initialize(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		ProtocolVersion int                 `json:"protocolVersion"`
		ClientInfo      *acp.Implementation `json:"clientInfo"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, acp.NewError(acp.CodeInvalidParams, "initialize: %v", err)
	}
	if p.ClientInfo != nil {
		b.hub.SetClientID(clientID(p.ClientInfo.Name))
	}
	b.mu.Lock()
	b.editorCaps = editorCapabilities(params)
	b.editorElicit = editorElicitation(params)
	b.mu.Unlock()
	if err := b.ensureHub(ctx); err != nil {
		return nil, err
	}
	agent, ids, err := b.hubAgent(ctx)
	if err != nil {
		return nil, err
	}
	if agent != nil && agent.Status == hub.AgentAvailable && len(agent.Capabilities) == 0 {
		// A hub that has just started probes its agents in the
		// background: give it a moment to learn the capabilities.
		deadline := time.Now().Add(capabilitiesWait)
		for len(agent.Capabilities) == 0 && time.Now().Before(deadline) {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
			if a, _, err := b.hubAgent(ctx); err == nil && a != nil {
				agent = a
			}
		}
	}
	if agent == nil {
		return nil, acp.NewError(acp.CodeInvalidParams, "switchboard: unknown agent %q: the hub knows %s", b.opts.Agent, strings.Join(ids, ", "))
	}
	if agent.Status == hub.AgentUnavailable {
		return nil, acp.NewError(acp.CodeInternalError, "switchboard: agent %q is unavailable: %s", b.opts.Agent, agent.Reason)
	}
	return map[string]any{
		"protocolVersion":   acp.ProtocolVersion,
		"agentCapabilities": bridgeCapabilities(agent.Capabilities),
		"agentInfo":         acp.Implementation{Name: "switchboard", Title: agent.Name + " via Switchboard", Version: b.opts.Version},
		"authMethods":       []any{},
	}, nil
}

// capabilitiesWait bounds how long initialize waits for the hub to learn
// the agent's capabilities; past it, the bridge answers conservative ones.
const capabilitiesWait = 2 * time.Second

// hubAgent returns the hub's entry for the bridge's agent (nil if the hub
// does not know it) and the ids of the agents it knows.
func (b *server) hubAgent(ctx context.Context) (*hub.Agent, []string, error) {
	agents, err := b.agents(ctx)
	if err != nil {
		return nil, nil, err
	}
	var ids []string
	for i, a := range agents {
		ids = append(ids, a.ID)
		if a.ID == b.opts.Agent {
			return &agents[i], nil, nil
		}
	}
	return nil, ids, nil
}

// agents are the agents the sessions can use: the hub's, or the host's
// (GET /v1/hosts/{name}/agents) with Options.Host.
func (b *server) agents(ctx context.Context) ([]hub.Agent, error) {
	if b.opts.Host != "" {
		return b.hub.HostAgents(ctx, b.opts.Host)
	}
	return b.hub.Agents(ctx)
}

// bridgeCapabilities is what the bridge advertises: the agent's prompt
// capabilities as the hub reported them (none when the hub has not probed
// the agent), plus what the bridge serves itself over the hub's history:
// session/load, session/list and session/resume. MCP servers are not
// passed on by the hub, so no MCP capability is claimed.
func bridgeCapabilities(reported json.RawMessage) map[string]any {
	var agent struct {
		PromptCapabilities json.RawMessage `json:"promptCapabilities"`
		// Set when the hub reports the agent's whole initialize answer.
		AgentCapabilities *struct {
			PromptCapabilities json.RawMessage `json:"promptCapabilities"`
		} `json:"agentCapabilities"`
	}
	prompt := json.RawMessage(`{}`)
	if len(reported) > 0 && json.Unmarshal(reported, &agent) == nil {
		p := agent.PromptCapabilities
		if agent.AgentCapabilities != nil {
			p = agent.AgentCapabilities.PromptCapabilities
		}
		if len(p) > 0 && p[0] == '{' {
			prompt = p
		}
	}
	return map[string]any{
		"loadSession":         true,
		"promptCapabilities":  prompt,
		"sessionCapabilities": map[string]any{"list": struct{}{}, "resume": struct{}{}},
	}
}

// ensureHub connects to the running hub, or starts one when none runs
// (hub.json missing or unreadable, or naming a hub that does not answer,
// or a program that is not the hub: a stale hub.json whose port another
// program took, which is never sent the token).
func (b *server) ensureHub(ctx context.Context) error {
	_, err := b.hub.Connect(ctx)
	if err == nil {
		return nil
	}
	var unreachable *client.UnreachableError
	var unreadable *client.DataDirError
	var notHub *client.NotHubError
	if !errors.Is(err, client.ErrNoHub) && !errors.As(err, &unreachable) && !errors.As(err, &unreadable) && !errors.As(err, &notHub) {
		return err
	}
	if serr := b.startServe(ctx); serr != nil {
		return acp.NewError(acp.CodeInternalError, "switchboard: %v; starting one failed: %v", err, serr)
	}
	return nil
}
