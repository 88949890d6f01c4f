package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// agentInit is what an agent said about itself in initialize.
type agentInit struct {
	version string
	caps    json.RawMessage // its agentCapabilities object, raw
	auth    json.RawMessage // its authMethods array, raw (auth.go)
}

// rememberInit caches an agent's initialize answer for ListAgents.
func (e *Engine) rememberInit(agentID string, in acp.InitializeResponse) {
	var raw struct {
		AgentCapabilities json.RawMessage `json:"agentCapabilities"`
		AuthMethods       json.RawMessage `json:"authMethods"`
	}
	_ = json.Unmarshal(in.Raw, &raw)
	ai := agentInit{caps: raw.AgentCapabilities}
	if hasJSON(raw.AuthMethods) && raw.AuthMethods[0] == '[' && string(raw.AuthMethods) != "[]" {
		ai.auth = raw.AuthMethods
	}
	if !hasJSON(ai.caps) || ai.caps[0] != '{' {
		ai.caps = nil
	}
	if in.AgentInfo != nil {
		ai.version = strings.TrimSpace(in.AgentInfo.Version)
	}
	e.mu.Lock()
	e.inits[agentID] = ai
	e.mu.Unlock()
}

func (e *Engine) agentInit(agentID string) (agentInit, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	in, ok := e.inits[agentID]
	return in, ok
}

// hasJSON reports whether raw holds a value other than null.
func hasJSON(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && string(raw) != "null"
}

// probeTimeout bounds one background probe.
const probeTimeout = 15 * time.Second

// startProbes runs initialize on every available agent the engine has not
// heard from yet, two at a time, in the background. Close stops them.
func (e *Engine) startProbes() {
	ctx, cancel := context.WithCancel(context.Background())
	e.stopProbes = cancel
	e.mu.Lock()
	specs := make([]acp.AgentSpec, 0, len(e.agents))
	for _, s := range e.agents {
		specs = append(specs, s)
	}
	e.mu.Unlock()
	sortSpecs(specs)
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
				done, ok := e.probing(s.ID)
				if !ok {
					return
				}
				defer done()
				r, err := acp.Probe(ctx, s.Command, e.agentOpts, probeTimeout)
				if err != nil {
					e.log.Info("hub: probing an agent failed", "agent", s.ID, "err", err)
					return
				}
				if _, known := e.agentInit(s.ID); !known { // a real start wins
					e.rememberInit(s.ID, acp.InitializeResponse{Raw: r.Raw, AgentInfo: &acp.Implementation{Name: r.Name, Version: r.Version}})
				}
			}()
		}
		wg.Wait()
	}()
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

// startingAgent counts a process of agentID being started, once no
// background probe of it runs (it waits for one, bounded by probeTimeout
// and ctx): two processes of one agent starting at once on the same HOME
// can break each other (OpenCode creating its database), and a probe
// would fail the user's first turn. The returned function ends the count.
func (e *Engine) startingAgent(ctx context.Context, agentID string) (done func()) {
	deadline := time.After(probeTimeout)
	for {
		e.mu.Lock()
		ch := e.probeRuns[agentID]
		if ch == nil {
			e.launches[agentID]++
			e.mu.Unlock()
			return func() {
				e.mu.Lock()
				e.launches[agentID]--
				e.mu.Unlock()
			}
		}
		e.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return func() {}
		case <-deadline:
			return func() {}
		}
	}
}

// setCallTimeout bounds a set call, agent start included.
const setCallTimeout = 2 * time.Minute

// SetMode implements Service.
func (e *Engine) SetMode(ctx context.Context, c hub.Caller, threadID, modeID string) (hub.Thread, error) {
	if modeID == "" {
		return hub.Thread{}, hub.Errorf(hub.CodeInvalidArgument, "modeId is required")
	}
	return e.setOnSession(ctx, c, threadID, "session/set_mode", func(ctx context.Context, a *acp.Agent, sid string, rt *threadRT) (hub.Event, bool, error) {
		if err := a.SetMode(ctx, sid, modeID); err != nil {
			return hub.Event{}, false, err
		}
		rt.mu.Lock()
		defer rt.mu.Unlock()
		modes, changed := withCurrentMode(rt.modes, modeID)
		rt.modes = modes
		payload, _ := json.Marshal(map[string]string{"modeId": modeID})
		return hub.Event{Type: hub.EventModeChanged, Payload: payload}, changed, nil
	}, func(rt *threadRT) hub.SessionState { return hub.SessionState{Modes: rt.modes} })
}

