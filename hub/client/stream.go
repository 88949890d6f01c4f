package client

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// ErrResync: the hub closed the stream because the client fell behind
// (event: resync). Resume with the last id (a Stream with Reconnect does).
var ErrResync = errors.New("hub: the event stream fell behind (resync)")

// ErrIdle: the stream went silent for longer than Options.IdleTimeout.
var ErrIdle = errors.New("hub: the event stream went silent")

// StreamOptions say what a Stream does when its connection ends early.
type StreamOptions struct {
	// Reconnect resumes the stream after a dropped connection, a silent
	// one or a resync: the next connection asks for the events after the
	// last id: seen (Last-Event-ID), so none is lost or repeated. A turn's
	// stream resumes on the thread's event stream. Without it, Next
	// returns the error that ended the connection.
	Reconnect bool
	// Backoff spaces the reconnections (a resync reconnects at once);
	// zero: DefaultBackoff.
	Backoff Backoff
	// GiveUpAfter ends the reconnecting once the stream has been down for
	// that long: Next returns the last error. 0: only the context ends it.
	GiveUpAfter time.Duration
}

// Stream is an open event stream: GET /v1/events, GET
// /v1/threads/{id}/events, or a turn's POST /v1/threads/{id}/turns. Next
// is called from one goroutine at a time; Close from any. A turn's
// stream resumed on the thread's stream may carry the thread's other
// events too: filter by TurnID.
type Stream struct {
	// TurnID is the turn a turn's stream belongs to (the hub's
	// X-Switchboard-Turn-ID header, else the first event's turnId); ""
	// for the other streams.
	TurnID string

	c        *Client
	ctx      context.Context
	cancel   context.CancelFunc
	o        StreamOptions
	reopen   func(ctx context.Context, after int64) (*http.Response, error)
	threadID string
	turn     bool // a turn's stream: it ends with its turn

	mu     sync.Mutex // guards body
	body   io.ReadCloser
	rd     *Reader
	idle   *time.Timer
	silent atomic.Bool // the idle timer fired on the current connection

	lastID   int64 // the last id seen; -1 none
	ended    bool  // a turn's stream saw its turn end
	downFrom time.Time
	tries    int
}

// Events opens GET /v1/events: every event the client may see with seq
// greater than after, then live ones; after < 0 asks for live events
// only. It returns once the hub answered 200.
func (c *Client) Events(ctx context.Context, after int64, o StreamOptions) (*Stream, error) {
	s := c.newStream(ctx, o, after)
	s.reopen = func(ctx context.Context, after int64) (*http.Response, error) {
		return c.openStream(ctx, request{method: http.MethodGet, path: "/v1/events"}, after)
	}
	return s.connect()
}

// ThreadEvents opens GET /v1/threads/{id}/events after the seq after
// (after < 0: live events only).
func (c *Client) ThreadEvents(ctx context.Context, threadID string, after int64, o StreamOptions) (*Stream, error) {
	s := c.newStream(ctx, o, after)
	s.threadID = threadID
	s.reopen = s.reopenThread
	return s.connect()
}

// StreamTurn starts a turn and streams its events (POST
// /v1/threads/{id}/turns with Accept: text/event-stream). Next returns
// io.EOF after the turn's turn_completed or error event. With Reconnect,
// a dropped stream resumes on the thread's event stream after the last
// event seen. A turn that could not start is an *Error (409 CONFLICT when
// one runs, 429 at the agent process limit).
func (c *Client) StreamTurn(ctx context.Context, threadID string, in hub.TurnInput, o StreamOptions) (*Stream, error) {
	s := c.newStream(ctx, o, -1)
	s.threadID, s.turn = threadID, true
	resp, err := c.openStream(s.ctx, request{method: http.MethodPost, path: "/v1/threads/" + esc(threadID) + "/turns", body: in}, -1)
	if err != nil {
		s.cancel()
		return nil, err
	}
	s.TurnID = resp.Header.Get("X-Switchboard-Turn-ID")
	s.reopen = s.reopenThread
	s.attach(resp)
	return s, nil
}

func (c *Client) newStream(ctx context.Context, o StreamOptions, after int64) *Stream {
	ctx, cancel := context.WithCancel(ctx)
	if o.Backoff.Min <= 0 || o.Backoff.Max <= 0 {
		o.Backoff = DefaultBackoff()
	}
	return &Stream{c: c, ctx: ctx, cancel: cancel, o: o, lastID: after}
}

func (s *Stream) reopenThread(ctx context.Context, after int64) (*http.Response, error) {
	if after < 0 && s.turn {
		after = 0 // the turn's events are all on the thread's stream
	}
	return s.c.openStream(ctx, request{method: http.MethodGet, path: "/v1/threads/" + esc(s.threadID) + "/events"}, after)
}

// openStream sends r asking for an event stream resumed after the seq
// after (Last-Event-ID; after < 0: ?after=-1, live only, for a GET).
func (c *Client) openStream(ctx context.Context, r request, after int64) (*http.Response, error) {
	r.header = http.Header{"Accept": {"text/event-stream"}}
	if after >= 0 {
		r.header.Set("Last-Event-ID", strconv.FormatInt(after, 10))
	} else if r.method == http.MethodGet {
		r.query = url.Values{"after": {"-1"}}
	}
	resp, err := c.send(ctx, r)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		return nil, decodeError(resp)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		resp.Body.Close()
		return nil, &Error{Status: resp.StatusCode, Message: r.path + " answered " + strconv.Quote(ct) + ", not an event stream"}
	}
	return resp, nil
}

