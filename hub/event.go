package hub

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// Event types (docs/API.md "Events (SSE)").
const (
	EventTurnStarted        = "turn_started"
	EventMessageDelta       = "message_delta"
	EventThoughtDelta       = "thought_delta"
	EventToolCall           = "tool_call"
	EventToolCallUpdate     = "tool_call_update"
	EventPlan               = "plan"
	EventAvailableCommands  = "available_commands"
	EventModeChanged        = "mode_changed"
	EventConfigOptions      = "config_options"
	EventUsage              = "usage"
	EventPermissionRequired = "permission_required"
	EventPermissionResolved = "permission_resolved"
	// EventPermissionEscalated (extension): {permission}, still pending
	// after permissions.escalateAfter.
	EventPermissionEscalated = "permission_escalated"
	// EventElicitationRequired / EventElicitationResolved (extension):
	// {elicitation}, an agent's question raised and ended (hub/elicitation.go).
	EventElicitationRequired = "elicitation_required"
	EventElicitationResolved = "elicitation_resolved"
	EventAgentUpdate         = "agent_update"
	// Updates the window renders (issue 32, ADR 0044; docs/API.md):
	//   - message_started {messageId, kind: "message"|"thought"}: the
	//     deltas of kind that follow belong to the agent's message
	//     messageId, until the next message_started of that kind; deltas of
	//     one id are one message however far apart they come.
	//   - notice {notice: {severity, title, description?}}
	//   - compaction {compaction: {compactionId, status, summary?, error?}}
	//     and compaction_summary {compactionId, text}: the agent compacted
	//     its context; the summary is the update's plus the chunks' text.
	//   - plan_update {plan} / plan_removed {planId}: one plan of several
	//     (unstable ACP), replaced or removed by its planId.
	//   - subagent {subagent: {sessionId, title?, description?, state?}}:
	//     a child session of the thread's agent session.
	//   - subagent_output {sessionId, kind, text | toolCall | update}: an
	//     update of that child session, its own stream (engine/subagent.go).
	//   - elicitation_completed {elicitationId}: the agent said the URL
	//     flow of that elicitation (the hub's id) ended.
	EventMessageStarted       = "message_started"
	EventNotice               = "notice"
	EventCompaction           = "compaction"
	EventCompactionSummary    = "compaction_summary"
	EventPlanUpdate           = "plan_update"
	EventPlanRemoved          = "plan_removed"
	EventSubagent             = "subagent"
	EventSubagentOutput       = "subagent_output"
	EventElicitationCompleted = "elicitation_completed"
	EventTurnCompleted        = "turn_completed"
	EventError                = "error"
	EventThreadUpdated        = "thread_updated"  // extension: title, status or deletion of a thread
	EventConfigError          = "config_error"    // extension, hub-wide: {file, message}; message "" once valid again
	EventAgentInstall         = "agent_install"   // extension, hub-wide: AgentInstallEvent
	EventConfigApplied        = "config_applied"  // extension, hub-wide: {file, changed}: a changed config file applied
	EventAgentsChanged        = "agents_changed"  // extension, hub-wide: {reason}: GET /v1/agents lists other agents now ("registry": a fetch of the ACP registry)
	EventClientRequest        = "client_request"  // extension: ClientRequest, for the thread's owner to answer
	EventTerminalOutput       = "terminal_output" // extension: TerminalOutput of a terminal the hub hosts
	EventSessionChanged       = "session_changed" // extension: the thread's agent session is another one; what was restored, what not
	EventResync               = "resync"          // never stored: a subscriber fell behind
	// EventDiskFull is hub-wide and never stored (the disk is full):
	// {message} while the data dir refuses writes (sent again at each
	// retry of what waits to be stored, so a window that connects meanwhile
	// learns it), then {message: ""} once writes succeed again. It has
	// seq 0 and no SSE id; clients take it without moving their resume
	// point.
	EventDiskFull = "disk_full"
)

