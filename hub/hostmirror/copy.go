package hostmirror

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/switchboard-hub/switchboard/hub"
)

// MaxCopyBytes bounds the payload of one event copied from a host: a
// bigger one is not stored (the host keeps it; its thread's history there
// has it).
const MaxCopyBytes = 1 << 20

// notCopied are the event types a host's stream carries that have no
// place here: hub-wide ones (they have no thread either), requests for
// the thread's owner to answer on the host, and the stream's own
// bookkeeping.
var notCopied = map[string]bool{
	hub.EventResync: true, hub.EventDiskFull: true, hub.EventClientRequest: true,
	hub.EventConfigError: true, hub.EventConfigApplied: true, hub.EventAgentInstall: true, hub.EventAgentsChanged: true,
}

// envelope are the keys of an event's wire form beside its payload: a
// host's payload that repeats one is not trusted with it.
var envelope = []string{"seq", "type", "threadId", "turnId", "at", "host", "hostSeq", "hostSeqFrom", "hostLog"}

// copyOf is the Write that stores ev, an event of host's stream, as a
// local copy: the event with its ids made "<id>@<host>" and "host",
// "hostSeq" and (when the host names it) "hostLog", its log's id, in its
// payload — and "hostSeqFrom", from, when ev holds the text of the host's
// deltas from seq from to ev.Seq (joinDeltas; 0: ev is one event) — and
// the rows its payload describes (thread,
// turn, permission, question). ok is false for an event that is not
// copied (notCopied, no thread, over MaxCopyBytes, a payload that is not
// a JSON object). A turn_started makes the turn's row (its payload has
// only the input) and, with turn_completed, sets the thread's status (the
// host announces no status change of a turn's). The event's ClientID is the thread's owner, filled by
// the store from the copied thread.
func copyOf(host, hostLog string, ev hub.Event, from int64) (w *hub.Write, ok bool, err error) {
	if ev.ThreadID == "" || notCopied[ev.Type] || len(ev.Payload) > MaxCopyBytes {
		return nil, false, nil
	}
	w = &hub.Write{}
	threadID := hub.HostID(ev.ThreadID, host)
	src := source{host: host, log: hostLog, seq: ev.Seq, from: from}
	payload, quick := plainCopy(ev.Payload, src)
	if !quick {
		var ok bool
		if payload, ok, err = fullCopy(w, src, threadID, ev); err != nil || !ok {
			return nil, ok, err
		}
	}
	turnID := hub.HostID(ev.TurnID, host)
	switch ev.Type {
	case hub.EventTurnStarted: // {input, internal}: the turn's row, running, and its thread's status
		var started struct {
			Input    string `json:"input"`
			Internal bool   `json:"internal"`
		}
		_ = json.Unmarshal(ev.Payload, &started)
		if turnID != "" {
			w.Turns = append(w.Turns, hub.Turn{ID: turnID, ThreadID: threadID, Status: hub.TurnRunning,
				Input: started.Input, Internal: started.Internal, StartedAt: ev.At})
		}
		w.ThreadChanges = append(w.ThreadChanges, hub.ThreadChange{ThreadID: threadID, Status: hub.ThreadRunning, UpdatedAt: ev.At})
	case hub.EventTurnCompleted:
		w.ThreadChanges = append(w.ThreadChanges, hub.ThreadChange{ThreadID: threadID, Status: hub.ThreadIdle, UpdatedAt: ev.At})
	}
	w.Events = []hub.Event{{Type: ev.Type, ThreadID: threadID, TurnID: turnID, At: ev.At, Payload: payload}}
	return w, true, nil
}

// rowKeys are the payload keys that describe a row the copy upserts.
var rowKeys = []string{"thread", "turn", "permission", "elicitation"}

// plainKeys are the keys whose presence sends a payload to fullCopy: the
// rows it may describe and the envelope's.
var plainKeys = hub.KeyPatterns(append(slices.Clone(rowKeys), envelope...)...)

// source is where a copy comes from, as its payload says: host, the
// host's log id (log; "" when the host names none) and seq (hostSeq),
// and from (hostSeqFrom) for joined deltas (0: one event).
type source struct {
	host, log string
	seq, from int64
}

// appendKeys appends src's keys to out, the inside of a JSON object: the
// first after a comma when comma is set, the others after one each.
func (src source) appendKeys(out []byte, comma bool) []byte {
	if comma {
		out = append(out, ',')
	}
	h, _ := json.Marshal(src.host)
	out = append(out, `"host":`...)
	out = append(out, h...)
	out = append(out, `,"hostSeq":`...)
	out = strconv.AppendInt(out, src.seq, 10)
	if src.from > 0 {
		out = append(out, `,"hostSeqFrom":`...)
		out = strconv.AppendInt(out, src.from, 10)
	}
	if src.log != "" {
		l, _ := json.Marshal(src.log)
		out = append(out, `,"hostLog":`...)
		out = append(out, l...)
	}
	return out
}

