package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// The ACP session (docs/ARCHITECTURE.md, "The agent session's
// lifecycle"): how a thread's session on its agent process is opened
// (ensureSession: resume, else load, else new with a context block),
// taken over and recorded, what a change of session means for the thread
// (sessionEvents), and how it is closed. The process under it is
// agentproc.go's; the user's modes and config choices it carries back are
// choices.go's.

// How a session was opened (SessionChanged.How).
const (
	openedResumed = "resumed" // session/resume of the thread's last session
	openedLoaded  = "loaded"  // session/load of it (its history replayed, not re-stored)
	openedNew     = "new"     // session/new (context injected unless compacting)
)

// Why a thread's session changed (SessionChanged.Reason).
const (
	changedReopened  = "reopened"  // a new agent process took the thread over
	changedCompacted = "compacted" // compaction closed the old session
	changedImported  = "imported"  // the thread was made from the agent's own session
)

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
	if err := e.waitSetup(tr.ctx, tr.thread.ID); err != nil { // setup.go: the agent starts once the worktree's setup ended
		return nil, "", nil, err
	}
	e.retireIfStale(rt, tr)
	rt.startMu.Lock()
	defer rt.startMu.Unlock()
	a, sid, prefix, alive := e.liveAgent(tr, forTurn)
	if alive && sid != "" {
		e.releaseReservation(tr) // no process starts
		if forTurn {
			if err := e.defaultsOnLive(tr, a, sid); err != nil {
				rt.mu.Lock()
				rt.prefix = prefix // for the next turn, once the user has seen why
				rt.mu.Unlock()
				return nil, "", nil, err
			}
		}
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
	st, restored, failed, defaulted, unoffered := e.sessionChoices(tr, a, sid, how, before, sessionState(tr.thread.ID, setup))
	refuse := forTurn && len(failed)+len(unoffered) > 0
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
	e.recordSession(tr.thread, sid, st, a.Capabilities().SystemPromptSupport())
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
	sc := SessionChanged{Reason: reason, How: how, Restored: restored, Defaults: defaulted,
		Unrestored: append(slices.Clip(failed), unoffered...), Refused: refuse}
	if evs := e.sessionEvents(tr.thread, turnID, before, st, sc, tr.thread.AgentSessionID != "" || tr.fresh); len(evs) > 0 {
		if err := e.commit(&hub.Write{Events: evs}); err != nil {
			e.log.Warn("hub: recording the change of session failed", "err", err)
		}
	}
	if len(failed) > 0 {
		e.log.Warn("hub: a reopened session could not restore the user's choices", "thread", tr.thread.ID, "unrestored", len(failed), "turnRefused", refuse)
	}
	if len(unoffered) > 0 {
		e.log.Warn("hub: a new session does not offer the agent's session defaults", "thread", tr.thread.ID, "agent", tr.thread.Agent, "unoffered", len(unoffered), "turnRefused", refuse)
	}
	switch {
	case refuse && len(failed) == 0:
		return nil, "", nil, e.defaultsError(tr.thread.Agent, unoffered)
	case refuse:
		return nil, "", nil, choicesError(sc.Unrestored)
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

// openSession opens the thread's session on a: it reopens the thread's
// previous agent session when it has one and the agent can (session/resume
// when advertised, else session/load), otherwise starts a new one whose
// first prompt carries a context block (the thread's summary and recent
// turns), unless tr.fresh (compaction sends its own). It returns the
// session id, what the agent reported, the context block and how it opened.
// The session's cwd is agentDir: a worktree thread's worktree path.
func (e *Engine) openSession(tr *turnRT, a *acp.Agent) (string, acp.SessionSetup, []acp.ContentBlock, string, error) {
	thread := tr.thread
	caps := a.Capabilities()
	mcp := e.mcpServersFor(thread, a) // MCP servers: mcp.go
	if tr.importing {
		return e.openImported(tr, a, mcp) // agentsessions.go
	}
	if err := overrideRefusal(thread.Agent, thread.Instructions, caps.SystemPromptSupport()); err != nil { // instructions.go
		return "", acp.SessionSetup{}, nil, "", err
	}
	if old := thread.AgentSessionID; old != "" && !tr.fresh {
		if err := e.lockSession(a, thread.Agent, agentDir(thread), old); err != nil { // one hub per agent session (below)
			return "", acp.SessionSetup{}, nil, "", err
		}
		if hasJSON(caps.SessionCapabilities.Resume) {
			s, err := a.ResumeSessionIn(tr.ctx, old, sessionDirs(thread), mcp)
			if err == nil {
				return old, s, nil, openedResumed, nil
			}
			e.log.Info("hub: session/resume failed", "thread", thread.ID, "err", err)
		}
		if caps.LoadSession {
			tr.rt.mu.Lock()
			tr.rt.replaying = true
			tr.rt.mu.Unlock()
			s, err := a.LoadSessionIn(tr.ctx, old, sessionDirs(thread), mcp)
			tr.rt.mu.Lock()
			tr.rt.replaying = false
			tr.rt.mu.Unlock()
			if err == nil {
				return old, s, nil, openedLoaded, nil
			}
			e.log.Info("hub: session/load failed; starting a new session", "thread", thread.ID, "err", err)
		}
	}
	s, err := e.newSession(tr.ctx, a, thread, mcp) // signs in again when needed: auth.go
	if err != nil {
		herr := &hub.Error{Code: hub.CodeUpstreamUnavailable, Message: fmt.Sprintf("the agent refused a new session: %v", err), Err: err}
		if code, ok := acp.ErrorCode(err); ok && code == acp.CodeAuthRequired {
			name := thread.Agent
			if spec, ok := e.agentSpec(thread.Agent); ok && spec.Name != "" {
				name = spec.Name
			}
			herr.Message = fmt.Sprintf("%s needs signing in: %v", name, err)
			herr.Details = map[string]any{"reason": hub.ReasonAuthRequired, "agent": thread.Agent}
		}
		return "", s, nil, "", herr
	}
	if err := e.lockSession(a, thread.Agent, agentDir(thread), s.SessionID); err != nil {
		e.log.Warn("hub: a new agent session is locked by another hub", "thread", thread.ID, "err", err)
	}
	if tr.fresh {
		return s.SessionID, s, nil, openedNew, nil
	}
	prefix, err := e.sessionContext(thread, tr.retryOf) // queuemove.go: a moved thread's too
	if err != nil {
		e.log.Warn("hub: building the context block failed", "err", err)
	}
	return s.SessionID, s, prefix, openedNew, nil
}

// newSession is session/new on a, which, when the agent answers
// "authentication required" and an agent method was signed in with for
// thread's agent, runs authenticate with it and asks once more.
func (e *Engine) newSession(ctx context.Context, a *acp.Agent, thread hub.Thread, mcp []acp.MCPServer) (acp.SessionSetup, error) {
	s, err := a.NewSessionIn(ctx, sessionDirs(thread), mcp)
	if code, ok := acp.ErrorCode(err); !ok || code != acp.CodeAuthRequired {
		return s, err
	}
	e.mu.Lock()
	method := e.authed[thread.Agent]
	e.mu.Unlock()
	if method == "" {
		return s, err
	}
	if aerr := a.Authenticate(ctx, method); aerr != nil {
		e.log.Info("hub: authenticate failed", "agent", thread.Agent, "method", method, "err", aerr)
		return s, err
	}
	return a.NewSessionIn(ctx, sessionDirs(thread), mcp)
}

// Heads of a context block: for an agent that lost the thread's session,
// and for the new session compaction opens.
const (
	contextLostHead      = "[Switchboard] This conversation continues an earlier session that the agent no longer has. Context follows; the user's new message comes after it.\n"
	contextCompactedHead = "[Switchboard] This conversation was compacted: it continues in this new session. Context follows; reply only \"OK\" and wait for the user's next message.\n"
)

// sessionContext is the context block a new session of thread opens
// with: for a thread continued from another (queuemove.go), that thread's
// block (contextMovedHead) before the thread's own; else the thread's
// own (contextLostHead), skip left out of it.
func (e *Engine) sessionContext(thread hub.Thread, skip string) ([]acp.ContentBlock, error) {
	own, err := e.contextBlock(thread, contextLostHead, skip)
	if thread.ContinuedFrom == "" || err != nil {
		return own, err
	}
	from, err := e.store.GetThread(context.Background(), thread.ContinuedFrom)
	if err != nil { // deleted since: its context went with it
		return own, nil
	}
	moved, err := e.contextBlock(from, contextMovedHead, "")
	if err != nil {
		return own, fmt.Errorf("the context of thread %s: %w", from.ID, err)
	}
	return append(moved, own...), nil
}

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
// config options (st, when the agent reported any), thread's agent
// session id when sid differs, and its instructions' Delivery when that
// changes (announced by thread_updated). It waits for the commits and
// holds no lock; failures are logged, not returned, since the session
// runs either way.
func (e *Engine) recordSession(thread hub.Thread, sid string, st hub.SessionState, sp acp.SystemPromptSupport) {
	if st.Modes != nil || st.ConfigOptions != nil {
		if err := e.commit(&hub.Write{SessionStates: []hub.SessionState{st}}); err != nil {
			e.log.Warn("hub: recording the session's modes failed", "err", err)
		}
	}
	var instr *hub.ThreadInstructions
	if d := instructionsDelivery(thread, sp); d != "" {
		in := *thread.Instructions
		in.Delivery = d
		instr = &in
	}
	if sid == thread.AgentSessionID && instr == nil {
		return
	}
	// Field-wise: the rest of the thread may have changed since it was read.
	ch := hub.ThreadChange{ThreadID: thread.ID, AgentSessionID: &sid, Instructions: instr}
	if instr != nil {
		// A new Delivery is announced, with a later updatedAt: a client
		// that read the thread before this session opened (a read still
		// under way included) keeps the announced copy, not "pending".
		ch.UpdatedAt, ch.Announce = e.now(), true
	}
	err := e.commit(&hub.Write{ThreadChanges: []hub.ThreadChange{ch}})
	if err != nil && hub.ErrorCode(err) != hub.CodeNotFound { // deleted meanwhile: nothing to record
		e.log.Warn("hub: recording the agent session failed", "err", err)
	}
}

// SessionChanged is the payload of a session_changed event (docs/API.md):
// the thread's agent session is another one than before (How, Reason),
// with the user's choices re-applied where the agent still offers them.
// Unrestored lists those it could not restore; when a turn opened the
// session and Unrestored is not empty, the turn's prompt was not sent
// (Refused).
type SessionChanged struct {
	Reason   string   `json:"reason"`
	How      string   `json:"how"`
	Restored []string `json:"restored"`
	// Defaults are the session defaults set on a thread's session before
	// its first prompt ("mode", option ids; defaults.go); a default the
	// session does not offer is in Unrestored, with its Key.
	Defaults   []string     `json:"defaults,omitempty"`
	Unrestored []Unrestored `json:"unrestored"`
	Refused    bool         `json:"refused,omitempty"`
}

// sessionEvents are the events of a change of session on thread: a
// mode_changed and a config_options event when the session's state differs
// from before (choiceEvents; a first session's always), and session_changed (when the thread had a session before,
// or something could not be restored).
func (e *Engine) sessionEvents(thread hub.Thread, turnID string, before, after hub.SessionState, sc SessionChanged, hadSession bool) []hub.Event {
	now := e.now()
	// A first session differs from nothing: its mode and options are
	// news, so a window learns them (the pickers) before any prompt.
	evs := e.choiceEvents(thread, turnID, before, after)
	if hadSession || len(sc.Unrestored) > 0 {
		if sc.Restored == nil {
			sc.Restored = []string{}
		}
		if sc.Unrestored == nil {
			sc.Unrestored = []Unrestored{}
		}
		ev, _ := hub.NewEvent(hub.EventSessionChanged, thread, turnID, now, sc)
		evs = append(evs, ev)
	}
	return evs
}

// choiceEvents are the events saying how after differs from before: a
// mode_changed when its current mode differs, a config_options when its
// option values do (a first session, before nothing: each it has).
func (e *Engine) choiceEvents(thread hub.Thread, turnID string, before, after hub.SessionState) []hub.Event {
	now := e.now()
	var evs []hub.Event
	if m := currentMode(after.Modes); m != "" && m != currentMode(before.Modes) {
		ev, _ := hub.NewEvent(hub.EventModeChanged, thread, turnID, now, map[string]string{"modeId": m})
		evs = append(evs, ev)
	}
	if hasJSON(after.ConfigOptions) && (!hasJSON(before.ConfigOptions) || !sameChoices(before.ConfigOptions, after.ConfigOptions)) {
		ev, _ := hub.NewEvent(hub.EventConfigOptions, thread, turnID, now, map[string]json.RawMessage{"configOptions": after.ConfigOptions})
		evs = append(evs, ev)
	}
	return evs
}

// sessionCloseTimeout bounds session/close before the process is stopped.
const sessionCloseTimeout = 3 * time.Second

// closeSession sends session/close for sid when the agent advertises it
// and reports whether it did (the agent then has forgotten the session).
func (e *Engine) closeSession(ctx context.Context, a *acp.Agent, sid string) bool {
	if sid == "" || !agentAlive(a) || !hasJSON(a.Capabilities().SessionCapabilities.Close) {
		return false
	}
	cctx, cancel := context.WithTimeout(ctx, sessionCloseTimeout)
	defer cancel()
	if err := a.CloseSession(cctx, sid); err != nil {
		e.log.Info("hub: session/close failed", "err", err)
		return false
	}
	return true
}

// closeThreadSession ends the thread's agent session: session/close when
// the agent advertises it (the process stays, without a session, for the
// next one), else the process is stopped. It takes rt.startMu, so no
// session opens meanwhile.
func (e *Engine) closeThreadSession(rt *threadRT) {
	rt.startMu.Lock()
	defer rt.startMu.Unlock()
	rt.mu.Lock()
	a, sid := rt.agent, rt.sessionID
	rt.mu.Unlock()
	if !agentAlive(a) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if e.closeSession(ctx, a, sid) {
		rt.mu.Lock()
		if rt.agent == a {
			rt.sessionID, rt.prefix = "", nil
		}
		rt.mu.Unlock()
		unlockSessions(a, sid)
		return
	}
	e.stopAgent(ctx, rt)
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

// OpenSession implements Service: the thread's agent and session, opened
// when none is.
func (e *Engine) OpenSession(ctx context.Context, c hub.Caller, threadID string) (hub.Thread, error) {
	t, err := e.visibleThread(ctx, c, threadID)
	if err != nil {
		return hub.Thread{}, err
	}
	return e.openNow(ctx, t)
}

// openSessionNow serves CreateThreadRequest.OpenSession: it starts the new
// thread's agent and session so that the thread carries its modes and
// config options. Best effort: a failure is logged and t returned as is.
func (e *Engine) openSessionNow(ctx context.Context, t hub.Thread) hub.Thread {
	got, err := e.openNow(ctx, t)
	if err != nil {
		e.log.Info("hub: opening a new thread's agent session failed; the first turn will try again", "thread", t.ID, "err", err)
		return t
	}
	return got
}

// openNow opens thread t's agent session when none is (bounded by
// setCallTimeout) and returns the thread as stored then.
func (e *Engine) openNow(ctx context.Context, t hub.Thread) (hub.Thread, error) {
	ctx, cancel := context.WithTimeout(ctx, setCallTimeout)
	defer cancel()
	rt, _, _, err := e.openOutsideTurn(ctx, t)
	if err != nil {
		return hub.Thread{}, err
	}
	e.idleUnlessTurn(rt)
	return e.store.GetThread(context.Background(), t.ID)
}

// One writer per agent session: two Switchboard hubs of one user never
// drive the same agent session at once. A hub holds an exclusive lock on
// $XDG_RUNTIME_DIR/switchboard/sessions/<hash of agent id, folder and
// session id>.lock while an agent process of its has the session open; the file
// names the holder (pid and command line). A hub about to reopen or import
// a session another hub holds gets CONFLICT naming that hub. The lock goes
// with the agent process (its exit), with session/close and session/delete,
// and with the hub process itself (the kernel drops it). Without
// XDG_RUNTIME_DIR there is no lock. An editor that is not Switchboard
// driving the same session cannot be detected.

type heldSessionLock struct {
	f     *os.File
	owner *Engine
	agent *acp.Agent
	sid   string
}

var (
	sessionLocksMu sync.Mutex
	sessionLocks   = map[string]*heldSessionLock{} // this process's, by path
)

// sessionLockPath is the lock file of agentID's session sid in folder cwd
// (the folder too: agents' ids are unique per agent, a fake agent's per
// test are not); "" without XDG_RUNTIME_DIR.
func sessionLockPath(agentID, cwd, sid string) string {
	dir := os.Getenv("XDG_RUNTIME_DIR")
	if dir == "" || sid == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(agentID + "\x00" + cwd + "\x00" + sid))
	return filepath.Join(dir, "switchboard", "sessions", hex.EncodeToString(sum[:16])+".lock")
}

// lockSession takes the lock of agentID's session sid for a, the agent
// process that is about to open it; CONFLICT when another hub holds it.
// The same engine taking it again (a new process for the same thread)
// moves it to a.
func (e *Engine) lockSession(a *acp.Agent, agentID, cwd, sid string) error {
	path := sessionLockPath(agentID, cwd, sid)
	if path == "" || a == nil {
		return nil
	}
	sessionLocksMu.Lock()
	defer sessionLocksMu.Unlock()
	if h := sessionLocks[path]; h != nil {
		if h.owner != e {
			return sessionConflict(agentID, sid, readHolder(h.f))
		}
		h.agent = a
	} else {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			e.log.Warn("hub: session lock folder", "err", err)
			return nil // a lock we cannot take does not stop the user
		}
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			e.log.Warn("hub: session lock", "err", err)
			return nil
		}
		if err := tryLockFile(f); err != nil {
			holder := readHolder(f)
			f.Close()
			return sessionConflict(agentID, sid, holder)
		}
		_ = f.Truncate(0)
		_, _ = f.WriteAt([]byte(fmt.Sprintf("Switchboard hub, pid %d: %s\n", os.Getpid(), strings.Join(os.Args, " "))), 0)
		sessionLocks[path] = &heldSessionLock{f: f, owner: e, agent: a, sid: sid}
	}
	go func() {
		<-a.Done()
		unlockSessions(a, "")
	}()
	return nil
}

