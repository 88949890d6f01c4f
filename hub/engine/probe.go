package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// Probes: what each agent is (its initialize answer: version,
// capabilities, sign-in methods) before any thread runs it, for GET
// /v1/agents and the capability card (ADR 0047). With Options.ProbeAgents
// every available agent is probed once at start, and an agent added or
// changed later (SetAgents: a custom agent added in Settings) is probed at
// once, and agents_changed {reason: "probe", agent} says when it is done.
// A probe that fails leaves Agent.probeError: why, in words, and the end
// of what the agent printed on stderr.

// probeTimeout bounds one background probe.
const probeTimeout = 15 * time.Second

// probeStderrMax bounds the stderr tail a failed probe keeps.
const probeStderrMax = 2048

// startProbes probes every agent of the catalogue the engine has not heard
// from yet, and turns on probing agents as SetAgents adds them. Close
// stops them.
func (e *Engine) startProbes() {
	ctx, cancel := context.WithCancel(context.Background())
	e.mu.Lock()
	e.probeCtx, e.stopProbes = ctx, cancel
	e.mu.Unlock()
	e.probeAgents(ctx, e.catalogue(), false)
}

// probeAgents runs initialize on each available agent of specs the engine
// has not heard from yet, two at a time, in the background. With announce,
// each probe's end (success or failure) is an agents_changed event.
func (e *Engine) probeAgents(ctx context.Context, specs []acp.AgentSpec, announce bool) {
	if ctx.Err() != nil {
		return
	}
	e.probes.Add(1)
	go func() {
		defer e.probes.Done()
		sem := make(chan struct{}, 2)
		var wg sync.WaitGroup
		for _, s := range specs {
			if s.Disabled || !acp.Detect(s).Available {
				continue
			}
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			wg.Add(1)
			go func() {
				defer func() { <-sem; wg.Done() }()
				if e.probe(ctx, s) && announce && ctx.Err() == nil {
					if err := e.Announce(hub.EventAgentsChanged, map[string]string{"reason": "probe", "agent": s.ID}); err != nil {
						e.log.Warn("hub: announcing a probe failed", "agent", s.ID, "err", err)
					}
				}
			}()
		}
		wg.Wait()
	}()
}

// probe runs one agent's initialize and remembers the answer, or why it
// failed. It reports whether it probed (false: the agent was known already,
// being started, or the probe was cancelled).
func (e *Engine) probe(ctx context.Context, s acp.AgentSpec) bool {
	done, ok := e.probing(s.ID)
	if !ok {
		return false
	}
	defer done()
	r, err := acp.Probe(ctx, s.Command, e.agentOpts, probeTimeout)
	if ctx.Err() != nil {
		return false
	}
	if err != nil {
		e.log.Info("hub: probing an agent failed", "agent", s.ID, "err", err)
		e.mu.Lock()
		if e.probeErrs == nil {
			e.probeErrs = map[string]hub.AgentProbeError{}
		}
		e.probeErrs[s.ID] = probeFailure(err)
		e.mu.Unlock()
		return true
	}
	e.mu.Lock()
	delete(e.probeErrs, s.ID)
	e.mu.Unlock()
	if _, known := e.agentInit(s.ID); !known { // a real start wins
		e.rememberInit(s.ID, acp.InitializeResponse{Raw: r.Raw, AgentInfo: &acp.Implementation{Name: r.Name, Version: r.Version}})
	}
	return true
}

// probeError is why agentID's last probe failed, if it did.
func (e *Engine) probeError(agentID string) *hub.AgentProbeError {
	e.mu.Lock()
	defer e.mu.Unlock()
	if pe, ok := e.probeErrs[agentID]; ok {
		return &pe
	}
	return nil
}

// probeFailure says why a probe failed in words, with the end of the
// agent's stderr apart.
func probeFailure(err error) hub.AgentProbeError {
	var exit *acp.ExitError
	switch {
	case errors.As(err, &exit):
		info := exit.Exit
		tail := strings.TrimSpace(info.StderrTail)
		if len(tail) > probeStderrMax {
			tail = "…" + tail[len(tail)-probeStderrMax:]
		}
		info.StderrTail = ""
		// "agent exited with code 3" → "it exited with code 3 before answering."
		return hub.AgentProbeError{Message: "it " + strings.TrimPrefix(info.String(), "agent ") + " before answering.", Stderr: tail}
	case errors.Is(err, context.DeadlineExceeded):
		return hub.AgentProbeError{Message: fmt.Sprintf("it did not answer within %s: is it an ACP agent?", probeTimeout)}
	}
	return hub.AgentProbeError{Message: err.Error()}
}

// probing marks agentID's probe as running until the returned function is
// called, unless the agent is known already or one of its processes is
// being started (then ok is false: no probe).
func (e *Engine) probing(agentID string) (done func(), ok bool) {
	ch := make(chan struct{})
	e.mu.Lock()
	_, known := e.inits[agentID]
	if known || e.launches[agentID] > 0 {
		e.mu.Unlock()
		return nil, false
	}
	e.probeRuns[agentID] = ch
	e.mu.Unlock()
	return func() {
		e.mu.Lock()
		delete(e.probeRuns, agentID)
		e.mu.Unlock()
		close(ch)
	}, true
}