// connect opens the first connection: s, or nil and why not.
func (s *Stream) connect() (*Stream, error) {
	resp, err := s.reopen(s.ctx, s.lastID)
	if err != nil {
		s.cancel()
		return nil, err
	}
	s.attach(resp)
	return s, nil
}

// attach makes resp the stream's current connection, watched for silence.
func (s *Stream) attach(resp *http.Response) {
	o := s.c.options()
	idle := o.IdleTimeout
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	s.silent.Store(false)
	body := resp.Body
	timer := time.AfterFunc(idle, func() { s.silent.Store(true); body.Close() })
	s.mu.Lock()
	s.body, s.idle = body, timer
	s.mu.Unlock()
	s.rd = NewReader(readerFunc(func(p []byte) (int, error) {
		n, err := body.Read(p)
		if n > 0 {
			timer.Reset(idle)
		}
		return n, err
	}), o.MaxEventBytes)
}

// drop closes the current connection. Only Next's goroutine calls it.
func (s *Stream) drop() {
	s.closeBody()
	s.rd = nil
}

func (s *Stream) closeBody() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.body != nil {
		s.idle.Stop()
		s.body.Close()
		s.body = nil
	}
}

// LastID is the id: of the last event read (-1 before the first, unless
// the stream was opened after a seq). Call it from Next's goroutine.
func (s *Stream) LastID() int64 { return s.lastID }

// Close ends the stream; a Next under way returns the context's error.
// It may be called from any goroutine, more than once.
func (s *Stream) Close() error {
	s.cancel()
	s.closeBody()
	return nil
}

// Next returns the next event. It returns io.EOF once a turn's stream
// has passed its turn's end; ctx.Err() when the context ended;
// ErrLineTooLong for an event over the cap (never resumed: it would come
// again); otherwise, without Reconnect (or once it gives up), the error
// that ended the connection: ErrResync, ErrIdle, io.ErrUnexpectedEOF, an
// *UnreachableError or an *Error. A frame that is no event (an id alone,
// data with no seq at all) is skipped.
func (s *Stream) Next() (hub.Event, error) {
	for {
		f, err := s.NextFrame()
		if err != nil {
			return hub.Event{}, err
		}
		ev, ok := DecodeEvent(f)
		if !ok {
			continue
		}
		s.lastID = max(s.lastID, ev.Seq)
		if s.turn && s.TurnID == "" && ev.TurnID != "" {
			s.TurnID = ev.TurnID // a hub that does not send the header
		}
		return ev, nil
	}
}

// Ready reports whether Next would return the next event without waiting
// on the connection: it was already received and buffered. A client that
// batches what has arrived (the editor bridge) asks it before a Next that
// could wait. Call it from Next's goroutine.
func (s *Stream) Ready() bool {
	return !s.ended && s.rd != nil && s.rd.Ready()
}

// NextFrame is Next without decoding the event (but for the events that
// may end a turn's stream): for a client that counts or forwards events
// as they are. It returns only frames with data, with the same errors as
// Next.
func (s *Stream) NextFrame() (Frame, error) {
	for {
		if s.ended {
			return Frame{}, io.EOF
		}
		if s.rd == nil {
			if err := s.reconnect(); err != nil {
				return Frame{}, err
			}
		}
		f, err := s.rd.Next()
		if err == nil && f.Event == hub.EventResync {
			err = ErrResync
		}
		if err == nil {
			if s.accept(f) {
				return f, nil
			}
			continue
		}
		if s.silent.Load() {
			err = ErrIdle
		}
		s.drop()
		if s.ctx.Err() != nil {
			return Frame{}, s.ctx.Err()
		}
		if err == io.EOF {
			err = io.ErrUnexpectedEOF // the hub's streams end only with their turn
		}
		if !s.o.Reconnect || errors.Is(err, ErrLineTooLong) {
			return Frame{}, err
		}
		if s.downFrom.IsZero() {
			s.downFrom = time.Now()
		}
		if errors.Is(err, ErrResync) {
			s.tries = 0 // at once: the hub is there
		}
	}
}

// accept records a frame's id and whether it ends a turn's stream; it
// reports whether the frame carries data.
func (s *Stream) accept(f Frame) bool {
	if id, err := strconv.ParseInt(f.ID, 10, 64); err == nil && id > s.lastID {
		s.lastID = id
	}
	if f.Data == "" {
		return false
	}
	s.downFrom, s.tries = time.Time{}, 0
	if s.turn && (f.Event == hub.EventTurnCompleted || f.Event == hub.EventError) {
		if ev, ok := DecodeEvent(f); ok {
			if s.TurnID == "" {
				s.TurnID = ev.TurnID
			}
			s.ended = ev.TurnID == s.TurnID
		}
	}
	return true
}

// reconnect opens the stream again after lastID, waiting out the backoff
// before each try but a resync's first.
func (s *Stream) reconnect() error {
	var lastErr error
	for {
		if s.tries > 0 {
			select {
			case <-time.After(s.o.Backoff.Next()):
			case <-s.ctx.Done():
				return s.ctx.Err()
			}
		}
		s.tries++
		resp, err := s.reopen(s.ctx, s.lastID)
		if err == nil {
			s.o.Backoff.Reset()
			s.attach(resp)
			return nil
		}
		if s.ctx.Err() != nil {
			return s.ctx.Err()
		}
		lastErr = err
		if permanent(err) || s.o.GiveUpAfter > 0 && time.Since(s.downFrom) > s.o.GiveUpAfter {
			return lastErr
		}
	}
}

// permanent: an answer that reconnecting will not change (the token is
// refused, the thread is gone, the request is wrong).
func permanent(err error) bool {
	switch StatusOf(err) {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusBadRequest:
		return true
	}
	return false
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }
