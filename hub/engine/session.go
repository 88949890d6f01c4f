package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

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

// ensureSession returns the thread's agent and session, starting the agent
// process and opening a session when needed (openSession: resume, else
// load, else new). A session opened without session/load or
// session/resume gets prefix: a context block with the thread's summary and
// recent turns (never on a thread's first turn, so slash commands reach the
// agent raw). Every session it opens gets the thread's mode and config
// option values back (restoreChoices) before anything is prompted, with
// the events that say what changed (sessionEvents); for a turn (forTurn)
// whose session could not take them back, it fails with choicesError and
// the prompt is never sent.
//
// A call outside a turn (forTurn false: a set call, or CreateThread's
// OpenSession, through openOutsideTurn) passes a turnRT of its own that is
// not the thread's turn; the context block of a session it opens is kept
// for the next turn.
//
// It takes rt.startMu for the whole setup; the caller holds no lock. On
// error the error is a *hub.Error, and the process slot startTurn or
// openOutsideTurn reserved is given back: at once when no agent started,
// else by watchAgent once the agent this call started has been closed.
func (e *Engine) ensureSession(tr *turnRT, forTurn bool) (*acp.Agent, string, []acp.ContentBlock, error) {
	rt := tr.rt
	e.retireIfStale(rt, tr)
	rt.startMu.Lock()
	defer rt.startMu.Unlock()
	a, sid, prefix, alive := e.liveSession(tr, forTurn)
	if alive && sid != "" {
		e.releaseReservation(tr) // no process starts
		return a, sid, prefix, nil
	}
	var spec acp.AgentSpec
	if alive { // compaction closed the session, the process stays
		e.releaseReservation(tr)
		rt.mu.Lock()
		spec = rt.spec
		rt.mu.Unlock()
	} else {
		var err error
		if a, spec, err = e.launchAgent(tr); err != nil {
			return nil, "", nil, err
		}
	}
	// Read before the session opens: the agent's own updates while it
	// opens (a current_mode_update of its start mode) must not pass for
	// the user's choice.
	before := e.choicesBefore(tr)
	sid, setup, prefix, how, err := e.openSession(tr, a)
	if err != nil {
		if !alive {
			a.Close(context.Background()) // watchAgent frees the slot
		}
		return nil, "", nil, err
	}
	st, restored, failed := e.restoreChoices(tr.ctx, a, sid, how, before, sessionState(tr.thread.ID, setup))
	refuse := forTurn && len(failed) > 0
	keep := prefix
	if refuse {
		prefix = nil
		if tr.fresh { // compaction's context, for the next turn instead
			keep = tr.blocks
		}
	}
	prefix = e.adoptSession(tr, a, spec, sid, st, prefix, forTurn)
	if refuse {
		rt.mu.Lock()
		rt.prefix = keep // for the next turn, once the user has seen why
		rt.mu.Unlock()
	}
	e.recordSession(tr.thread, sid, st)
	reason := changedReopened
	switch {
	case tr.fresh:
		reason = changedCompacted
	case tr.importing:
		reason = changedImported
	}
	turnID := ""
	if forTurn {
		turnID = tr.turn.ID
	}
	sc := SessionChanged{Reason: reason, How: how, Restored: restored, Unrestored: failed, Refused: refuse}
	if evs := e.sessionEvents(tr.thread, turnID, before, st, sc, tr.thread.AgentSessionID != "" || tr.fresh); len(evs) > 0 {
		if err := e.commit(&hub.Write{Events: evs}); err != nil {
			e.log.Warn("hub: recording the change of session failed", "err", err)
		}
	}
	if len(failed) > 0 {
		e.log.Warn("hub: a reopened session could not restore the user's choices", "thread", tr.thread.ID, "unrestored", len(failed), "turnRefused", refuse)
	}
	if refuse {
		return nil, "", nil, choicesError(failed)
	}
	return a, sid, prefix, nil
}

// choicesBefore is the mode and config options the thread had before its
// session (re)opened: what rt last knew, else what the thread stored.
func (e *Engine) choicesBefore(tr *turnRT) hub.SessionState {
	rt := tr.rt
	rt.mu.Lock()
	defer rt.mu.Unlock()
	st := hub.SessionState{ThreadID: tr.thread.ID, Modes: rt.modes, ConfigOptions: rt.config}
	if st.Modes == nil {
		st.Modes = tr.thread.Modes
	}
	if st.ConfigOptions == nil {
		st.ConfigOptions = tr.thread.ConfigOptions
	}
	return st
}