// SetConfigOption implements Service.
func (e *Engine) SetConfigOption(ctx context.Context, c hub.Caller, threadID, configID, value string) (hub.Thread, error) {
	if configID == "" {
		return hub.Thread{}, hub.Errorf(hub.CodeInvalidArgument, "configId is required")
	}
	return e.setOnSession(ctx, c, threadID, "session/set_config_option", func(ctx context.Context, a *acp.Agent, sid string, rt *threadRT) (hub.Event, bool, error) {
		opts, err := a.SetConfigOption(ctx, sid, configID, value)
		if err != nil {
			return hub.Event{}, false, err
		}
		rt.mu.Lock()
		defer rt.mu.Unlock()
		if !hasJSON(opts) {
			return hub.Event{}, false, nil
		}
		changed := !bytes.Equal(opts, rt.config)
		rt.config = opts
		payload, _ := json.Marshal(map[string]json.RawMessage{"configOptions": opts})
		return hub.Event{Type: hub.EventConfigOptions, Payload: payload}, changed, nil
	}, func(rt *threadRT) hub.SessionState { return hub.SessionState{ConfigOptions: rt.config} })
}

// setFunc calls the agent, then (with rt.mu held) updates rt's state and
// returns the event to emit when it changed anything.
type setFunc func(ctx context.Context, a *acp.Agent, sid string, rt *threadRT) (hub.Event, bool, error)

