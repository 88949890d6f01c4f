package engine

import (
	"encoding/json"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/redact"
)

// Redaction (docs/SECURITY.md "Secrets at rest"): what the hub stores, and
// so what it streams (stored = streamed), has well-known secret formats
// replaced before it is committed. The agent itself still gets the prompt
// as the user wrote it.

// redactString redacts s when redaction is on.
func (e *Engine) redactString(s string) string {
	if !e.redacting.Load() {
		return s
	}
	r, _ := redact.String(s)
	return r
}

// redactJSON redacts the string values of raw JSON when redaction is on.
func (e *Engine) redactJSON(raw json.RawMessage) json.RawMessage {
	if !e.redacting.Load() || raw == nil {
		return raw
	}
	r, _ := redact.JSON(raw)
	return r
}

// redactRequest is r with its strings redacted when redaction is on (r
// itself is never changed).
func (e *Engine) redactRequest(r *hub.PermissionRequest) *hub.PermissionRequest {
	if r == nil || !e.redacting.Load() {
		return r
	}
	b, err := json.Marshal(r)
	if err != nil {
		return r
	}
	var out hub.PermissionRequest
	if json.Unmarshal(e.redactJSON(b), &out) != nil {
		return r
	}
	return &out
}

// delta is a message or thought text to emit as an event.
type delta struct {
	typ  string // hub.EventMessageDelta or hub.EventThoughtDelta
	text string
}

// turnText holds a running turn's message and thought streams: the text
// the agent sent that is not yet released, being possibly the start of a
// secret (at most redact.HoldBack bytes each). Guarded by turnRT.mu.
type turnText struct {
	message, thought redact.Stream
	closed           bool // the turn ended: each chunk is released at once
}

// chunk passes one message or thought chunk (typ; "" for any other update,
// which ends both texts) through the turn's streams and returns the deltas
// to emit, in order: first what another text held back (a message ends
// when something else comes), then this chunk's released part. The
// released message text is counted into the turn's output, which is
// exactly the concatenation of the message_delta events.
func (tr *turnRT) chunk(typ, text string, on bool) []delta {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var out []delta
	add := func(typ, s string) {
		if s == "" {
			return
		}
		if typ == hub.EventMessageDelta {
			tr.addOutputLocked(s)
		}
		out = append(out, delta{typ, s})
	}
	t := &tr.text
	if typ != hub.EventMessageDelta && t.message.Holding() {
		add(hub.EventMessageDelta, t.message.Close())
		t.message = redact.Stream{}
	}
	if typ != hub.EventThoughtDelta && t.thought.Holding() {
		add(hub.EventThoughtDelta, t.thought.Close())
		t.thought = redact.Stream{}
	}
	s := &t.message
	if typ == hub.EventThoughtDelta {
		s = &t.thought
	}
	switch {
	case typ == "":
	case !on: // release what was held (redacted), then the chunk as is
		add(typ, s.Close()+text)
		*s = redact.Stream{}
	case t.closed:
		r, _ := redact.String(text)
		add(typ, r)
	default:
		add(typ, s.Write(text))
	}
	return out
}

// addOutputLocked counts s, released message text, into the turn's
// output and keeps the output's first hub.TurnEventOutputMax bytes (cut at
// a UTF-8 boundary; nothing is kept after a cut, so it stays a prefix).
// The caller holds tr.mu.
func (tr *turnRT) addOutputLocked(s string) {
	if tr.outputBytes == tr.output.Len() {
		tr.output.WriteString(hub.CutUTF8(s, hub.TurnEventOutputMax-tr.output.Len()))
	}
	tr.outputBytes += len(s)
}

// closeText releases what the turn's streams hold back, at its end; a
// chunk that arrives later is released at once.
func (tr *turnRT) closeText() []delta {
	out := tr.chunk("", "", true)
	tr.mu.Lock()
	tr.text.closed = true
	tr.mu.Unlock()
	return out
}

// deltaEvents makes the events of ds.
func (e *Engine) deltaEvents(t hub.Thread, turnID string, ds []delta) []hub.Event {
	evs := make([]hub.Event, 0, len(ds))
	for _, d := range ds {
		evs = append(evs, hub.Event{Type: d.typ, ThreadID: t.ID, TurnID: turnID, ClientID: t.ClientID, At: e.now(), Payload: hub.TextPayload(d.text)})
	}
	return evs
}

// sessionStateEvents are the events that carry an agent's session state
// (its modes, config options and commands, and what a new session could
// not restore of them): made by updates, set calls and session changes.
var sessionStateEvents = map[string]bool{
	hub.EventModeChanged: true, hub.EventConfigOptions: true, hub.EventAvailableCommands: true, hub.EventSessionChanged: true,
}

// redactWrite redacts, when redaction is on, the session state w stores
// — a thread's modes, config options and available commands — and the
// events that carry it, whichever path made w (updates, set calls,
// session changes): stored = streamed, and the GET of a thread shows what
// was stored. The engine keeps the agent's own state in memory (threadRT)
// to talk to the agent. Every write goes through it (submit,
// commitAsync); redacting what is already redacted changes nothing.
func (e *Engine) redactWrite(w *hub.Write) {
	if !e.redacting.Load() {
		return
	}
	for i := range w.SessionStates {
		st := &w.SessionStates[i]
		st.Modes, st.ConfigOptions, st.AvailableCommands = e.redactJSON(st.Modes), e.redactJSON(st.ConfigOptions), e.redactJSON(st.AvailableCommands)
	}
	for i := range w.Events {
		if ev := &w.Events[i]; sessionStateEvents[ev.Type] {
			ev.Payload = e.redactJSON(ev.Payload)
		}
	}
}
