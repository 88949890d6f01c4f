package editorbridge

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

// The editor's files and terminals. When the editor advertises fs or
// terminal capabilities in initialize, the bridge creates its threads with
// them (POST /v1/threads clientCapabilities), so the agent's fs/* and
// terminal/* requests those cover reach the editor — its buffers, its
// terminals — instead of the hub's disk and processes: the hub sends each
// as a client_request event on the turn's stream, the bridge asks the
// editor the same ACP request (sessionId rewritten to the editor's
// session) and posts the answer back. The rest the hub serves.
//
// The capabilities travel with a thread when the bridge creates it and are
// stored with it (hub.Thread.ClientCapabilities), so a thread opened from
// history (session/load, session/resume), after a hub restart too, keeps
// what it was created with; a thread created without them is served by
// the hub. While no bridge of the editor is attached (the user drives the
// thread from the window), the hub serves the files itself.

// editorCapabilities reads the fs and terminal capabilities out of the
// editor's initialize params (anything else there is not the hub's
// business).
func editorCapabilities(params json.RawMessage) hub.ClientCapabilities {
	var p struct {
		ClientCapabilities struct {
			FS struct {
				ReadTextFile  bool `json:"readTextFile"`
				WriteTextFile bool `json:"writeTextFile"`
			} `json:"fs"`
			Terminal bool `json:"terminal"`
		} `json:"clientCapabilities"`
	}
	if json.Unmarshal(params, &p) != nil {
		return hub.ClientCapabilities{}
	}
	c := p.ClientCapabilities
	return hub.ClientCapabilities{
		FS:       hub.FSCapabilities{ReadTextFile: c.FS.ReadTextFile, WriteTextFile: c.FS.WriteTextFile},
		Terminal: c.Terminal,
	}
}

// clientRequestWait bounds the editor's answer to a forwarded request: a
// little past the hub's own timeout, after which the answer is moot.
// terminal/wait_for_exit lasts as long as its command, bounded by the turn.
const clientRequestWait = hub.ClientRequestTimeout + 5*time.Second

// serveClientRequest asks the editor the request of a client_request
// event and posts its answer, in the background (the event stream must
// not wait). The request is withdrawn ($/cancel_request) when the turn's
// relay ends.
func (t *turnRelay) serveClientRequest(ev hub.Event) {
	var r hub.ClientRequest
	if err := json.Unmarshal(ev.Payload, &r); err != nil || r.RequestID == "" || r.Method == "" {
		t.b.log.Warn("switchboard acp: skipping an unreadable client_request event", "seq", ev.Seq)
		return
	}
	b := t.b
	ctx, cancel := context.WithCancel(t.ctx)
	b.bg.Go(func() {
		defer cancel()
		if r.ParamsRedacted {
			// The event's params are redacted (a file's content, a
			// terminal's env): the editor gets them as the agent sent them.
			gctx, gcancel := context.WithTimeout(ctx, 30*time.Second)
			full, err := b.hub.ClientRequestParams(gctx, t.threadID, r.RequestID)
			gcancel()
			if err != nil {
				b.log.Warn("switchboard acp: reading a client request's params failed", "method", r.Method, "err", err)
				return
			}
			r.Params = full.Params
		}
		params, err := withSessionID(r.Params, t.sessionID)
		if err != nil {
			b.log.Warn("switchboard acp: skipping a client request with unreadable params", "method", r.Method, "err", err)
			return
		}
		wait := clientRequestWait
		if r.Method == "terminal/wait_for_exit" {
			wait = 24 * time.Hour // the hub ends it with the turn
		}
		cctx, ccancel := context.WithTimeout(ctx, wait)
		defer ccancel()
		var res json.RawMessage
		var ans hub.ClientAnswer
		if err := b.conn.Call(cctx, r.Method, params, &res); err != nil {
			ans.Error = editorError(err)
		} else {
			if len(res) == 0 {
				res = json.RawMessage(`null`)
			}
			ans.Result = res
		}
		pctx, pcancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer pcancel()
		err = b.hub.AnswerClientRequest(pctx, t.threadID, r.RequestID, ans)
		if client.IsCode(err, hub.CodeConflict) {
			return // the request ended in the hub first (timeout, cancel): moot
		}
		if err != nil {
			b.log.Warn("switchboard acp: sending the editor's answer failed", "method", r.Method, "err", err)
		}
	})
}

// withSessionID returns params (a JSON object) with "sessionId" set to id.
func withSessionID(params json.RawMessage, id string) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(params, &m); err != nil {
		return nil, err
	}
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	m["sessionId"], _ = json.Marshal(id)
	return json.Marshal(m)
}

// editorError is the answer for the editor's failure: its own JSON-RPC
// error verbatim, else (no answer: the connection closed, the wait ended)
// an internal error saying so.
func editorError(err error) *hub.ClientError {
	var re *acp.Error
	if errors.As(err, &re) {
		msg := re.Message
		if msg == "" {
			msg = "the editor refused the request"
		}
		return &hub.ClientError{Code: cmp.Or(re.Code, acp.CodeInternalError), Message: msg, Data: re.Data}
	}
	return &hub.ClientError{Code: acp.CodeInternalError, Message: "switchboard: the editor did not answer: " + err.Error()}
}