// setOnSession runs a set call on the thread's agent session, starting the
// agent and opening the session first when none runs (counted against
// limits.maxAgentProcesses like a turn's), then stores the new state with
// its event and returns the thread.
func (e *Engine) setOnSession(ctx context.Context, c hub.Caller, threadID, method string, set setFunc, state func(*threadRT) hub.SessionState) (hub.Thread, error) {
	t, err := e.visibleThread(ctx, c, threadID)
	if err != nil {
		return hub.Thread{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, setCallTimeout)
	defer cancel()
	rt, a, sid, err := e.openOutsideTurn(ctx, t)
	if err != nil {
		return hub.Thread{}, err
	}
	defer e.idleUnlessTurn(rt)
	ev, changed, err := set(ctx, a, sid, rt)
	if err != nil {
		return hub.Thread{}, setError(method, err)
	}
	w := &hub.Write{}
	rt.mu.Lock()
	st := state(rt)
	st.ThreadID = t.ID
	if st.Modes != nil || st.ConfigOptions != nil {
		w.SessionStates = []hub.SessionState{st}
	}
	if changed {
		ev.ThreadID, ev.ClientID, ev.At = t.ID, t.ClientID, e.now()
		if rt.turn != nil {
			ev.TurnID = rt.turn.turn.ID
		}
		w.Events = []hub.Event{ev}
	}
	done := e.submit(w) // queued under rt.mu: in order with the agent's updates
	rt.mu.Unlock()
	if err := <-done; err != nil {
		return hub.Thread{}, err
	}
	return e.store.GetThread(context.Background(), t.ID)
}

// idleUnlessTurn starts the idle timer of an agent that a call outside a
// turn used, unless a turn runs on it.
func (e *Engine) idleUnlessTurn(rt *threadRT) {
	rt.mu.Lock()
	idle := rt.turn == nil
	rt.mu.Unlock()
	if idle {
		e.scheduleIdle(rt)
	}
}

// openOutsideTurn returns thread t's agent and session, starting the agent
// and opening the session when none runs, as a turn would (counted against
// limits.maxAgentProcesses). The caller must call idleUnlessTurn after.
func (e *Engine) openOutsideTurn(ctx context.Context, t hub.Thread) (*threadRT, *acp.Agent, string, error) {
	return e.openOutside(&turnRT{thread: t, rt: e.runtime(t.ID), ctx: ctx})
}

// openOutside is openOutsideTurn for tr, a turnRT of its own (not the
// thread's turn) whose ctx bounds the opening: ImportSession passes one
// that imports (turnRT.importing).
func (e *Engine) openOutside(tr *turnRT) (*threadRT, *acp.Agent, string, error) {
	rt, t := tr.rt, tr.thread
	e.retireIfStale(rt, nil)
	var err error
	e.mu.Lock()
	rt.mu.Lock()
	switch {
	case e.closing:
		err = hub.Errorf(hub.CodeUpstreamUnavailable, "the hub is shutting down")
	case rt.deleted:
		err = hub.Errorf(hub.CodeNotFound, "thread %s not found", t.ID)
	case !agentAlive(rt.agent):
		err = e.takeSlotLocked(tr)
	}
	rt.mu.Unlock()
	e.mu.Unlock()
	if err != nil {
		return nil, nil, "", err
	}
	a, sid, _, err := e.ensureSession(tr, false)
	if err != nil {
		return nil, nil, "", err
	}
	rt.mu.Lock()
	deleted := rt.deleted
	rt.mu.Unlock()
	if deleted { // DeleteThread ran while the agent started
		stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		e.stopAgent(stopCtx, rt)
		return nil, nil, "", hub.Errorf(hub.CodeNotFound, "thread %s not found", t.ID)
	}
	return rt, a, sid, nil
}

// openSessionNow serves CreateThreadRequest.OpenSession: it starts the new
// thread's agent and session so that the thread carries its modes and
// config options. Best effort: a failure is logged and t returned as is.
func (e *Engine) openSessionNow(ctx context.Context, t hub.Thread) hub.Thread {
	ctx, cancel := context.WithTimeout(ctx, setCallTimeout)
	defer cancel()
	rt, _, _, err := e.openOutsideTurn(ctx, t)
	if err != nil {
		e.log.Info("hub: opening a new thread's agent session failed; the first turn will try again", "thread", t.ID, "err", err)
		return t
	}
	e.idleUnlessTurn(rt)
	if got, err := e.store.GetThread(context.Background(), t.ID); err == nil {
		return got
	}
	return t
}

// setError maps an agent's refusal of a set call to an API error.
func setError(method string, err error) error {
	if code, ok := acp.ErrorCode(err); ok && (code == acp.CodeInvalidParams || code == acp.CodeMethodNotFound) {
		msg := fmt.Sprintf("the agent refused %s: %v", method, err)
		if code == acp.CodeMethodNotFound {
			msg = fmt.Sprintf("the agent does not support %s", method)
		}
		return &hub.Error{Code: hub.CodeInvalidArgument, Message: msg, Err: err}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &hub.Error{Code: hub.CodeTimeout, Message: fmt.Sprintf("the agent did not answer %s in time", method), Err: err}
	}
	return &hub.Error{Code: hub.CodeUpstreamUnavailable, Message: fmt.Sprintf("%s failed: %v", method, err), Err: err}
}

// withCurrentMode returns modes (a SessionModeState, raw) with
// currentModeId set, and whether it changed. Unknown fields are kept. A
// missing or malformed state becomes {"currentModeId", "availableModes":[]}.
func withCurrentMode(modes json.RawMessage, modeID string) (json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if !hasJSON(modes) || json.Unmarshal(modes, &m) != nil || m == nil {
		m = map[string]json.RawMessage{"availableModes": json.RawMessage(`[]`)}
	}
	var cur string
	if json.Unmarshal(m["currentModeId"], &cur) == nil && cur == modeID && hasJSON(modes) {
		return modes, false
	}
	m["currentModeId"], _ = json.Marshal(modeID)
	out, err := json.Marshal(m)
	if err != nil {
		return modes, false
	}
	return out, true
}

// trackUpdate keeps rt's session state current with an agent update and
// returns what to store (nil: nothing). rt.mu must be held.
func trackUpdate(rt *threadRT, u acp.SessionUpdate) *hub.SessionState {
	if u.ParseErr != nil {
		return nil
	}
	switch u.Kind {
	case acp.UpdateCurrentMode:
		if u.ModeID == "" {
			return nil
		}
		rt.modes, _ = withCurrentMode(rt.modes, u.ModeID)
		return &hub.SessionState{ThreadID: rt.id, Modes: rt.modes}
	case acp.UpdateConfigOption:
		var m struct {
			ConfigOptions json.RawMessage `json:"configOptions"`
		}
		if json.Unmarshal(u.Raw, &m) != nil || !hasJSON(m.ConfigOptions) {
			return nil
		}
		rt.config = m.ConfigOptions
		return &hub.SessionState{ThreadID: rt.id, ConfigOptions: rt.config}
	case acp.UpdateAvailableCommands:
		var m struct {
			AvailableCommands json.RawMessage `json:"availableCommands"`
		}
		if json.Unmarshal(u.Raw, &m) != nil || !hasJSON(m.AvailableCommands) {
			return nil
		}
		return &hub.SessionState{ThreadID: rt.id, AvailableCommands: m.AvailableCommands}
	}
	return nil
}
