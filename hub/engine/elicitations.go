package engine

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// Elicitations: an agent's question to the user (ACP elicitation/create),
// built as permissions are. Guarantees:
//   - What the agent sends is checked before anyone sees it: a form's
//     schema (hub.ParseElicitationSchema: flat, primitive fields, bounded),
//     a link (hub.CheckElicitationURL: http or https, no user info). A
//     refused question is a JSON-RPC error to the agent and is never
//     stored or shown.
//   - It is stored (elicitation_required) before anyone can answer it, and
//     each end is stored (elicitation_resolved) before the agent is told.
//   - Fail closed: no answer by permissions.timeout ends it "expired"
//     (decidedBy "timeout") and the agent gets "cancel", never an accept;
//     a cancelled turn ("cancel"), a turn that ended otherwise, a dead
//     agent or a shutdown ("hub") end it "cancelled". An answer is
//     single-use: a second or late one is CONFLICT.
//   - The message and the schema's texts are redacted as any agent text;
//     the URL is not (the user must open it as sent).
//   - The user's content is checked against the schema
//     (hub.CheckElicitationContent) and goes to the agent only; it is never
//     stored or streamed.
//   - The watchdog is paused while one waits (the user's time is not the
//     agent's silence); a turn's pending questions and permissions share
//     Config.PendingPermissionsPerTurn.

// elicitRT is a pending elicitation an agent is waiting on. answer receives
// exactly one response, from whoever won resolveElicitation.
type elicitRT struct {
	el     hub.Elicitation
	schema *hub.ElicitationSchema // nil in URL mode
	acpID  string                 // the agent's elicitationId (URL mode)
	turn   *turnRT
	answer chan acp.CreateElicitationResponse
	stored chan struct{} // closed once the pending elicitation's insert is done
}

// CreateElicitation implements acp.Elicitor.
func (c *threadClient) CreateElicitation(ctx context.Context, req acp.CreateElicitationRequest) (acp.CreateElicitationResponse, error) {
	e := c.e
	c.rt.mu.Lock()
	tr := c.rt.turn
	c.rt.mu.Unlock()
	if tr == nil {
		return acp.ElicitCancelled(), nil // no turn, no user to ask
	}
	now := e.now()
	cfg := e.config()
	el := hub.Elicitation{ID: newID("el"), ThreadID: c.thread.ID, TurnID: tr.turn.ID, Mode: req.Mode,
		Message: e.redactString(hub.ClipElicitationMessage(req.Message)), ToolCallID: clipID(req.ToolCallID),
		Status: hub.ElicitationPending, Deadline: now.Add(cfg.PermissionTimeout), CreatedAt: now, Agent: c.thread.Agent}
	er := &elicitRT{turn: tr, answer: make(chan acp.CreateElicitationResponse, 1), stored: make(chan struct{})}
	switch req.Mode {
	case hub.ElicitationForm:
		// The schema's texts are redacted like any agent text (redaction.go)
		// before it is checked and stored.
		raw := req.RequestedSchema
		if len(raw) <= hub.MaxElicitationSchemaBytes { // a bigger one is refused unread
			raw = e.redactJSON(raw)
		}
		s, err := hub.ParseElicitationSchema(raw)
		if err != nil {
			e.log.Warn("hub: elicitation refused", "thread", c.thread.ID, "err", err)
			return acp.CreateElicitationResponse{}, acp.NewError(acp.CodeInvalidParams, "invalid params: %s", errMessage(err))
		}
		el.RequestedSchema, er.schema = s, s
	case hub.ElicitationURL:
		if err := hub.CheckElicitationURL(req.URL); err != nil {
			e.log.Warn("hub: elicitation refused", "thread", c.thread.ID, "err", err)
			return acp.CreateElicitationResponse{}, acp.NewError(acp.CodeInvalidParams, "invalid params: %s", errMessage(err))
		}
		el.URL = req.URL
		er.acpID = req.ElicitationID
		c.noteURLElicitation(req.ElicitationID, el.ID) // elicitcomplete.go
	}
	er.el = el
	e.mu.Lock()
	limit := e.cfg.PendingPermissionsPerTurn
	if limit <= 0 {
		limit = DefaultPendingPermissionsPerTurn
	}
	if pending := len(ofTurnLocked(e.perms, tr)) + len(ofTurnLocked(e.elicits, tr)); pending >= limit {
		e.mu.Unlock()
		e.log.Warn("hub: elicitation refused: too many pending in the turn", "thread", c.thread.ID, "turn", tr.turn.ID, "limit", limit)
		return acp.ElicitCancelled(), nil
	}
	e.elicits[el.ID] = er
	e.mu.Unlock()
	tr.wd.touch()
	tr.wd.pause()
	tr.spend.waitBegin(now) // a person's time is not agent time (spend.go)
	defer func() { tr.spend.waitEnd(e.now()) }()
	defer func() {
		e.mu.Lock()
		delete(e.elicits, el.ID)
		e.mu.Unlock()
		tr.wd.resume()
	}()
	ev, _ := hub.NewEvent(hub.EventElicitationRequired, c.thread, tr.turn.ID, now, map[string]any{"elicitation": el})
	err := e.commit(&hub.Write{Elicitations: []hub.Elicitation{el}, Events: []hub.Event{ev}})
	close(er.stored)
	if err != nil {
		return acp.CreateElicitationResponse{}, err
	}
	expired, stop := e.after(e.until(el.Deadline)) // the engine's clock: clock.go
	defer stop()
	select {
	case r := <-er.answer:
		return r, nil
	case <-expired:
		e.resolveElicitation(er, hub.ElicitationExpired, hub.DecidedByTimeout, nil)
	case <-ctx.Done():
		e.resolveElicitation(er, hub.ElicitationCancelled, tr.refuser(), nil)
	}
	select {
	case r := <-er.answer: // ours, or an answer that won the race
		return r, nil
	case <-time.After(5 * time.Second): // the store failed: cancel
		return acp.ElicitCancelled(), nil
	}
}

