package app

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// session/prompt: a streamed hub turn relayed to the editor, with its
// permissions asked of the editor and of the hub at once.

func (b *bridgeServer) prompt(ctx context.Context, params json.RawMessage) (any, error) {
	// Begun: no longer queued (bridge_cancel.go).
	var cancelled bool
	if sid := promptSessionID(params); sid != "" {
		s := b.session(sid)
		s.mu.Lock()
		s.queued--
		cancelled, s.cancelQueued = s.cancelQueued && !s.running, false
		s.mu.Unlock()
	}
	var p struct {
		SessionID string            `json:"sessionId"`
		Prompt    []json.RawMessage `json:"prompt"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, acp.NewError(acp.CodeInvalidParams, "session/prompt: %v", err)
	}
	if p.SessionID == "" || len(p.Prompt) == 0 {
		return nil, acp.NewError(acp.CodeInvalidParams, "session/prompt: sessionId and prompt are required")
	}
	if cancelled {
		// Cancelled before it began: no turn at all.
		return map[string]string{"stopReason": acp.StopCancelled}, nil
	}
	s := b.session(p.SessionID)
	s.mu.Lock()
	if s.running {
		s.mu.Unlock()
		return nil, acp.NewError(acp.CodeInvalidRequest, "session/prompt: a prompt is already running in session %s", p.SessionID)
	}
	s.running, s.turnID, s.cancelWanted = true, "", false
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.running, s.turnID, s.cancelWanted, s.onCancel = false, "", false, nil
		s.mu.Unlock()
	}()

	// The stream lives on its own context: a cancelled prompt request
	// cancels the hub turn, and the stream is read on to its end.
	streamCtx, stopStream := context.WithCancel(context.Background())
	defer stopStream()
	// After session/cancel the editor expects the prompt to end soon with
	// "cancelled": should the hub not end the turn in time, stop waiting.
	var forced atomic.Bool
	s.mu.Lock()
	s.onCancel = func() {
		s.onCancel = nil
		time.AfterFunc(cancelGrace, func() {
			forced.Store(true)
			stopStream()
		})
	}
	s.mu.Unlock()
	resp, err := b.hub.send(streamCtx, "POST", "/v1/threads/"+url.PathEscape(p.SessionID)+"/turns",
		hub.TurnInput{Content: p.Prompt}, "text/event-stream")
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		return nil, b.hub.apiError(resp.StatusCode, body)
	}
	turnID := resp.Header.Get("X-Switchboard-Turn-ID")
	s.mu.Lock()
	s.turnID = turnID
	cancelNow := s.cancelWanted
	s.mu.Unlock()
	if cancelNow && turnID != "" {
		b.cancelTurn(turnID)
	}

	// The editor gave up on the request (or left): cancel the turn, and
	// stop reading should the hub not end it.
	go func() {
		select {
		case <-ctx.Done():
			if streamCtx.Err() != nil {
				return // the prompt has already ended
			}
			if turnID != "" {
				b.cancelTurn(turnID)
			}
			select {
			case <-time.After(15 * time.Second):
				stopStream()
			case <-streamCtx.Done():
			}
		case <-streamCtx.Done():
		}
	}()

	relayCtx, endRelay := context.WithCancel(context.Background())
	defer endRelay() // withdraws the editor requests still outstanding
	t := &turnRelay{b: b, ctx: relayCtx, sessionID: p.SessionID, threadID: p.SessionID, turnID: turnID, perms: map[string]context.CancelFunc{}}
	defer t.endPermissions()
	res, err := t.run(streamCtx, resp.Body)
	if err != nil && forced.Load() {
		b.log.Warn("switchboard acp: the hub did not end a cancelled turn in time; answering cancelled", "turn", turnID)
		return map[string]string{"stopReason": acp.StopCancelled}, nil
	}
	return res, err
}

// cancelGrace is how long a prompt waits for the hub to end a turn after
// session/cancel before answering "cancelled" on its own.
const cancelGrace = 10 * time.Second

// turnRelay relays one streamed turn to the editor.
type turnRelay struct {
	b *bridgeServer
	// ctx ends with the relay: the editor's client requests still
	// outstanding are withdrawn then.
	ctx       context.Context
	sessionID string
	threadID  string
	turnID    string
	lastSeq   int64

	mu    sync.Mutex
	perms map[string]context.CancelFunc // editor requests outstanding, by permission id
}

// run reads the turn's events to its end; a broken stream is resumed
// from the last event seen on the thread's event stream.
func (t *turnRelay) run(ctx context.Context, body io.ReadCloser) (any, error) {
	var lastErr error
	for attempt := 0; ; attempt++ {
		if body != nil {
			res, done, err := t.read(body)
			body.Close()
			if done {
				return res, err
			}
			lastErr = err
			attempt = 0
		}
		if ctx.Err() != nil {
			return nil, acp.NewError(acp.CodeRequestCancelled, "request cancelled")
		}
		if attempt >= 20 { // ~10 s of retries
			return nil, acp.NewError(acp.CodeInternalError, "switchboard: the hub went away during the turn (%v)", lastErr)
		}
		if attempt > 0 {
			select {
			case <-time.After(500 * time.Millisecond):
			case <-ctx.Done():
				continue
			}
		}
		body = nil
		resp, err := t.b.hub.send(ctx, "GET", "/v1/threads/"+url.PathEscape(t.threadID)+"/events?after="+strconv.FormatInt(t.lastSeq, 10), nil, "text/event-stream")
		if err != nil {
			lastErr = err
			continue
		}
		if resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
			herr := t.b.hub.apiError(resp.StatusCode, b)
			if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusNotFound {
				return nil, herr
			}
			lastErr = herr
			continue
		}
		body = resp.Body
	}
}

// read relays events from one stream. done reports that the turn ended
// (with res or err); otherwise err says why the stream broke.
func (t *turnRelay) read(body io.Reader) (res any, done bool, err error) {
	sse := newSSEReader(body)
	for {
		ev, err := sse.next()
		if err != nil {
			if err == io.EOF {
				err = errors.New("the event stream ended")
			}
			return nil, false, err
		}
		if ev.Type == hub.EventResync {
			continue // the hub closes the stream next; resume from lastSeq
		}
		if ev.Seq > 0 {
			t.lastSeq = max(t.lastSeq, ev.Seq)
		}
		if t.turnID == "" && ev.TurnID != "" {
			t.turnID = ev.TurnID // a hub without X-Switchboard-Turn-ID: the turn's stream names it
		}
		if ev.TurnID != t.turnID {
			continue
		}
		switch ev.Type {
		case hub.EventTurnCompleted:
			res, err := turnResult(ev)
			return res, true, err
		case hub.EventError:
			var p struct{ Code, Message string }
			json.Unmarshal(ev.Payload, &p)
			return nil, true, acp.NewError(acp.CodeInternalError, "switchboard: %s (%s)", p.Message, p.Code)
		case hub.EventPermissionRequired:
			var p struct {
				Permission hub.Permission `json:"permission"`
			}
			if json.Unmarshal(ev.Payload, &p) == nil && p.Permission.Status == hub.PermissionPending {
				t.askEditor(p.Permission)
			}
		case hub.EventClientRequest:
			t.serveClientRequest(ev)
		case hub.EventPermissionResolved:
			var p struct {
				Permission hub.Permission `json:"permission"`
			}
			if json.Unmarshal(ev.Payload, &p) == nil {
				t.resolved(p.Permission.ID)
			}
		default:
			if u, ok := eventUpdate(ev); ok {
				t.b.notifyUpdate(t.sessionID, u)
			}
		}
	}
}

// turnResult is session/prompt's answer for a turn_completed event.
func turnResult(ev hub.Event) (any, error) {
	var p struct {
		Turn hub.Turn `json:"turn"`
	}
	if err := json.Unmarshal(ev.Payload, &p); err != nil {
		return nil, acp.NewError(acp.CodeInternalError, "switchboard: unreadable turn_completed event: %v", err)
	}
	stop := p.Turn.StopReason
	switch p.Turn.Status {
	case hub.TurnCancelled:
		stop = acp.StopCancelled
	case hub.TurnFailed:
		msg := p.Turn.Error
		if msg == "" {
			msg = "the turn failed"
		}
		return nil, acp.NewError(acp.CodeInternalError, "switchboard: %s", msg)
	case hub.TurnInterrupted:
		return nil, acp.NewError(acp.CodeInternalError, "switchboard: the hub stopped while the turn ran; the turn was interrupted")
	}
	if stop == "" {
		stop = acp.StopEndTurn
	}
	return map[string]string{"stopReason": stop}, nil
}

// askEditor sends session/request_permission for a permission pending in
// the hub. The editor's answer is posted to the hub (Via: editor); when
// the hub decides first (permission_resolved), the editor's request is
// cancelled with $/cancel_request and a late answer is ignored.
func (t *turnRelay) askEditor(p hub.Permission) {
	ctx, cancel := context.WithCancel(context.Background())
	t.mu.Lock()
	if _, dup := t.perms[p.ID]; dup {
		t.mu.Unlock()
		cancel()
		return
	}
	t.perms[p.ID] = cancel
	t.mu.Unlock()
	b := t.b
	opts := make([]acp.PermissionOption, len(p.Options))
	for i, o := range p.Options {
		opts[i] = acp.PermissionOption{OptionID: o.OptionID, Name: o.Name, Kind: o.Kind}
	}
	req := acp.RequestPermissionRequest{SessionID: t.sessionID, ToolCall: p.ToolCall, Options: opts}
	b.bg.Go(func() {
		defer cancel()
		var res acp.RequestPermissionResponse
		err := b.conn.Call(ctx, "session/request_permission", req, &res)
		if ctx.Err() != nil {
			return // decided in the hub first (or the turn ended)
		}
		if err != nil {
			b.log.Warn("switchboard acp: the editor did not answer a permission request", "permission", p.ID, "err", err)
			return // still pending in the hub: decided there, or it expires
		}
		var d hub.Decision
		if res.Outcome.Outcome == "selected" && res.Outcome.OptionID != "" {
			d.OptionID = res.Outcome.OptionID
		} else {
			d.Outcome = hub.PermissionDeclined
		}
		pctx, pcancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer pcancel()
		err = b.hub.do(pctx, "POST", "/v1/permissions/"+url.PathEscape(p.ID), d, nil)
		var he *hubCallError
		if errors.As(err, &he) && he.Status == http.StatusConflict {
			return // the hub decided first: the editor's answer is moot
		}
		if err != nil {
			b.log.Warn("switchboard acp: sending the editor's decision failed", "permission", p.ID, "err", err)
		}
	})
}

// resolved cancels the editor's request for a permission the hub decided.
func (t *turnRelay) resolved(id string) {
	t.mu.Lock()
	cancel := t.perms[id]
	t.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// endPermissions cancels the editor requests still outstanding when the
// turn ends.
func (t *turnRelay) endPermissions() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, cancel := range t.perms {
		cancel()
	}
}
