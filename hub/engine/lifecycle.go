package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// The agent session's lifecycle (docs/ARCHITECTURE.md, "The agent
// session's lifecycle"): how a thread's ACP session is opened, reopened
// and closed, and what a change of session means for the thread.

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

// sessionCloseTimeout bounds session/close before the process is stopped.
const sessionCloseTimeout = 3 * time.Second

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
	if old := thread.AgentSessionID; old != "" && !tr.fresh {
		if hasJSON(caps.SessionCapabilities.Resume) {
			s, err := a.ResumeSession(tr.ctx, old, agentDir(thread), mcp)
			if err == nil {
				return old, s, nil, openedResumed, nil
			}
			e.log.Info("hub: session/resume failed", "thread", thread.ID, "err", err)
		}
		if caps.LoadSession {
			tr.rt.mu.Lock()
			tr.rt.replaying = true
			tr.rt.mu.Unlock()
			s, err := a.LoadSession(tr.ctx, old, agentDir(thread), mcp)
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
	if tr.fresh {
		return s.SessionID, s, nil, openedNew, nil
	}
	prefix, err := e.contextBlock(thread, contextLostHead, tr.retryOf)
	if err != nil {
		e.log.Warn("hub: building the context block failed", "err", err)
	}
	return s.SessionID, s, prefix, openedNew, nil
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

// SessionChanged is the payload of a session_changed event (docs/API.md):
// the thread's agent session is another one than before (How, Reason),
// with the user's choices re-applied where the agent still offers them.
// Unrestored lists those it could not restore; when a turn opened the
// session and Unrestored is not empty, the turn's prompt was not sent
// (Refused).
type SessionChanged struct {
	Reason     string       `json:"reason"`
	How        string       `json:"how"`
	Restored   []string     `json:"restored"`
	Unrestored []Unrestored `json:"unrestored"`
	Refused    bool         `json:"refused,omitempty"`
}

// Unrestored is one choice the new session could not take back: the mode
// (Kind "mode", ID "") or a config option's value (Kind "configOption").
// Current is what the session has instead ("" when it offers none).
type Unrestored struct {
	Kind    string `json:"kind"`
	ID      string `json:"id,omitempty"`
	Wanted  string `json:"wanted"`
	Current string `json:"current"`
	Message string `json:"message"`
}

// restoreChoices re-applies the user's choices (before: the mode and
// config option values the thread had) on session sid of a, which reported
// st, and returns st as the session now is, what was restored, and what
// could not be. A choice is re-applied only when it differs and the agent
// still offers it; a refused call is reported, never retried.
//
// A reopened session (how resumed or loaded) whose answer omits the modes
// or the options (ACP makes them optional) is taken to have kept them.
func (e *Engine) restoreChoices(ctx context.Context, a *acp.Agent, sid, how string, before hub.SessionState, st hub.SessionState) (hub.SessionState, []string, []Unrestored) {
	if how != openedNew {
		if st.Modes == nil {
			st.Modes = before.Modes
		}
		if st.ConfigOptions == nil {
			st.ConfigOptions = before.ConfigOptions
		}
	}
	var restored []string
	var failed []Unrestored
	if want := currentMode(before.Modes); want != "" {
		cur := currentMode(st.Modes)
		switch {
		case cur == want:
		case !modeOffered(st.Modes, want):
			failed = append(failed, Unrestored{Kind: "mode", Wanted: want, Current: cur,
				Message: fmt.Sprintf("the agent no longer offers mode %q; the session is in mode %q", want, cur)})
		default:
			if err := a.SetMode(ctx, sid, want); err != nil {
				failed = append(failed, Unrestored{Kind: "mode", Wanted: want, Current: cur,
					Message: fmt.Sprintf("the agent refused mode %q (%v); the session is in mode %q", want, err, cur)})
			} else {
				st.Modes, _ = withCurrentMode(st.Modes, want)
				restored = append(restored, "mode")
			}
		}
	}
	for _, o := range configChoices(before.ConfigOptions) {
		now, ok := findOption(st.ConfigOptions, o.ID)
		switch {
		case !ok:
			failed = append(failed, Unrestored{Kind: "configOption", ID: o.ID, Wanted: o.Value,
				Message: fmt.Sprintf("the agent no longer offers option %q", o.ID)})
		case now.Value == o.Value:
		case !now.offers(o.Value):
			failed = append(failed, Unrestored{Kind: "configOption", ID: o.ID, Wanted: o.Value, Current: now.Value,
				Message: fmt.Sprintf("the agent no longer offers %q for option %q; it is %q", o.Value, o.ID, now.Value)})
		default:
			opts, err := a.SetConfigOption(ctx, sid, o.ID, o.Value)
			if err != nil {
				failed = append(failed, Unrestored{Kind: "configOption", ID: o.ID, Wanted: o.Value, Current: now.Value,
					Message: fmt.Sprintf("the agent refused %q for option %q (%v); it is %q", o.Value, o.ID, err, now.Value)})
				continue
			}
			if hasJSON(opts) {
				st.ConfigOptions = opts
			} else {
				st.ConfigOptions = withOptionValue(st.ConfigOptions, o.ID, o.Value)
			}
			restored = append(restored, o.ID)
		}
	}
	return st, restored, failed
}

// currentMode is the currentModeId of a SessionModeState ("" if none).
func currentMode(modes json.RawMessage) string {
	var m struct {
		CurrentModeID string `json:"currentModeId"`
	}
	if !hasJSON(modes) || json.Unmarshal(modes, &m) != nil {
		return ""
	}
	return m.CurrentModeID
}

// modeOffered reports whether modes lists id among its availableModes.
func modeOffered(modes json.RawMessage, id string) bool {
	var m struct {
		AvailableModes []struct {
			ID string `json:"id"`
		} `json:"availableModes"`
	}
	if !hasJSON(modes) || json.Unmarshal(modes, &m) != nil {
		return false
	}
	for _, x := range m.AvailableModes {
		if x.ID == id {
			return true
		}
	}
	return false
}

// configChoice is one config option's id and its current value, as text
// (select options; boolean options as "true"/"false").
type configChoice struct {
	ID, Value string
	values    []string // what the option offers
}

func (c configChoice) offers(v string) bool {
	for _, x := range c.values {
		if x == v {
			return true
		}
	}
	return false
}

// configChoices reads an ACP configOptions list: each option's id, current
// value and offered values (flat, or in groups). Options without a string
// value are skipped.
func configChoices(raw json.RawMessage) []configChoice {
	if !hasJSON(raw) {
		return nil
	}
	var opts []struct {
		ID           string          `json:"id"`
		CurrentValue json.RawMessage `json:"currentValue"`
		Options      []struct {
			Value   *string `json:"value"`
			Options []struct {
				Value string `json:"value"`
			} `json:"options"`
		} `json:"options"`
	}
	if json.Unmarshal(raw, &opts) != nil {
		return nil
	}
	var out []configChoice
	for _, o := range opts {
		var v string
		if o.ID == "" || json.Unmarshal(o.CurrentValue, &v) != nil {
			continue
		}
		c := configChoice{ID: o.ID, Value: v}
		for _, x := range o.Options {
			if x.Value != nil {
				c.values = append(c.values, *x.Value)
			}
			for _, g := range x.Options {
				c.values = append(c.values, g.Value)
			}
		}
		out = append(out, c)
	}
	return out
}

func findOption(raw json.RawMessage, id string) (configChoice, bool) {
	for _, c := range configChoices(raw) {
		if c.ID == id {
			return c, true
		}
	}
	return configChoice{}, false
}

// withOptionValue returns raw with option id's currentValue set to v
// (unknown fields kept); raw unchanged when it cannot.
func withOptionValue(raw json.RawMessage, id, v string) json.RawMessage {
	var opts []map[string]json.RawMessage
	if json.Unmarshal(raw, &opts) != nil {
		return raw
	}
	for _, o := range opts {
		var oid string
		if json.Unmarshal(o["id"], &oid) == nil && oid == id {
			o["currentValue"], _ = json.Marshal(v)
		}
	}
	out, err := json.Marshal(opts)
	if err != nil {
		return raw
	}
	return out
}

// sameChoices reports whether two config option lists hold the same values.
func sameChoices(a, b json.RawMessage) bool {
	ca, cb := configChoices(a), configChoices(b)
	if len(ca) != len(cb) {
		return bytes.Equal(a, b)
	}
	for i := range ca {
		if ca[i].ID != cb[i].ID || ca[i].Value != cb[i].Value {
			return false
		}
	}
	return true
}

// reasonChoicesNotRestored is the details.reason of a turn whose prompt
// was not sent because its new session could not take the user's choices
// back.
const reasonChoicesNotRestored = "SESSION_CHOICES_NOT_RESTORED"

// choicesError is the turn's error when a reopened session could not take
// back the user's choices: the prompt is not sent (a session that may ask
// less than the user chose never runs silently).
func choicesError(failed []Unrestored) error {
	msg := "the agent's new session could not restore your choices, so the message was not sent: "
	for i, f := range failed {
		if i > 0 {
			msg += "; "
		}
		msg += f.Message
	}
	msg += ". Choose again (or accept the agent's) and send again."
	return &hub.Error{Code: hub.CodeConflict, Message: msg, Details: map[string]any{"reason": reasonChoicesNotRestored, "unrestored": failed}}
}

// sessionEvents are the events of a change of session on thread: a
// mode_changed and a config_options event when the session's state differs
// from before, and session_changed (when the thread had a session before,
// or something could not be restored).
func (e *Engine) sessionEvents(thread hub.Thread, turnID string, before, after hub.SessionState, sc SessionChanged, hadSession bool) []hub.Event {
	now := e.now()
	var evs []hub.Event
	// A first session has nothing to differ from: the thread learns its
	// state (stored), as before any session change.
	if m, was := currentMode(after.Modes), currentMode(before.Modes); m != "" && was != "" && m != was {
		ev, _ := hub.NewEvent(hub.EventModeChanged, thread, turnID, now, map[string]string{"modeId": m})
		evs = append(evs, ev)
	}
	if hasJSON(after.ConfigOptions) && hasJSON(before.ConfigOptions) && !sameChoices(before.ConfigOptions, after.ConfigOptions) {
		ev, _ := hub.NewEvent(hub.EventConfigOptions, thread, turnID, now, map[string]json.RawMessage{"configOptions": after.ConfigOptions})
		evs = append(evs, ev)
	}
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