// clipID bounds an agent-chosen id kept for display.
func clipID(s string) string {
	if len(s) > 128 {
		return s[:128]
	}
	return s
}

// resolveElicitation ends er once: the end is committed (single-use: a
// second one fails with CONFLICT), published, then handed to the waiting
// agent — "accept" with content only for "accepted", "decline" for
// "declined", "cancel" otherwise (a timeout is not a user's decline).
func (e *Engine) resolveElicitation(er *elicitRT, status, decidedBy string, content map[string]json.RawMessage) (hub.Elicitation, error) {
	r := acp.ElicitCancelled()
	switch status {
	case hub.ElicitationAccepted:
		r = acp.CreateElicitationResponse{Action: hub.ElicitAccept, Content: content}
	case hub.ElicitationDeclined:
		r = acp.CreateElicitationResponse{Action: hub.ElicitDecline}
	}
	now := e.now()
	el := er.el
	el.Status, el.DecidedBy, el.DecidedAt = status, decidedBy, &now
	ev, _ := hub.NewEvent(hub.EventElicitationResolved, er.turn.thread, el.TurnID, now, map[string]any{"elicitation": el})
	if err := e.commit(&hub.Write{AnswerElicitation: &el, Events: []hub.Event{ev}}); err != nil {
		return hub.Elicitation{}, err
	}
	er.answer <- r
	return el, nil
}

