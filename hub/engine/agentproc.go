package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/redact"
)

// The agent process (docs/ARCHITECTURE.md, "The agent session's
// lifecycle"): a thread's agent is started for a turn or a set call that
// needs it (launchAgent, in a process slot), supervised while it runs
// (watchAgent, retireIfStale, the idle timer), stopped the one way
// (closeAgent), and bounded by limits.maxAgentProcesses (takeSlotLocked,
// evictLocked). Background probes learn what each agent is before any
// thread runs it. The ACP session on the process is session.go's.

// releaseReservation gives back the process slot startTurn or
// openOutsideTurn reserved for tr, if it still holds one, when no process
// starts for it. It takes e.mu.
func (e *Engine) releaseReservation(tr *turnRT) {
	e.mu.Lock()
	if tr.reserved {
		tr.reserved = false
		e.procs--
	}
	e.mu.Unlock()
}

// claimSlot counts the agent process about to start in Engine.procs: it
// takes over the slot startTurn or openOutsideTurn reserved for tr, or
// claims one when none is reserved (the agent died since: over the limit
// by one at most). It returns the function that gives the slot back, for
// when no process starts. It takes e.mu; the caller holds rt.startMu.
func (e *Engine) claimSlot(tr *turnRT) (release func()) {
	e.mu.Lock()
	if !tr.reserved {
		e.procs++
	}
	tr.reserved = false
	e.mu.Unlock()
	return func() { e.mu.Lock(); e.procs--; e.mu.Unlock() }
}

// liveAgent returns rt's agent and session when its process still runs
// (the session "" when compaction closed it), with, for a turn (forTurn),
// the context block a call outside a turn kept in rt.prefix (taken out). It stops rt's idle timer either way; when the
// agent is gone it clears rt.agent and reports false. It takes rt.mu; the
// caller holds rt.startMu.
func (e *Engine) liveAgent(tr *turnRT, forTurn bool) (*acp.Agent, string, []acp.ContentBlock, bool) {
	rt := tr.rt
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.idle != nil {
		rt.idle.Stop()
	}
	if !agentAlive(rt.agent) {
		rt.agent = nil
		return nil, "", nil, false
	}
	var prefix []acp.ContentBlock
	if forTurn && rt.sessionID != "" {
		prefix, rt.prefix = rt.prefix, nil
	}
	return rt.agent, rt.sessionID, prefix, true
}

