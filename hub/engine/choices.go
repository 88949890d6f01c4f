package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// Modes and config choices: the user's mode and config option values on
// a thread, given back to every session opened for it (choicesBefore,
// restoreChoices, or the turn is refused: choicesError), set through the
// API (SetMode, SetConfigOption) and kept current from the agent's
// updates (trackUpdate).

// Unrestored is one choice the new session could not take back: the mode
// (Kind "mode", ID "") or a config option's value (Kind "configOption").
// Current is what the session has instead ("" when it offers none).
type Unrestored struct {
	Kind    string `json:"kind"`
	ID      string `json:"id,omitempty"`
	Wanted  string `json:"wanted"`
	Current string `json:"current"`
	Message string `json:"message"`
	// Key and Offered are set for a session default (defaults.go): the
	// config key that asks for it (agents.<id>.defaults.mode, …options.<id>)
	// and what the session offers instead (mode ids, option ids, or the
	// option's values).
	Key     string   `json:"key,omitempty"`
	Offered []string `json:"offered,omitempty"`
}

// sessionChoices gives session sid of a, newly opened (how) with state
// st, the thread's choices back (restoreChoices, before: what the thread
// had) and then, while they are due, the agent's session defaults
// (applyDefaults; defaults.go). It returns st as the session now is, what
// was restored and what could not be, the defaults set and those the
// session does not offer.
func (e *Engine) sessionChoices(tr *turnRT, a *acp.Agent, sid, how string, before, st hub.SessionState) (hub.SessionState, []string, []Unrestored, []string, []Unrestored) {
	st, restored, failed := e.restoreChoices(tr.ctx, a, sid, how, before, st)
	if !e.defaultsDue(tr) {
		return st, restored, failed, nil, nil
	}
	st, set, unoffered := e.applyDefaults(tr, a, sid, st)
	return st, restored, failed, set, unoffered
}

// choose records that the user chose key ("mode" or a config option id)
// on the thread. rt.mu must be held.
func (rt *threadRT) choose(key string) {
	if rt.chosen == nil {
		rt.chosen = map[string]bool{}
	}
	rt.chosen[key] = true
}

// defaultsDue reports whether the defaults still apply to tr's thread: no
// prompt of it has reached its agent, as far as this hub knows (rt), or as
// the stored turns say (a turn other than tr's that completed, was
// cancelled or interrupted, or has output). The answer is kept once
// false.
func (e *Engine) defaultsDue(tr *turnRT) bool {
	rt := tr.rt
	rt.mu.Lock()
	prompted := rt.prompted
	rt.mu.Unlock()
	if prompted || tr.importing || tr.thread.Imported != nil {
		return false
	}
	turns, err := e.store.ListTurns(context.Background(), tr.thread.ID, true)
	if err != nil {
		return true // never ask less than the user chose
	}
	for _, t := range turns {
		if t.ID == tr.turn.ID { // "" outside a turn: no turn's
			continue
		}
		if t.Status == hub.TurnCompleted || t.Status == hub.TurnCancelled || t.Status == hub.TurnInterrupted || t.Output != "" {
			rt.mu.Lock()
			rt.prompted = true
			rt.mu.Unlock()
			return false
		}
	}
	return true
}