// liveSession returns rt's agent and session when its process still runs
// (the session "" when compaction closed it), with, for a turn (forTurn),
// the context block a call outside a turn kept in rt.prefix (taken out). It stops rt's idle timer either way; when the
// agent is gone it clears rt.agent and reports false. It takes rt.mu; the
// caller holds rt.startMu.
func (e *Engine) liveSession(tr *turnRT, forTurn bool) (*acp.Agent, string, []acp.ContentBlock, bool) {
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

// sessionState is the session state of threadID that setup reported, as
// stored: Modes and ConfigOptions are each nil when the agent reported
// none.
func sessionState(threadID string, setup acp.SessionSetup) hub.SessionState {
	st := hub.SessionState{ThreadID: threadID, ConfigOptions: setup.ConfigOptions}
	if setup.Modes != nil {
		st.Modes, _ = json.Marshal(setup.Modes)
	}
	if !hasJSON(st.ConfigOptions) {
		st.ConfigOptions = nil
	}
	return st
}

// adoptSession makes a, started from spec, rt's agent with session sid,
// and takes the session's modes and config options from st (where st has
// none, rt keeps what it knew, else the thread's stored ones). It returns
// prefix for a turn (forTurn); a call outside a turn keeps prefix in
// rt.prefix for the next turn and gets nil. It takes rt.mu; the caller
// holds rt.startMu.
func (e *Engine) adoptSession(tr *turnRT, a *acp.Agent, spec acp.AgentSpec, sid string, st hub.SessionState, prefix []acp.ContentBlock, forTurn bool) []acp.ContentBlock {
	rt, thread := tr.rt, tr.thread
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.agent, rt.sessionID, rt.spec = a, sid, spec
	if rt.modes == nil {
		rt.modes = thread.Modes
	}
	if rt.config == nil {
		rt.config = thread.ConfigOptions
	}
	if st.Modes != nil {
		rt.modes = st.Modes
	}
	if st.ConfigOptions != nil {
		rt.config = st.ConfigOptions
	}
	rt.prefix = nil
	if !forTurn {
		rt.prefix, prefix = prefix, nil
	}
	return prefix
}

// recordSession stores what a newly opened session changed: its modes and
// config options (st, when the agent reported any) and thread's agent
// session id when sid differs. It waits for the commits and holds no lock;
// failures are logged, not returned, since the session runs either way.
func (e *Engine) recordSession(thread hub.Thread, sid string, st hub.SessionState) {
	if st.Modes != nil || st.ConfigOptions != nil {
		if err := e.commit(&hub.Write{SessionStates: []hub.SessionState{st}}); err != nil {
			e.log.Warn("hub: recording the session's modes failed", "err", err)
		}
	}
	if sid == thread.AgentSessionID {
		return
	}
	// Field-wise: the rest of the thread may have changed since it was read.
	err := e.commit(&hub.Write{ThreadChanges: []hub.ThreadChange{{ThreadID: thread.ID, AgentSessionID: &sid}}})
	if err != nil && hub.ErrorCode(err) != hub.CodeNotFound { // deleted meanwhile: nothing to record
		e.log.Warn("hub: recording the agent session failed", "err", err)
	}
}

// Heads of a context block: for an agent that lost the thread's session,
// and for the new session compaction opens.
const (
	contextLostHead      = "[Switchboard] This conversation continues an earlier session that the agent no longer has. Context follows; the user's new message comes after it.\n"
	contextCompactedHead = "[Switchboard] This conversation was compacted: it continues in this new session. Context follows; reply only \"OK\" and wait for the user's next message.\n"
)

// contextBlock summarises the thread so far, after head: the stored
// summary and the most recent turns, newest kept when over
// context.maxChars. Nil for a thread without earlier turns.
//
// skip names a turn left out: the failed turn a retry repeats
// (authretry.go), whose prompt the retry sends itself.
func (e *Engine) contextBlock(thread hub.Thread, head, skip string) ([]acp.ContentBlock, error) {
	turns, err := e.store.ListTurns(context.Background(), thread.ID, false)
	if err != nil {
		return nil, err
	}
	cfg := e.config()
	var done []hub.Turn
	for _, t := range turns {
		if t.ID != skip && (t.Ended() && t.Status != hub.TurnInterrupted || t.Output != "") {
			done = append(done, t)
		}
	}
	if len(done) == 0 && thread.Summary == "" {
		return nil, nil
	}
	if n := cfg.ContextRecentTurns; n > 0 && len(done) > n {
		done = done[len(done)-n:]
	}
	var parts []string
	for i := len(done) - 1; i >= 0; i-- { // newest first, so the cap drops the oldest
		parts = append(parts, fmt.Sprintf("User: %s\nAssistant: %s", done[i].Input, done[i].Output))
	}
	if thread.Summary != "" {
		head += "\nSummary so far:\n" + thread.Summary + "\n"
	}
	body := ""
	budget := cfg.ContextMaxChars - len(head)
	var kept []string
	for _, p := range parts {
		if budget-len(p) < 0 {
			break
		}
		budget -= len(p)
		kept = append([]string{p}, kept...)
	}
	if len(kept) > 0 {
		body = "\nRecent turns, oldest first:\n\n" + strings.Join(kept, "\n\n") + "\n"
	}
	text := head + body
	if len(text) > cfg.ContextMaxChars && cfg.ContextMaxChars > 0 {
		text = text[:cfg.ContextMaxChars]
	}
	return []acp.ContentBlock{acp.TextBlock(text + "\n[End of context]\n")}, nil
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
	rt.idle = time.AfterFunc(d, func() {
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