// launchAgent starts the thread's agent as the catalogue now configures it,
// once no background probe of it runs (startingAgent), in the process slot
// claimSlot counts, records its process, starts
// watchAgent (which frees the slot when the process exits) and remembers
// its initialize answer. It returns the agent and the spec it was started
// with. On error no process runs, the slot is given back and the error is
// an UPSTREAM_UNAVAILABLE *hub.Error. The caller holds rt.startMu only; a
// failure to record the process is logged, not returned.
func (e *Engine) launchAgent(tr *turnRT) (*acp.Agent, acp.AgentSpec, error) {
	release := e.claimSlot(tr)
	thread := tr.thread
	spec, ok := e.agentSpec(thread.Agent)
	if !ok || spec.Disabled {
		release()
		return nil, acp.AgentSpec{}, hub.Errorf(hub.CodeUpstreamUnavailable, "agent %q is no longer configured", thread.Agent)
	}
	if spec.NotInstalled != "" { // never run what a registry names but the user did not install
		release()
		return nil, acp.AgentSpec{}, hub.Errorf(hub.CodeUpstreamUnavailable, "agent %s is not installed: %s", thread.Agent, spec.NotInstalled)
	}
	defer e.startingAgent(tr.ctx, spec.ID)() // till its initialize answer is known
	cmd := spec.Command
	cmd.Dir = agentDir(thread)
	a, err := acp.Launch(tr.ctx, cmd, e.agentClient(tr.rt, thread), e.agentOptions(tr.rt, thread))
	if err != nil {
		release()
		return nil, acp.AgentSpec{}, &hub.Error{Code: hub.CodeUpstreamUnavailable, Message: fmt.Sprintf("starting %s failed: %v", spec.Name, err), Err: err}
	}
	proc := hub.AgentProcess{PID: a.Proc.PID(), StartTime: processStartTime(a.Proc.PID()), ThreadID: thread.ID, Agent: thread.Agent}
	if err := e.commit(&hub.Write{AgentProcs: []hub.AgentProcess{proc}}); err != nil {
		e.log.Warn("hub: recording an agent process failed", "err", err)
	}
	go e.watchAgent(tr.rt, a)
	e.rememberInit(spec.ID, a.Init)
	return a, spec, nil
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

// agentClient is the acp.Client for a thread's agent process: the
// threadClient, plus the fs and terminal methods the thread delegates.
func (e *Engine) agentClient(rt *threadRT, thread hub.Thread) acp.Client {
	tc := &threadClient{e: e, rt: rt, thread: thread}
	if thread.ClientCapabilities == nil {
		return tc
	}
	caps := *thread.ClientCapabilities
	dc := &delegatingClient{threadClient: tc, caps: caps}
	if caps.Terminal {
		return &delegatingTerminals{dc}
	}
	return dc
}

// agentOptions returns the options to launch the thread's agent with: the
// engine's, with the output of the terminals the hub hosts for it turned
// into terminal_output events of the thread, and the configured bound on
// the agent's concurrent requests.
func (e *Engine) agentOptions(rt *threadRT, thread hub.Thread) acp.AgentOptions {
	opts := e.agentOpts
	if n := e.config().AgentRequests; n > 0 {
		opts.Client.MaxConcurrentRequests = n
	}
	tt := &terminalTurns{e: e, rt: rt, thread: thread, byID: make(map[string]string), text: make(map[string]*redact.Stream)}
	next := opts.Client.Terminals.OnOutput
	opts.Client.Terminals.OnOutput = func(c acp.TerminalChunk) {
		tt.output(c)
		if next != nil {
			next(c)
		}
	}
	return opts
}

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

func (e *Engine) agentSpec(id string) (acp.AgentSpec, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s, ok := e.agents[id]
	return s, ok
}

// watchAgent frees the thread's process slot when the agent exits, however
// it exits, and forgets its process record.
func (e *Engine) watchAgent(rt *threadRT, a *acp.Agent) {
	<-a.Proc.Done()
	e.mu.Lock()
	if e.slotless[a] { // evicted: its slot went to another agent
		delete(e.slotless, a)
	} else {
		e.procs--
	}
	e.mu.Unlock()
	rt.mu.Lock()
	if rt.agent == a {
		rt.agent = nil
	}
	rt.mu.Unlock()
	if err := e.commit(&hub.Write{ForgetProcs: []int{a.Proc.PID()}}); err != nil {
		e.log.Warn("hub: forgetting an agent process failed", "err", err)
	}
	e.log.Info("hub: agent exited", "thread", rt.id, "exit", a.Proc.Exit().String())
}

// SetAgents replaces the agent catalogue. An agent process whose spec
// changed, or whose agent was removed or disabled, is stopped: at once when
// idle, else when its running turn ends (the turn keeps it till then). The
// thread's next turn starts the agent as now configured.
func (e *Engine) SetAgents(specs []acp.AgentSpec) {
	m := make(map[string]acp.AgentSpec, len(specs))
	for _, s := range specs {
		m[s.ID] = s
	}
	e.mu.Lock()
	for id, old := range e.agents {
		if cur, ok := m[id]; !ok || !reflect.DeepEqual(cur, old) {
			delete(e.inits, id) // another command may be another agent
			delete(e.probeErrs, id)
		}
	}
	var changed []acp.AgentSpec // added or changed: probed when probes are on (probe.go)
	for id, cur := range m {
		if old, ok := e.agents[id]; !ok || !reflect.DeepEqual(cur, old) {
			changed = append(changed, cur)
		}
	}
	probeCtx := e.probeCtx
	e.agents = m
	rts := make([]*threadRT, 0, len(e.threads))
	for _, rt := range e.threads {
		rts = append(rts, rt)
	}
	e.mu.Unlock()
	for _, rt := range rts {
		e.retireIfStale(rt, nil)
	}
	if probeCtx != nil && len(changed) > 0 {
		sortSpecs(changed)
		e.probeAgents(probeCtx, changed, true)
	}
}

// catalogue is the agent catalogue, sorted (sortSpecs). It takes e.mu.
func (e *Engine) catalogue() []acp.AgentSpec {
	e.mu.Lock()
	specs := make([]acp.AgentSpec, 0, len(e.agents))
	for _, s := range e.agents {
		specs = append(specs, s)
	}
	e.mu.Unlock()
	sortSpecs(specs)
	return specs
}

// retireIfStale stops rt's agent process if the catalogue no longer has the
// spec it was started with (changed, disabled or removed) and no turn but
// owner (nil: none) runs on it. It reports whether it did. The process is
// stopped in the background; its slot is freed when it exits (watchAgent).
func (e *Engine) retireIfStale(rt *threadRT, owner *turnRT) bool {
	e.mu.Lock()
	rt.mu.Lock()
	a, sid := rt.agent, rt.sessionID
	stale := a != nil && rt.turn == owner && !e.specCurrentLocked(rt.spec)
	if stale {
		rt.agent = nil
		if rt.idle != nil {
			rt.idle.Stop()
		}
	}
	id := rt.spec.ID
	rt.mu.Unlock()
	e.mu.Unlock()
	if !stale {
		return false
	}
	e.log.Info("hub: stopping an agent process whose configuration changed", "thread", rt.id, "agent", id)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		e.closeAgent(ctx, a, sid)
	}()
	return true
}