// plainCopy is the payload of a copy of an event whose payload p is a
// plain object (hub.PlainObject) naming no row and none of the
// envelope's keys — the stream's bulk: text deltas, tool calls — made
// without parsing it: p with src's keys appended. ok is false for any
// other p (fullCopy's).
func plainCopy(p json.RawMessage, src source) (json.RawMessage, bool) {
	if !hub.PlainObject(p, plainKeys) {
		return nil, false
	}
	out := make([]byte, 0, len(p)+96+len(src.host)+len(src.log))
	out = append(out, p[:len(p)-1]...)
	out = src.appendKeys(out, len(bytes.TrimSpace(p[1:len(p)-1])) > 0)
	return append(out, '}'), true
}

// fullCopy is the payload of the copy of ev, a host's event whose payload
// names rows or the envelope's keys, with the rows it describes added to
// w. ok is false for a payload that is not a JSON object.
func fullCopy(w *hub.Write, src source, threadID string, ev hub.Event) (payload json.RawMessage, ok bool, err error) {
	host := src.host
	var p map[string]json.RawMessage
	if err := json.Unmarshal(ev.Payload, &p); err != nil || p == nil {
		return nil, false, nil
	}
	for _, k := range envelope {
		delete(p, k)
	}
	for key, row := range p {
		if !slices.Contains(rowKeys, key) {
			continue
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(row, &obj) != nil || obj == nil {
			continue
		}
		for _, k := range []string{"id", "threadId", "turnId", "continuedFrom", "continuedIn"} {
			var id string
			if json.Unmarshal(obj[k], &id) == nil && id != "" {
				obj[k], _ = json.Marshal(hub.HostID(id, host))
			}
		}
		obj["host"], _ = json.Marshal(host)
		// The row belongs to the event's thread, whatever it says.
		if key == "thread" {
			obj["id"], _ = json.Marshal(threadID)
		} else {
			obj["threadId"], _ = json.Marshal(threadID)
		}
		b, err := json.Marshal(obj)
		if err != nil {
			return nil, false, err
		}
		p[key] = b
		if err := addRow(w, key, b, p["deleted"]); err != nil {
			return nil, false, fmt.Errorf("host %s: %s event %d: %w", host, ev.Type, ev.Seq, err)
		}
	}
	p["host"], _ = json.Marshal(host)
	p["hostSeq"], _ = json.Marshal(src.seq)
	if src.from > 0 {
		p["hostSeqFrom"], _ = json.Marshal(src.from)
	}
	if src.log != "" {
		p["hostLog"], _ = json.Marshal(src.log)
	}
	payload, err = json.Marshal(p)
	if err != nil {
		return nil, false, err
	}
	return payload, true, nil
}

// addRow adds to w the row b (a copied object of kind key) describes.
func addRow(w *hub.Write, key string, b json.RawMessage, deleted json.RawMessage) error {
	switch key {
	case "thread":
		var t hub.Thread
		if err := json.Unmarshal(b, &t); err != nil {
			return err
		}
		if string(deleted) == "true" {
			w.DeleteThreads = append(w.DeleteThreads, t.ID)
			return nil
		}
		w.Threads = append(w.Threads, t)
		w.SessionStates = append(w.SessionStates, hub.SessionState{ThreadID: t.ID,
			Modes: t.Modes, ConfigOptions: t.ConfigOptions, AvailableCommands: t.AvailableCommands})
	case "turn":
		var t hub.Turn
		if err := json.Unmarshal(b, &t); err != nil {
			return err
		}
		if t.OutputTruncated { // the store reads the whole output from the copied deltas
			t.Output, t.OutputBytes, t.OutputTruncated = "", 0, false
		}
		w.Turns = append(w.Turns, t)
	case "permission":
		var p hub.Permission
		if err := json.Unmarshal(b, &p); err != nil {
			return err
		}
		w.Permissions = append(w.Permissions, p)
	case "elicitation":
		var e hub.Elicitation
		if err := json.Unmarshal(b, &e); err != nil {
			return err
		}
		w.Elicitations = append(w.Elicitations, e)
	}
	return nil
}

// threadCopy is the Write that stores t, a host's thread read from its
// API, as its local copy (before the first of its events copied since
// this hub started following the host).
func threadCopy(host string, t hub.Thread) *hub.Write {
	t = localThread(host, t)
	return &hub.Write{Threads: []hub.Thread{t}, SessionStates: []hub.SessionState{{ThreadID: t.ID,
		Modes: t.Modes, ConfigOptions: t.ConfigOptions, AvailableCommands: t.AvailableCommands}}}
}