// QueryElicitations implements Service.
func (e *Engine) QueryElicitations(ctx context.Context, c hub.Caller, q hub.ElicitationQuery) (hub.ElicitationPage, error) {
	if err := checkCaller(c); err != nil {
		return hub.ElicitationPage{}, err
	}
	switch q.Status {
	case "", hub.ElicitationPending, hub.ElicitationAccepted, hub.ElicitationDeclined, hub.ElicitationCancelled, hub.ElicitationExpired:
	default:
		return hub.ElicitationPage{}, hub.Errorf(hub.CodeInvalidArgument, "unknown elicitation status %q", q.Status)
	}
	if q.Limit < 0 || q.Limit > hub.MaxPermissionPage {
		return hub.ElicitationPage{}, hub.Errorf(hub.CodeInvalidArgument, "limit must be between 1 and %d", hub.MaxPermissionPage)
	}
	f := hub.ElicitationFilter{ClientID: c.ClientID, All: c.All, ThreadID: q.ThreadID, Status: q.Status,
		DecidedBy: q.DecidedBy, Agent: q.Agent, Limit: q.Limit, Cursor: q.Cursor}
	var err error
	if f.From, err = parseBound("from", q.From); err != nil {
		return hub.ElicitationPage{}, err
	}
	if f.To, err = parseBound("to", q.To); err != nil {
		return hub.ElicitationPage{}, err
	}
	els, next, err := e.store.QueryElicitations(ctx, f)
	if err != nil {
		return hub.ElicitationPage{}, err
	}
	if els == nil {
		els = []hub.Elicitation{}
	}
	return hub.ElicitationPage{Elicitations: els, NextCursor: next}, nil
}

// parseBound reads an RFC 3339 filter bound of a list ("" is none): the
// permissions' audit and the elicitations share it.
func parseBound(name, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	at, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, hub.Errorf(hub.CodeInvalidArgument, "%s must be an RFC 3339 time: %q", name, v)
	}
	return at, nil
}

// AnswerElicitation implements Service.
func (e *Engine) AnswerElicitation(ctx context.Context, c hub.Caller, id string, a hub.ElicitationAnswer) (hub.Elicitation, error) {
	if err := checkCaller(c); err != nil {
		return hub.Elicitation{}, err
	}
	el, err := e.store.GetElicitation(ctx, id)
	if err != nil {
		return hub.Elicitation{}, err
	}
	if _, err := e.visibleThread(ctx, c, el.ThreadID); err != nil {
		return hub.Elicitation{}, hub.Errorf(hub.CodeNotFound, "elicitation %s not found", id)
	}
	if el.Status != hub.ElicitationPending {
		return hub.Elicitation{}, &hub.Error{Code: hub.CodeConflict, Message: "elicitation already " + el.Status,
			Details: map[string]any{"status": el.Status}}
	}
	var status string
	switch a.Action {
	case hub.ElicitAccept:
		status = hub.ElicitationAccepted
	case hub.ElicitDecline:
		status = hub.ElicitationDeclined
	case hub.ElicitCancel:
		status = hub.ElicitationCancelled
	default:
		return hub.Elicitation{}, &hub.Error{Code: hub.CodeInvalidArgument,
			Message: `action must be "accept", "decline" or "cancel"`, Details: map[string]any{"field": "action"}}
	}
	if status != hub.ElicitationAccepted && len(a.Content) > 0 {
		return hub.Elicitation{}, &hub.Error{Code: hub.CodeInvalidArgument,
			Message: "content is only for \"accept\"", Details: map[string]any{"field": "content"}}
	}
	e.mu.Lock()
	er := e.elicits[id]
	e.mu.Unlock()
	if er == nil {
		return hub.Elicitation{}, hub.Errorf(hub.CodeConflict, "elicitation %s is no longer pending", id)
	}
	var content map[string]json.RawMessage
	if status == hub.ElicitationAccepted && er.schema != nil {
		if a.Content == nil {
			a.Content = map[string]json.RawMessage{}
		}
		if err := hub.CheckElicitationContent(er.schema, a.Content); err != nil {
			return hub.Elicitation{}, err
		}
		content = a.Content
	} else if status == hub.ElicitationAccepted && len(a.Content) > 0 {
		return hub.Elicitation{}, &hub.Error{Code: hub.CodeInvalidArgument,
			Message: "a link's answer has no content", Details: map[string]any{"field": "content"}}
	}
	<-er.stored
	return e.resolveElicitation(er, status, hub.DecidedByOf(c), content)
}

// errMessage is a *hub.Error's message (without its code), else err's text.
func errMessage(err error) string {
	var he *hub.Error
	if errors.As(err, &he) {
		return he.Message
	}
	return err.Error()
}