// specCurrentLocked reports whether s is still the catalogue's enabled
// spec for its agent. e.mu must be held. The session defaults do not
// count: they are read when they apply (defaults.go), and changing them
// restarts no agent.
func (e *Engine) specCurrentLocked(s acp.AgentSpec) bool {
	cur, ok := e.agents[s.ID]
	cur.Defaults, s.Defaults = acp.SessionDefaults{}, acp.SessionDefaults{}
	return ok && !cur.Disabled && reflect.DeepEqual(cur, s)
}

// stopAgent stops the thread's agent process, if any (bounded by ctx):
// session/close when advertised, then the process (closeAgent).
func (e *Engine) stopAgent(ctx context.Context, rt *threadRT) {
	rt.mu.Lock()
	a, sid := rt.agent, rt.sessionID
	rt.agent = nil
	if rt.idle != nil {
		rt.idle.Stop()
	}
	rt.mu.Unlock()
	if a != nil {
		e.closeAgent(ctx, a, sid)
	}
}

// scheduleIdle stops the thread's agent after limits.agentIdleTimeout
// without a turn; the next turn reopens the session transparently.
func (e *Engine) scheduleIdle(rt *threadRT) {
	if e.retireIfStale(rt, nil) {
		return
	}
	d := e.config().AgentIdleTimeout
	now := e.now()
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.lastUsed = now
	if rt.idle != nil {
		rt.idle.Stop()
	}
	if rt.agent == nil || d <= 0 {
		return
	}
	rt.idle = e.afterFunc(d, func() {
		rt.mu.Lock()
		busy := rt.turn != nil
		rt.mu.Unlock()
		if !busy {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			e.stopAgent(ctx, rt)
		}
	})
}

