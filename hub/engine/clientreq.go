package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// Client requests: an agent's fs/* and terminal/* requests that the
// thread's owner (the editor bridge, for its editor) serves instead of the
// hub. A thread created with hub.ClientCapabilities delegates what they
// cover; each such request is stored as a client_request event and waits
// for the owner's answer (AnswerClientRequest), which the agent then gets
// verbatim.
//
// Guarantees:
//   - Only the thread's owner may answer; anyone else is NOT_FOUND. A
//     request answers once: a second answer, or one after the request
//     ended, is CONFLICT.
//   - With no subscriber of the owner on the thread (the bridge went away,
//     the user drives the thread from the window), fs requests are served
//     by the hub as for any thread (see delegatingClient); terminal
//     requests fail at once.
//   - The agent never waits forever: when the owner's subscriber leaves
//     while a request waits, it gets an error within ~2 s; without an
//     answer it gets one after ClientRequestTimeout
//     (terminal/wait_for_exit: the turn timeout).
//   - The agent's request context ending (it withdrew the request, its
//     connection closed) or the turn being cancelled or ending drops the
//     request; a late answer is CONFLICT.

// clientRequestLinger is how long an ended request is remembered, so that
// a late or second answer is CONFLICT rather than NOT_FOUND.
const clientRequestLinger = 10 * time.Minute

// detachedChecks is how many consecutive checks, one a second, must find
// no subscriber of the owner before a waiting request fails.
const detachedChecks = 2

// Client request states.
const (
	clientRequestPending   = "pending"
	clientRequestAnswered  = "answered"
	clientRequestExpired   = "expired"
	clientRequestCancelled = "cancelled"
)

// clientRequests holds the client requests: pending ones, and ended ones
// for clientRequestLinger. The zero value is ready. Its mutex is a leaf: nothing else is locked
// while it is held.
type clientRequests struct {
	mu   sync.Mutex
	byID map[string]*clientRequestRT // pending, and ended ones for clientRequestLinger
}

// clientRequestRT is one request. state and answer are guarded by
// clientRequests.mu; answer is set once, when state leaves pending for
// answered, and answered is closed then.
type clientRequestRT struct {
	threadID string
	owner    string
	req      hub.ClientRequest // params as the agent sent them (never stored)
	state    string
	answer   hub.ClientAnswer
	answered chan struct{}
}

