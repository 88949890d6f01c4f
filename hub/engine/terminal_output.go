package engine

import (
	"encoding/json"
	"sync"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/redact"
)

// terminalTurns turns one agent process's terminal output into events. A
// terminal's events all carry the turn that was running when its first
// output arrived, even if the command outlives that turn.
type terminalTurns struct {
	e      *Engine
	rt     *threadRT
	thread hub.Thread

	mu   sync.Mutex        // a leaf; taken after rt.mu
	byID map[string]string // terminal id → turn id, until its exit
	// text is each terminal's redaction stream (redaction.go), until its
	// exit: a secret split across two reads of its output is still found.
	text map[string]*redact.Stream
}

// output queues c as a terminal_output event (acp.TerminalOptions.OnOutput:
// it must not block, so the commit is async, queued in order with the
// turn's updates). The last chunk is queued before the agent learns of the
// exit, so it comes before the turn's turn_completed.
func (tt *terminalTurns) output(c acp.TerminalChunk) {
	tt.rt.mu.Lock()
	tr := tt.rt.turn
	if tr != nil {
		tr.wd.touch()
	}
	tt.mu.Lock()
	turnID, ok := tt.byID[c.TerminalID]
	if !ok && tr != nil {
		turnID = tr.turn.ID
	}
	text := c.Text
	s := tt.text[c.TerminalID]
	if s == nil {
		s = new(redact.Stream)
		tt.text[c.TerminalID] = s
	}
	switch {
	case !tt.e.redacting.Load():
		text = s.Close() + text
		*s = redact.Stream{}
	case c.Exit != nil:
		text = s.Write(text) + s.Close()
	default:
		text = s.Write(text)
	}
	if c.Exit != nil {
		delete(tt.byID, c.TerminalID)
		delete(tt.text, c.TerminalID)
	} else {
		tt.byID[c.TerminalID] = turnID
	}
	tt.mu.Unlock()
	tt.rt.mu.Unlock()
	if text == "" && c.Exit == nil && !c.Dropped {
		return // held back for the next chunk
	}

	p := hub.TerminalOutput{TerminalID: c.TerminalID, Text: text, Dropped: c.Dropped}
	if c.Exit != nil {
		p.ExitStatus = &hub.TerminalExitStatus{ExitCode: c.Exit.ExitCode, Signal: c.Exit.Signal}
	}
	payload, err := json.Marshal(p)
	if err != nil { // cannot happen: strings, pointers to int and string
		tt.e.log.Error("hub: encoding terminal output failed", "err", err)
		return
	}
	ev := hub.Event{Type: hub.EventTerminalOutput, ThreadID: tt.thread.ID, TurnID: turnID, ClientID: tt.thread.ClientID, At: tt.e.now(), Payload: payload}
	tt.e.commitAsync(&hub.Write{Events: []hub.Event{ev}})
}