// applyDefaults sets the session defaults of tr's agent, as the config now
// has them, on session sid of a, whose state is st, but for those the user
// chose on the thread. It returns st as the session now is, what it set
// ("mode", option ids) and the defaults the session does not offer or the
// agent refused, each naming its config key and what the session offers.
func (e *Engine) applyDefaults(tr *turnRT, a *acp.Agent, sid string, st hub.SessionState) (hub.SessionState, []string, []Unrestored) {
	spec, _ := e.agentSpec(tr.thread.Agent)
	d := spec.Defaults
	if d.IsZero() {
		return st, nil, nil
	}
	tr.rt.mu.Lock()
	chosen := maps.Clone(tr.rt.chosen)
	tr.rt.mu.Unlock()
	key := "agents." + tr.thread.Agent + ".defaults"
	var set []string
	var failed []Unrestored
	if want := d.Mode; want != "" && !chosen["mode"] {
		cur := currentMode(st.Modes)
		u := Unrestored{Kind: "mode", Wanted: want, Current: cur, Key: key + ".mode", Offered: modeIDs(st.Modes)}
		switch {
		case cur == want:
		case !modeOffered(st.Modes, want):
			u.Message = fmt.Sprintf("%s is %q, a mode the agent does not offer (it offers %s)", u.Key, want, offeredList(u.Offered))
			failed = append(failed, u)
		default:
			if err := setModeOn(tr.ctx, a, sid, &st, want); err != nil {
				u.Message = fmt.Sprintf("the agent refused %s %q (%v)", u.Key, want, err)
				failed = append(failed, u)
			} else {
				set = append(set, "mode")
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(d.Options)) {
		want := d.Options[id]
		if chosen[id] {
			continue
		}
		u := Unrestored{Kind: "configOption", ID: id, Wanted: want, Key: key + ".options." + id}
		now, ok := findOption(st.ConfigOptions, id)
		switch {
		case !ok:
			for _, c := range configChoices(st.ConfigOptions) {
				u.Offered = append(u.Offered, c.ID)
			}
			u.Message = fmt.Sprintf("%s is set, but the agent has no option %q (its options: %s)", u.Key, id, offeredList(u.Offered))
			failed = append(failed, u)
		case now.Value == want:
		case !now.offers(want):
			u.Current, u.Offered = now.Value, now.values
			u.Message = fmt.Sprintf("%s is %q, a value the agent does not offer (it offers %s)", u.Key, want, offeredList(u.Offered))
			failed = append(failed, u)
		default:
			u.Current = now.Value
			if err := setOptionOn(tr.ctx, a, sid, &st, id, want); err != nil {
				u.Message = fmt.Sprintf("the agent refused %s %q (%v)", u.Key, want, err)
				failed = append(failed, u)
				continue
			}
			set = append(set, id)
		}
	}
	return st, set, failed
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
			if err := setModeOn(ctx, a, sid, &st, want); err != nil {
				failed = append(failed, Unrestored{Kind: "mode", Wanted: want, Current: cur,
					Message: fmt.Sprintf("the agent refused mode %q (%v); the session is in mode %q", want, err, cur)})
			} else {
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
			if err := setOptionOn(ctx, a, sid, &st, o.ID, o.Value); err != nil {
				failed = append(failed, Unrestored{Kind: "configOption", ID: o.ID, Wanted: o.Value, Current: now.Value,
					Message: fmt.Sprintf("the agent refused %q for option %q (%v); it is %q", o.Value, o.ID, err, now.Value)})
				continue
			}
			restored = append(restored, o.ID)
		}
	}
	return st, restored, failed
}

// setModeOn is session/set_mode want on session sid of a, whose state *st
// then says so.
func setModeOn(ctx context.Context, a *acp.Agent, sid string, st *hub.SessionState, want string) error {
	if err := a.SetMode(ctx, sid, want); err != nil {
		return err
	}
	st.Modes, _ = withCurrentMode(st.Modes, want)
	return nil
}

// setOptionOn is session/set_config_option id=value on session sid of a,
// whose state *st then holds the options the agent answered (or, when it
// answered none, value set on the option it had).
func setOptionOn(ctx context.Context, a *acp.Agent, sid string, st *hub.SessionState, id, value string) error {
	opts, err := setOption(ctx, a, sid, st.ConfigOptions, id, value)
	if err != nil {
		return err
	}
	if hasJSON(opts) {
		st.ConfigOptions = opts
	} else {
		st.ConfigOptions = withOptionValue(st.ConfigOptions, id, value)
	}
	return nil
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
	return slices.Contains(modeIDs(modes), id)
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
// setOption is session/set_config_option id=value on session sid of a: a
// boolean option (by its type in opts, the session's current list) as
// {type: "boolean", value} with value "true" or "false" (anything else is
// INVALID_ARGUMENT), any other with the value id.
func setOption(ctx context.Context, a *acp.Agent, sid string, opts json.RawMessage, id, value string) (json.RawMessage, error) {
	if optionType(opts, id) != "boolean" {
		return a.SetConfigOption(ctx, sid, id, value)
	}
	b, err := strconv.ParseBool(value)
	if err != nil || (value != "true" && value != "false") {
		// As the agent's own refusal of a value it does not offer (never sent).
		return nil, acp.NewError(acp.CodeInvalidParams, "option %s is a boolean: its value must be \"true\" or \"false\", not %q", id, value)
	}
	return a.SetBoolConfigOption(ctx, sid, id, b)
}

// optionType is the type ("select", "boolean", …) of option id in an ACP
// configOptions list; "" when it is not there.
func optionType(raw json.RawMessage, id string) string {
	var opts []struct {
		ID   string `json:"id"`
		Type string `json:"type"`
	}
	if !hasJSON(raw) || json.Unmarshal(raw, &opts) != nil {
		return ""
	}
	for _, o := range opts {
		if o.ID == id {
			return o.Type
		}
	}
	return ""
}

func withOptionValue(raw json.RawMessage, id, v string) json.RawMessage {
	var opts []map[string]json.RawMessage
	if json.Unmarshal(raw, &opts) != nil {
		return raw
	}
	for _, o := range opts {
		var oid string
		if json.Unmarshal(o["id"], &oid) == nil && oid == id {
			var typ string
			_ = json.Unmarshal(o["type"], &typ)
			if b, err := strconv.ParseBool(v); typ == "boolean" && err == nil {
				o["currentValue"], _ = json.Marshal(b) // a boolean option's value is a JSON boolean
			} else {
				o["currentValue"], _ = json.Marshal(v)
			}
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

// hasJSON reports whether raw holds a value other than null.
func hasJSON(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && string(raw) != "null"
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
		rt.choose("mode")
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
		rt.mu.Lock()
		current := rt.config
		rt.mu.Unlock()
		opts, err := setOption(ctx, a, sid, current, configID, value)
		if err != nil {
			return hub.Event{}, false, err
		}
		rt.mu.Lock()
		defer rt.mu.Unlock()
		rt.choose(configID)
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
