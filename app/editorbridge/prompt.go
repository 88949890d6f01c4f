package editorbridge

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

// session/prompt: a streamed hub turn relayed to the editor, with its
// permissions asked of the editor and of the hub at once
// (permissions.go).

// cancelGrace is how long a prompt waits for the hub to end a turn after
// session/cancel before answering "cancelled" on its own.
const cancelGrace = 10 * time.Second

// editorGoneGrace is how long a prompt the editor gave up on (its request
// cancelled, or the editor gone) reads on after cancelling the turn.
const editorGoneGrace = 15 * time.Second

// turnStream is how a turn's stream is read: a dropped connection is
// resumed from the last id: seen on the thread's events, for up to 10 s
// (a hub restarting), after which the prompt fails.
var turnStream = client.StreamOptions{
	Reconnect:   true,
	Backoff:     client.Backoff{Min: 250 * time.Millisecond, Max: time.Second},
	GiveUpAfter: 10 * time.Second,
}

// promptParams are session/prompt's params.
type promptParams struct {
	SessionID string            `json:"sessionId"`
	Prompt    []json.RawMessage `json:"prompt"`
}

var cancelledResult = map[string]string{"stopReason": acp.StopCancelled}

// prompt serves session/prompt: it starts the hub turn, relays its events
// until turn_completed, and answers the turn's stop reason.
func (b *server) prompt(ctx context.Context, params json.RawMessage) (any, error) {
	p, cancelledEarly, err := b.beginPrompt(params)
	if err != nil {
		return nil, err
	}
	if cancelledEarly {
		return cancelledResult, nil
	}
	s := b.prompts(p.SessionID)
	if !s.start() {
		return nil, acp.NewError(acp.CodeInvalidRequest, "session/prompt: a prompt is already running in session %s", p.SessionID)
	}
	defer s.finish()

	// The stream lives on its own context: a cancelled prompt request
	// cancels the hub turn, and the stream is read on to its end.
	streamCtx, stopStream := context.WithCancel(context.Background())
	defer stopStream()
	forced := s.armCancelGrace(stopStream)
	st, err := b.hub.StreamTurn(streamCtx, p.SessionID, hub.TurnInput{Content: p.Prompt}, turnStream)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	b.turnStarted(s, st.TurnID)
	go b.followEditor(ctx, streamCtx, st.TurnID, stopStream)

	t := newTurnRelay(b, p.SessionID, st.TurnID)
	res, err := t.run(st)
	if t.signInSeq > 0 { // retry.go: the editor sees the retried answer
		b.bg.Go(func() { b.followRetry(p.SessionID, t.turnID, t.signInSeq) })
	}
	if err != nil && forced.Load() {
		b.log.Warn("switchboard acp: the hub did not end a cancelled turn in time; answering cancelled", "turn", t.turnID)
		return cancelledResult, nil
	}
	return res, err
}

// beginPrompt parses the params and takes the prompt off its session's
// queue (cancel.go). cancelledEarly: a session/cancel overtook the
// prompt, which then starts no turn at all.
func (b *server) beginPrompt(params json.RawMessage) (p promptParams, cancelledEarly bool, err error) {
	if sid := promptSessionID(params); sid != "" {
		s := b.prompts(sid)
		s.mu.Lock()
		s.queued--
		cancelledEarly, s.cancelQueued = s.cancelQueued && !s.running, false
		s.mu.Unlock()
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return p, false, acp.NewError(acp.CodeInvalidParams, "session/prompt: %v", err)
	}
	if p.SessionID == "" || len(p.Prompt) == 0 {
		return p, false, acp.NewError(acp.CodeInvalidParams, "session/prompt: sessionId and prompt are required")
	}
	return p, cancelledEarly, nil
}

// start marks a prompt running; false when one already runs.
func (s *threadPrompts) start() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running {
		return false
	}
	s.running, s.turnID, s.cancelWanted = true, "", false
	return true
}

// finish marks the prompt ended.
func (s *threadPrompts) finish() {
	s.mu.Lock()
	s.running, s.turnID, s.cancelWanted, s.onCancel = false, "", false, nil
	s.mu.Unlock()
}

// armCancelGrace makes a session/cancel during the prompt stop the stream
// cancelGrace later, should the hub not end the turn by then: the editor
// expects the prompt to end soon with "cancelled". The flag says it did.
func (s *threadPrompts) armCancelGrace(stopStream func()) *atomic.Bool {
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
	return &forced
}

// turnStarted records the hub turn's id, and cancels it at once when a
// session/cancel came before the hub named it.
func (b *server) turnStarted(s *threadPrompts, turnID string) {
	s.mu.Lock()
	s.turnID = turnID
	cancelNow := s.cancelWanted
	s.mu.Unlock()
	if cancelNow && turnID != "" {
		b.cancelTurn(turnID)
	}
}

// followEditor cancels the turn when the editor gives up on the prompt
// request (or leaves), and stops reading editorGoneGrace later should the
// hub not end it. It returns when the stream ends.
func (b *server) followEditor(ctx, streamCtx context.Context, turnID string, stopStream func()) {
	select {
	case <-ctx.Done():
		if streamCtx.Err() != nil {
			return // the prompt has already ended
		}
		if turnID != "" {
			b.cancelTurn(turnID)
		}
		select {
		case <-time.After(editorGoneGrace):
			stopStream()
		case <-streamCtx.Done():
		}
	case <-streamCtx.Done():
	}
}