// TerminalOutput is the payload of a terminal_output event: what a command
// an agent runs in a terminal the hub hosts (ACP terminal/create) printed
// since the previous such event, so that a window can show it in the tool
// call whose content is {"type":"terminal","terminalId"}. The texts of one
// terminal's events, concatenated, are its output; the last event carries
// ExitStatus. Dropped says the hub stopped streaming this terminal's output
// (its streaming cap, 1 MiB, was reached); the agent still gets all of it.
type TerminalOutput struct {
	TerminalID string              `json:"terminalId"`
	Text       string              `json:"text"`
	ExitStatus *TerminalExitStatus `json:"exitStatus,omitempty"`
	Dropped    bool                `json:"dropped,omitempty"`
}

// TerminalExitStatus says how a terminal's command ended, as in ACP:
// exactly one of ExitCode and Signal ("SIGTERM") is set.
type TerminalExitStatus struct {
	ExitCode *int    `json:"exitCode"`
	Signal   *string `json:"signal"`
}

// Event is one entry of the append-only log. Seq is assigned by the store
// when the event is committed, strictly increasing across all threads; no
// one sees an event before it is committed.
type Event struct {
	Seq      int64
	Type     string
	ThreadID string
	TurnID   string
	At       time.Time
	// ClientID is the owner of the event's thread, for visibility checks.
	// It is not part of the wire form.
	ClientID string
	// Payload is a JSON object with the type's fields (API.md), merged into
	// the wire form beside seq, type, threadId, turnId and at.
	Payload json.RawMessage
}

// NewEvent returns an event whose payload is v marshalled (v must marshal
// to a JSON object).
func NewEvent(typ string, thread Thread, turnID string, at time.Time, v any) (Event, error) {
	p, err := json.Marshal(v)
	if err != nil {
		return Event{}, fmt.Errorf("hub: event %s payload: %w", typ, err)
	}
	return Event{Type: typ, ThreadID: thread.ID, TurnID: turnID, ClientID: thread.ClientID, At: at, Payload: p}, nil
}

// MarshalJSON writes {"seq","type","threadId","turnId","at", …payload}.
func (e Event) MarshalJSON() ([]byte, error) {
	return e.AppendJSON(make([]byte, 0, 96+len(e.Payload)))
}

// AppendJSON appends e's wire form (MarshalJSON) to b: the event streams
// write it straight into their buffer, without a copy per event.
func (e Event) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, e.Seq, 10)
	b = append(b, `,"type":`...)
	b = appendJSONString(b, e.Type)
	b = append(b, `,"threadId":`...)
	b = appendJSONString(b, e.ThreadID)
	b = append(b, `,"turnId":`...)
	b = appendJSONString(b, e.TurnID)
	b = append(b, `,"at":"`...)
	b = e.At.UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, '"')
	p := bytes.TrimSpace(e.Payload)
	if len(p) >= 2 && p[0] == '{' {
		inner := bytes.TrimSpace(p[1 : len(p)-1])
		if len(inner) > 0 {
			b = append(b, ',')
			b = append(b, inner...)
		}
	} else if len(p) > 0 && string(p) != "null" {
		return b, fmt.Errorf("hub: event %d payload is not an object", e.Seq)
	}
	return append(b, '}'), nil
}

// UnmarshalJSON reads the wire form back (clients of the API in Go: the
// tray, the editor bridge, tests).
func (e *Event) UnmarshalJSON(data []byte) error {
	if ev, ok := wireEvent(data); ok {
		*e = ev
		return nil
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return err
	}
	// The envelope's keys from the one parse (the stream's hot path: the
	// host mirror reads thousands a second).
	var out Event
	for _, f := range [...]struct {
		key string
		dst any
	}{{"seq", &out.Seq}, {"type", &out.Type}, {"threadId", &out.ThreadID}, {"turnId", &out.TurnID}, {"at", &out.At}} {
		if raw, ok := all[f.key]; ok {
			if err := json.Unmarshal(raw, f.dst); err != nil {
				return fmt.Errorf("hub: event's %s: %w", f.key, err)
			}
			delete(all, f.key)
		}
	}
	p, err := json.Marshal(all)
	if err != nil {
		return err
	}
	out.Payload = p
	*e = out
	return nil
}