// clientRequest sends the agent's request to the thread's owner and waits
// for the answer (see the guarantees above). It returns the owner's result,
// or an error for the agent: the owner's *acp.Error, or one of the hub's.
func (e *Engine) clientRequest(ctx context.Context, c *threadClient, method string, params any) (json.RawMessage, error) {
	thread := c.thread
	if !e.bus.Attached(thread.ID, thread.ClientID) {
		return nil, acp.NewError(acp.CodeInternalError, "switchboard: the editor of this session is not connected to serve %s", method)
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	c.rt.mu.Lock()
	tr := c.rt.turn
	c.rt.mu.Unlock()
	turnID := ""
	var turnCtx context.Context = context.Background()
	if tr != nil {
		turnID, turnCtx = tr.turn.ID, tr.ctx
		tr.wd.touch()
		tr.wd.pause() // the owner's time is not the agent's silence
		defer tr.wd.resume()
	}
	c.rt.mu.Lock()
	c.rt.requests++ // an agent waiting on its editor is not idle
	c.rt.mu.Unlock()
	defer func() {
		c.rt.mu.Lock()
		c.rt.requests--
		c.rt.mu.Unlock()
	}()

	id := newID("cr")
	// Stored (and streamed) redacted; the owner reads the params as sent
	// while it serves the request (ClientRequestParams).
	stored := hub.ClientRequest{RequestID: id, Method: method, Params: e.redactJSON(raw)}
	stored.ParamsRedacted = !bytes.Equal(stored.Params, raw)
	req := &clientRequestRT{threadID: thread.ID, owner: thread.ClientID, state: clientRequestPending, answered: make(chan struct{}),
		req: hub.ClientRequest{RequestID: id, Method: method, Params: raw}}
	cr := &e.creqs
	cr.mu.Lock()
	if cr.byID == nil {
		cr.byID = make(map[string]*clientRequestRT)
	}
	cr.byID[id] = req
	cr.mu.Unlock()
	defer e.lingerClientRequest(id)

	ev, err := hub.NewEvent(hub.EventClientRequest, thread, turnID, e.now(), stored)
	if err != nil {
		e.endClientRequest(req, clientRequestCancelled)
		return nil, err
	}
	if err := e.commit(&hub.Write{Events: []hub.Event{ev}}); err != nil {
		e.endClientRequest(req, clientRequestCancelled)
		return nil, err
	}

	timeout := e.clientTimeout
	if method == "terminal/wait_for_exit" {
		timeout = max(timeout, e.config().TurnTimeout)
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	detached := 0
	for {
		select {
		case <-req.answered:
			return answerFor(req.answer)
		case <-timer.C:
			if e.endClientRequest(req, clientRequestExpired) {
				return nil, acp.NewError(acp.CodeInternalError, "switchboard: the editor did not answer %s within %v", method, timeout)
			}
		case <-ctx.Done():
			if e.endClientRequest(req, clientRequestCancelled) {
				return nil, ctx.Err()
			}
		case <-turnCtx.Done():
			if e.endClientRequest(req, clientRequestCancelled) {
				return nil, acp.NewError(acp.CodeRequestCancelled, "switchboard: the turn was cancelled")
			}
		case <-tick.C:
			if e.bus.Attached(thread.ID, thread.ClientID) {
				detached = 0
				continue
			}
			if detached++; detached < detachedChecks {
				continue
			}
			if e.endClientRequest(req, clientRequestCancelled) {
				return nil, acp.NewError(acp.CodeInternalError, "switchboard: the editor of this session went away before answering %s", method)
			}
		}
		// An answer won the race against the end: it is the agent's.
		<-req.answered
		return answerFor(req.answer)
	}
}

// answerFor is the agent's answer for the owner's.
func answerFor(a hub.ClientAnswer) (json.RawMessage, error) {
	if a.Error != nil {
		return nil, &acp.Error{Code: a.Error.Code, Message: a.Error.Message, Data: a.Error.Data}
	}
	return a.Result, nil
}

// endClientRequest moves a pending request to state and reports whether
// it did (false: it was answered first).
func (e *Engine) endClientRequest(req *clientRequestRT, state string) bool {
	e.creqs.mu.Lock()
	defer e.creqs.mu.Unlock()
	if req.state != clientRequestPending {
		return false
	}
	req.state = state
	return true
}

// lingerClientRequest forgets an ended request after clientRequestLinger.
func (e *Engine) lingerClientRequest(id string) {
	cr := &e.creqs
	time.AfterFunc(clientRequestLinger, func() {
		cr.mu.Lock()
		delete(cr.byID, id)
		cr.mu.Unlock()
	})
}

// AnswerClientRequest implements Service.
func (e *Engine) AnswerClientRequest(ctx context.Context, c hub.Caller, threadID, requestID string, a hub.ClientAnswer) error {
	if err := checkCaller(c); err != nil {
		return err
	}
	if err := a.Check(); err != nil {
		return err
	}
	// The owner only: scope=all does not make the window an editor.
	if _, err := e.visibleThread(ctx, hub.Caller{ClientID: c.ClientID}, threadID); err != nil {
		return err
	}
	cr := &e.creqs
	cr.mu.Lock()
	defer cr.mu.Unlock()
	req := cr.byID[requestID]
	if req == nil || req.threadID != threadID || req.owner != c.ClientID {
		return hub.Errorf(hub.CodeNotFound, "client request %s not found", requestID)
	}
	if req.state != clientRequestPending {
		return &hub.Error{Code: hub.CodeConflict, Message: "client request already " + req.state, Details: map[string]any{"status": req.state}}
	}
	req.state, req.answer = clientRequestAnswered, a
	close(req.answered)
	return nil
}

// ClientRequestParams implements Service.
func (e *Engine) ClientRequestParams(ctx context.Context, c hub.Caller, threadID, requestID string) (hub.ClientRequest, error) {
	if err := checkCaller(c); err != nil {
		return hub.ClientRequest{}, err
	}
	// The owner only: scope=all does not make the window an editor.
	if _, err := e.visibleThread(ctx, hub.Caller{ClientID: c.ClientID}, threadID); err != nil {
		return hub.ClientRequest{}, err
	}
	cr := &e.creqs
	cr.mu.Lock()
	defer cr.mu.Unlock()
	req := cr.byID[requestID]
	if req == nil || req.threadID != threadID || req.owner != c.ClientID {
		return hub.ClientRequest{}, hub.Errorf(hub.CodeNotFound, "client request %s not found", requestID)
	}
	if req.state != clientRequestPending {
		return hub.ClientRequest{}, &hub.Error{Code: hub.CodeConflict, Message: "client request already " + req.state, Details: map[string]any{"status": req.state}}
	}
	return req.req, nil
}
