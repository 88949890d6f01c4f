package editorbridge

import (
	"context"
	"encoding/json"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

// The agents' questions (elicitations): an editor that advertises
// clientCapabilities.elicitation gets the agent's question of a mode it
// serves as its own elicitation/create (the hub's checked copy: the
// normalised schema, a URL the hub accepted, the message as stored), and
// its answer is posted to the hub (decidedBy "client:acp-<editor>"); the
// first answer wins, and one made elsewhere first (the window, the inbox)
// withdraws the editor's request. An editor that does not advertise the
// mode leaves the question in the hub's inbox. What the editor answers is
// checked by the hub as any answer (a refused one is logged, and the
// question stays pending there).

// elicitModes are the elicitation modes an editor serves.
type elicitModes struct{ form, url bool }

// editorElicitation reads clientCapabilities.elicitation out of the
// editor's initialize params: a present (non-null) form or url is served.
func editorElicitation(params json.RawMessage) elicitModes {
	var p struct {
		ClientCapabilities struct {
			Elicitation *struct {
				Form json.RawMessage `json:"form"`
				URL  json.RawMessage `json:"url"`
			} `json:"elicitation"`
		} `json:"clientCapabilities"`
	}
	if json.Unmarshal(params, &p) != nil || p.ClientCapabilities.Elicitation == nil {
		return elicitModes{}
	}
	e := p.ClientCapabilities.Elicitation
	present := func(r json.RawMessage) bool { return len(r) > 0 && string(r) != "null" }
	return elicitModes{form: present(e.Form), url: present(e.URL)}
}

// elicitationOf reads the elicitation of an elicitation_required or
// elicitation_resolved event.
func elicitationOf(ev hub.Event) (hub.Elicitation, bool) {
	var p struct {
		Elicitation hub.Elicitation `json:"elicitation"`
	}
	return p.Elicitation, json.Unmarshal(ev.Payload, &p) == nil && p.Elicitation.ID != ""
}

// askQuestion sends elicitation/create for a question pending in the hub
// when the editor serves its mode.
func (t *turnRelay) askQuestion(q hub.Elicitation) {
	b := t.b
	b.mu.Lock()
	modes := b.editorElicit
	b.mu.Unlock()
	if (q.Mode == hub.ElicitationForm && !modes.form) || (q.Mode == hub.ElicitationURL && !modes.url) ||
		(q.Mode != hub.ElicitationForm && q.Mode != hub.ElicitationURL) {
		return // stays in the hub's inbox
	}
	ctx, cancel := context.WithCancel(t.ctx)
	t.mu.Lock()
	if _, dup := t.perms[q.ID]; dup {
		t.mu.Unlock()
		cancel()
		return
	}
	t.perms[q.ID] = cancel
	t.mu.Unlock()
	req := acp.CreateElicitationRequest{SessionID: t.sessionID, ToolCallID: q.ToolCallID, Mode: q.Mode, Message: q.Message}
	if q.Mode == hub.ElicitationForm {
		schema, err := json.Marshal(q.RequestedSchema)
		if err != nil {
			cancel()
			return
		}
		req.RequestedSchema = schema
	} else {
		req.ElicitationID, req.URL = q.ID, q.URL
	}
	b.bg.Go(func() {
		defer cancel()
		var res acp.CreateElicitationResponse
		err := b.conn.Call(ctx, acp.MethodElicitationCreate, req, &res)
		if ctx.Err() != nil {
			return // answered in the hub first (or the turn ended)
		}
		if err != nil {
			b.log.Warn("switchboard acp: the editor did not answer a question", "elicitation", q.ID, "err", err)
			return // still pending in the hub
		}
		actx, acancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer acancel()
		_, err = b.hub.AnswerElicitation(actx, q.ID, hub.ElicitationAnswer{Action: res.Action, Content: res.Content})
		if client.IsCode(err, hub.CodeConflict) {
			return // answered in the hub first
		}
		if err != nil {
			b.log.Warn("switchboard acp: the editor's answer was refused", "elicitation", q.ID, "err", err)
		}
	})
}