// wireKeys are the envelope's keys AppendJSON writes: a payload that
// repeats one is left to UnmarshalJSON's full parse (which keeps the
// last).
var wireKeys = KeyPatterns("seq", "type", "threadId", "turnId", "at")

// KeyPatterns are names as PlainObject looks for them: `"name":`.
func KeyPatterns(names ...string) [][]byte {
	out := make([][]byte, len(names))
	for i, n := range names {
		out[i] = []byte(`"` + n + `":`)
	}
	return out
}

// PlainObject reports whether p is one valid JSON object with no line
// break between its tokens and none of keys (KeyPatterns) anywhere in it:
// one that can go into an event's wire form as it is, or have keys
// appended, without being parsed and written again. The test on keys is
// on bytes and sound: inside a JSON string every quote is escaped, so
// `"name":` is only ever a key (at some depth: a nested one makes p not
// plain, which is merely the slower way for its caller).
func PlainObject(p []byte, keys [][]byte) bool {
	if len(p) < 2 || p[0] != '{' || p[len(p)-1] != '}' || bytes.ContainsAny(p, "\r\n") {
		return false
	}
	for _, k := range keys {
		if bytes.Contains(p, k) {
			return false
		}
	}
	return json.Valid(p)
}

// plainString reports whether b, a JSON string's content, needs no
// unescaping and holds nothing JSON forbids there (a control character).
func plainString(b []byte) bool {
	for _, c := range b {
		if c == '\\' || c < 0x20 {
			return false
		}
	}
	return true
}

// wireEvent reads data when it is exactly AppendJSON's form with plain
// strings — what a hub writes, the event streams' bulk — without
// parsing the payload into a map and writing it again: the envelope's
// fields read in their order, the payload the rest of the object as it
// came (checked valid, and on one line). ok is false for anything else
// (UnmarshalJSON's full parse reads it).
func wireEvent(data []byte) (Event, bool) {
	var e Event
	rest, ok := bytes.CutPrefix(data, []byte(`{"seq":`))
	if !ok {
		return e, false
	}
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	seq, err := strconv.ParseInt(string(rest[:i]), 10, 64)
	if err != nil || i > 1 && rest[0] == '0' { // JSON has no leading zero
		return e, false
	}
	e.Seq, rest = seq, rest[i:]
	var at string
	for _, f := range [...]struct {
		key string
		dst *string
	}{{`,"type":"`, &e.Type}, {`,"threadId":"`, &e.ThreadID}, {`,"turnId":"`, &e.TurnID}, {`,"at":"`, &at}} {
		if rest, ok = bytes.CutPrefix(rest, []byte(f.key)); !ok {
			return e, false
		}
		end := bytes.IndexByte(rest, '"')
		if end < 0 || !plainString(rest[:end]) {
			return e, false
		}
		*f.dst, rest = string(rest[:end]), rest[end+1:]
	}
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		return e, false
	}
	e.At = t
	switch {
	case len(rest) == 1 && rest[0] == '}':
		e.Payload = json.RawMessage(`{}`)
		return e, true
	case len(rest) < 2 || rest[0] != ',' || rest[len(rest)-1] != '}':
		return e, false
	}
	p := make([]byte, 0, len(rest))
	p = append(append(p, '{'), rest[1:]...)
	if !PlainObject(p, wireKeys) {
		return e, false
	}
	e.Payload = p
	return e, true
}

// appendJSONString appends s as a JSON string exactly as json.Marshal would.
// Ids and type names are plain ASCII and are written directly; anything
// else goes through json.Marshal.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