// unlockSessions drops the locks a holds: of session sid, or all ("").
func unlockSessions(a *acp.Agent, sid string) {
	sessionLocksMu.Lock()
	defer sessionLocksMu.Unlock()
	for path, h := range sessionLocks {
		if h.agent == a && (sid == "" || h.sid == sid) {
			delete(sessionLocks, path)
			h.f.Close() // releases the lock
		}
	}
}

func readHolder(f *os.File) string {
	b := make([]byte, 512)
	n, _ := f.ReadAt(b, 0)
	if s := strings.TrimSpace(string(b[:n])); s != "" {
		return s
	}
	return "another Switchboard hub"
}

func sessionConflict(agentID, sid, holder string) error {
	return &hub.Error{Code: hub.CodeConflict,
		Message: fmt.Sprintf("%s's session %s is open in another Switchboard hub (%s): one hub drives an agent session at a time; close it there first", agentID, sid, holder),
		Details: map[string]any{"reason": hub.ReasonSessionLocked, "holder": holder}}
}

// sessionDirs are the folders of the thread's agent sessions: its agent
// folder (agentDir) and its extra folders (extradirs.go). Here, not there:
// it is on the prompt's way (TestPromptPath).
func sessionDirs(t hub.Thread) acp.SessionDirs {
	d := acp.SessionDirs{Cwd: agentDir(t), Additional: t.AdditionalDirectories}
	if in := t.Instructions; in != nil { // instructions.go
		d.SystemPrompt = acp.SystemPrompt{Mode: in.Mode, Text: in.Text}
	}
	return d
}

// instructionsDelivery is what the thread's instructions' Delivery becomes
// once a session opened on an agent with support s; "" when the thread
// has none or it stays as it was.
func instructionsDelivery(t hub.Thread, s acp.SystemPromptSupport) string {
	if t.Instructions == nil {
		return ""
	}
	d := hub.InstructionsNotSent
	if s.Takes(acp.SystemPrompt{Mode: t.Instructions.Mode, Text: t.Instructions.Text}) {
		d = hub.InstructionsSent
	}
	if d == t.Instructions.Delivery {
		return ""
	}
	return d
}