// closeAgent ends a thread's agent process: session/close of sid first
// when the agent advertises it (bounded by sessionCloseTimeout), then stdin
// EOF, then TERM and KILL to its process group (acp.Agent.Close, bounded by
// ctx). Used on idle reap, eviction, a changed catalogue, thread deletion
// and shutdown.
func (e *Engine) closeAgent(ctx context.Context, a *acp.Agent, sid string) {
	e.closeSession(ctx, a, sid)
	a.Close(ctx)
}

// maxRetryAfter bounds the Retry-After of a refused start: the soonest a
// slot may free is not known better than that.
const maxRetryAfter = 5 * time.Second

// takeSlotLocked reserves a process slot for tr, which needs its agent
// started, or answers TOO_MANY_REQUESTS. With every slot taken it first
// evicts the least recently used agent that is idle (evictLocked): its slot
// passes to tr. Only when every agent process has a running turn (or is
// otherwise busy) is the start refused, with a Retry-After of the sooner
// of maxRetryAfter and the soonest watchdog deadline among the running
// turns. e.mu and tr.rt.mu are held.
func (e *Engine) takeSlotLocked(tr *turnRT) error {
	if e.procs < e.cfg.MaxAgentProcesses {
		e.procs++
		tr.reserved = true
		return nil
	}
	if e.evictLocked(tr.rt) {
		tr.reserved = true // the evicted agent's slot
		return nil
	}
	return &hub.Error{Code: hub.CodeTooManyRequests,
		Message:    fmt.Sprintf("%d agent processes are running turns, the configured limit (limits.maxAgentProcesses)", e.procs),
		RetryAfter: e.retryAfterLocked()}
}

// evictLocked stops the idle session lister (lister.go), else the least
// recently used agent process that is idle —
// no running turn, no client request waiting on its editor, no terminal
// still running, nobody starting or reopening its session — other than
// self's, and reports whether it found one. The victim's slot is not
// freed when it exits (Engine.slotless): the caller takes it over. The
// process is stopped in the background (closeAgent: session/close when
// advertised, stdin EOF, then its process group killed); the thread's next
// turn reopens its session like after an idle stop. e.mu and self.mu are
// held; it takes other threads' rt.mu (after e.mu, as the lock order says).
func (e *Engine) evictLocked(self *threadRT) bool {
	if e.takeListerLocked() { // an idle session lister goes first (lister.go)
		return true
	}
	var victim *threadRT
	var va *acp.Agent
	var vsid string
	for _, rt := range e.threads {
		if rt == self {
			continue
		}
		if !rt.startMu.TryLock() { // a session is being opened
			continue
		}
		rt.mu.Lock()
		idle := agentAlive(rt.agent) && rt.turn == nil && rt.requests == 0 && rt.agent.RunningTerminals() == 0
		if idle && (victim == nil || rt.lastUsed.Before(victim.lastUsed)) {
			victim, va, vsid = rt, rt.agent, rt.sessionID
		}
		rt.mu.Unlock()
		rt.startMu.Unlock()
	}
	if victim == nil {
		return false
	}
	victim.mu.Lock()
	if victim.agent != va || victim.turn != nil {
		victim.mu.Unlock()
		return false // changed since (cannot happen: e.mu is held by startTurn's peers)
	}
	victim.agent = nil
	if victim.idle != nil {
		victim.idle.Stop()
	}
	victim.mu.Unlock()
	e.slotless[va] = true
	e.log.Info("hub: stopping the least recently used idle agent to free a process slot", "thread", victim.id, "agent", victim.spec.ID)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		e.closeAgent(ctx, va, vsid)
	}()
	return true
}

// retryAfterLocked is when a refused start may try again: the soonest
// watchdog deadline among the running turns, at most maxRetryAfter, at
// least a second. e.mu is held.
func (e *Engine) retryAfterLocked() time.Duration {
	d := maxRetryAfter
	now := e.now()
	for _, tr := range e.turns {
		if at := tr.wd.deadline(); !at.IsZero() {
			d = min(d, at.Sub(now))
		}
	}
	return max(d, time.Second)
}