// turnRelay relays one streamed turn to the editor.
type turnRelay struct {
	b *server
	// ctx ends with the relay: the editor's requests still outstanding
	// (permissions, client requests) are withdrawn then.
	ctx       context.Context
	end       context.CancelFunc
	sessionID string
	threadID  string
	turnID    string

	// out sends the turn's updates, text chunks coalesced (coalesce.go).
	out *coalescer
	// signInSeq is the seq of the turn's error event when it failed
	// because the agent needs signing in (retry.go); 0 otherwise.
	signInSeq int64

	mu    sync.Mutex
	perms map[string]context.CancelFunc // editor requests outstanding, by permission (or elicitation) id
}

// newTurnRelay relays the turn turnID ("" until the stream names it) of
// the session's thread (a session id is its thread id).
func newTurnRelay(b *server, sessionID, turnID string) *turnRelay {
	ctx, end := context.WithCancel(context.Background())
	t := &turnRelay{b: b, ctx: ctx, end: end, sessionID: sessionID, threadID: sessionID, turnID: turnID, perms: map[string]context.CancelFunc{}}
	t.out = newCoalescer(func(u json.RawMessage) { b.notifyUpdate(sessionID, u) })
	t.out.child = b.notifyUpdate
	return t
}

// run relays the stream's events until the turn ends and returns the
// prompt's answer. The editor's requests still outstanding are withdrawn
// when it returns.
//
// Text chunks are held only while the stream has the next event already
// buffered (Ready), and sent before any Next that could wait: a bridge
// that keeps up sends each chunk as it comes, one that fell behind sends
// the chunks that piled up meanwhile as one notification (coalesce.go).
func (t *turnRelay) run(st *client.Stream) (any, error) {
	defer t.end()
	for {
		if !st.Ready() {
			t.out.flush()
		}
		ev, err := st.Next()
		if err != nil {
			t.out.flush()
			return nil, t.streamError(st, err)
		}
		if t.turnID == "" {
			t.turnID = st.TurnID // a hub without X-Switchboard-Turn-ID: the stream names it
		}
		if ev.TurnID != t.turnID {
			continue // the thread's other events, on a resumed stream
		}
		if res, done, err := t.relay(ev); done {
			return res, err
		}
	}
}

// relay handles one event of the turn; done reports the turn's end, with
// the prompt's answer.
func (t *turnRelay) relay(ev hub.Event) (res any, done bool, err error) {
	if kind, text, ok := textChunk(ev); ok {
		t.out.add(kind, text) // held while more events are buffered (run)
		return nil, false, nil
	}
	t.out.flush() // the text before goes first
	switch ev.Type {
	case hub.EventTurnCompleted:
		res, err := turnResult(ev)
		return res, true, err
	case hub.EventError:
		var p struct{ Code, Message string }
		json.Unmarshal(ev.Payload, &p)
		if authRequired(ev) {
			t.signInSeq = ev.Seq
		}
		return nil, true, acp.NewError(acp.CodeInternalError, "switchboard: %s (%s)", p.Message, p.Code)
	case hub.EventPermissionRequired:
		if p, ok := permissionOf(ev); ok && p.Status == hub.PermissionPending {
			t.askEditor(p)
		}
	case hub.EventPermissionResolved:
		if p, ok := permissionOf(ev); ok {
			t.resolved(p.ID)
		}
	case hub.EventElicitationRequired:
		if q, ok := elicitationOf(ev); ok && q.Status == hub.ElicitationPending {
			t.askQuestion(q)
		}
	case hub.EventElicitationResolved:
		if q, ok := elicitationOf(ev); ok {
			t.resolved(q.ID)
		}
	case hub.EventClientRequest:
		t.serveClientRequest(ev)
	default:
		// An event over limits.liveEventBytes arrives cut ("truncated":
		// true): it is relayed as it came, not fetched whole from the
		// history. Fetching would let an agent make the bridge re-read the
		// thread's history for every oversized chunk it sends, and put the
		// >1 MiB update in the editor the bound keeps out; a session/load
		// replays it whole. (client_request events are never cut.)
		t.out.event(ev)
	}
	return nil, false, nil
}

// streamError is the prompt's error for a stream that broke for good.
func (t *turnRelay) streamError(st *client.Stream, err error) error {
	switch {
	case errors.Is(err, context.Canceled):
		return acp.NewError(acp.CodeRequestCancelled, "request cancelled")
	case errors.Is(err, client.ErrLineTooLong):
		// The turn cannot be relayed past that event: end it rather than
		// leave it running with no one reading.
		if t.turnID != "" {
			t.b.cancelTurn(t.turnID)
		}
		max := t.b.opts.MaxEventBytes
		if max <= 0 {
			max = client.DefaultMaxEventBytes
		}
		return acp.NewError(acp.CodeInternalError, "switchboard: an event of the turn (after seq %d) is longer than the bridge's limit of %d bytes; the turn was cancelled, and its whole history stays in the hub", st.LastID(), max)
	case client.StatusOf(err) == 401 || client.StatusOf(err) == 404:
		return err
	case errors.Is(err, io.EOF):
		err = errors.New("the event stream ended before the turn")
	}
	return acp.NewError(acp.CodeInternalError, "switchboard: the hub went away during the turn (%v)", err)
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
