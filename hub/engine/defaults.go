package engine

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// Session defaults (agents.<id>.defaults; ADR 0032): the mode and config
// option values a thread's session is set to before the thread's first
// prompt, each unless the user chose it on the thread (threadRT.chosen).
// They apply to the session a thread opens first (ensureSession), and again
// at every turn until a prompt of the thread has reached its agent
// (threadRT.prompted), on the live session too (a session opened when the
// thread was created, or with defaults changed since). After that the
// thread's choices are its own and every new session gets them back
// (restoreChoices). A default the session does not offer refuses the turn
// (defaultsError): a session never silently runs in the agent's own mode.
// Deciding and setting them (defaultsDue, applyDefaults) is choices.go's,
// on the prompt's way (sessionChoices); this file has the rest.

// reasonDefaultsNotOffered is the details.reason of a turn whose prompt
// was not sent because its session does not offer a default.
const reasonDefaultsNotOffered = "SESSION_DEFAULTS_NOT_OFFERED"

// defaultsOnLive applies the defaults, when still due, to the live session
// sid of a that turn tr is about to prompt: what it set is stored with its
// events (mode_changed, config_options) like a set call's; a default the
// session does not offer is defaultsError.
func (e *Engine) defaultsOnLive(tr *turnRT, a *acp.Agent, sid string) error {
	if !e.defaultsDue(tr) {
		return nil
	}
	rt := tr.rt
	rt.mu.Lock()
	before := hub.SessionState{ThreadID: tr.thread.ID, Modes: rt.modes, ConfigOptions: rt.config}
	rt.mu.Unlock()
	st, set, failed := e.applyDefaults(tr, a, sid, before)
	if len(set) > 0 {
		rt.mu.Lock()
		rt.modes, rt.config = st.Modes, st.ConfigOptions
		w := &hub.Write{SessionStates: []hub.SessionState{st},
			Events: e.choiceEvents(tr.thread, tr.turn.ID, before, st)}
		done := e.submit(w) // under rt.mu: in order with the agent's updates
		rt.mu.Unlock()
		if err := <-done; err != nil {
			e.log.Warn("hub: recording the session defaults failed", "err", err)
		}
	}
	if len(failed) > 0 {
		return e.defaultsError(tr.thread.Agent, failed)
	}
	return nil
}

// defaultsError is the turn's error when its session does not offer a
// default of agent's: the prompt is not sent. Details: reason
// SESSION_DEFAULTS_NOT_OFFERED, agent, and unoffered (each default with
// its key and what the session offers).
func (e *Engine) defaultsError(agent string, failed []Unrestored) error {
	name := agent
	if spec, ok := e.agentSpec(agent); ok && spec.Name != "" {
		name = spec.Name
	}
	msgs := make([]string, len(failed))
	for i, f := range failed {
		msgs[i] = f.Message
	}
	msg := fmt.Sprintf("%s does not offer your session default, so the message was not sent: %s. Change the default in Settings → Agents, or choose here, and send again.",
		name, strings.Join(msgs, "; "))
	return &hub.Error{Code: hub.CodeConflict, Message: msg,
		Details: map[string]any{"reason": reasonDefaultsNotOffered, "agent": agent, "unoffered": failed}}
}

// modeIDs are the ids of the modes a SessionModeState offers.
func modeIDs(modes json.RawMessage) []string {
	var m struct {
		AvailableModes []struct {
			ID string `json:"id"`
		} `json:"availableModes"`
	}
	if !hasJSON(modes) || json.Unmarshal(modes, &m) != nil {
		return nil
	}
	ids := make([]string, 0, len(m.AvailableModes))
	for _, x := range m.AvailableModes {
		ids = append(ids, x.ID)
	}
	return ids
}

// offeredList is ids for a message: quoted, comma-separated, or "none".
func offeredList(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = fmt.Sprintf("%q", id)
	}
	return strings.Join(q, ", ")
}
