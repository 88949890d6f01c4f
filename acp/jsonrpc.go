package acp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
)

// DefaultMaxLineBytes is the default cap on one incoming JSON-RPC line.
const DefaultMaxLineBytes = 64 << 20

// DefaultMaxWriteQueueBytes is the default ConnOptions.MaxWriteQueueBytes.
const DefaultMaxWriteQueueBytes = 16 << 20

// ErrLineTooLong ends a connection whose peer sent a line over the cap.
var ErrLineTooLong = errors.New("acp: incoming line exceeds the size limit")

// ErrConnClosed is returned (wrapped with the cause) by calls on a closed
// connection, or whose connection closed before the answer came.
var ErrConnClosed = errors.New("acp: connection closed")

// Handler serves what the peer sends. Both methods are called from the
// connection's goroutines, never concurrently with Close returning.
//
// HandleRequest runs in its own goroutine, so requests are served
// concurrently; ctx is cancelled when the peer sends $/cancel_request for it
// or the connection closes. It is called for every request dispatched, even
// one the peer cancelled before its handler started (ctx is then already
// done), except one cancelled while it waited for a slot (see
// ConnOptions.MaxConcurrentRequests). The result is marshalled as the
// response; an *Error chooses the error code, any other error is sent as an
// internal error.
//
// HandleNotification is called for notifications one at a time, in arrival
// order. It must not wait on a Call over the same connection: responses are
// released only after the notifications that preceded them were handled.
type Handler interface {
	HandleRequest(ctx context.Context, method string, params json.RawMessage) (any, error)
	HandleNotification(ctx context.Context, method string, params json.RawMessage)
}

// RequestObserver is an optional extension of Handler. RequestDispatched is
// called for each incoming request on the goroutine that handles
// notifications, in arrival order with them, just before the request's
// HandleRequest goroutine starts: so a notification that follows a request
// on the wire is handled after RequestDispatched has seen that request,
// however late its HandleRequest starts. With MaxConcurrentRequests, a
// request that waits for a slot is seen here when it starts waiting, and
// never reaches HandleRequest when the peer cancels it meanwhile. It must
// not block.
type RequestObserver interface {
	RequestDispatched(method string, params json.RawMessage)
}

// ConnOptions tune a Conn. The zero value is usable.
type ConnOptions struct {
	// Logger receives malformed lines and handler panics. Default: discard.
	Logger *slog.Logger
	// MaxLineBytes caps one incoming line (default DefaultMaxLineBytes). A
	// longer line ends the connection with ErrLineTooLong; memory held for a
	// line never exceeds the cap.
	MaxLineBytes int
	// MaxQueuedBytes bounds what the reader may hold for the dispatcher
	// (default 8 MiB). Past it the reader stops reading until the queue
	// drains, which pushes back on the peer through the pipe.
	MaxQueuedBytes int
	// MaxWriteQueueBytes bounds the bytes queued for the peer by answers
	// to its requests (default DefaultMaxWriteQueueBytes). An answer waits
	// for room and then for its write before its request is done (and its
	// MaxConcurrentRequests slot free): a peer that stops reading stops
	// being served instead of growing the queue. A single answer larger
	// than the bound is written alone.
	MaxWriteQueueBytes int
	// MaxConcurrentRequests bounds how many of the peer's requests are
	// handled at once (≤ 0: no bound). Past it a request waits, in arrival
	// order, for one to finish: it is never refused, and notifications and
	// answers to our calls keep flowing meanwhile. A waiting request is
	// charged its size plus 4 KiB against MaxQueuedBytes until it starts,
	// so the number waiting is bounded too (the reader then stops, as for
	// any queued message). A peer cancelling a waiting request
	// ($/cancel_request) gets its -32800 answer when its turn comes,
	// without the handler running.
	MaxConcurrentRequests int
	// Unbounded, when set, names methods MaxConcurrentRequests does not
	// count: requests that only wait for something else (a person, a
	// process) and must not hold up the others.
	Unbounded func(method string) bool
	// EOFCause, when set, is called once when the peer's stream ends and
	// returns the error pending and later calls fail with (wrapped in
	// ErrConnClosed). It may block briefly, for instance to wait for the
	// peer process's exit status.
	EOFCause func(readErr error) error
}

// Conn is a JSON-RPC 2.0 peer over newline-delimited JSON.
//
// Guarantees:
//   - The reader never waits on a handler: it queues what it reads for one
//     dispatcher goroutine (bounded by MaxQueuedBytes, see ConnOptions).
//   - Notifications are handled one at a time in arrival order.
//   - At most MaxConcurrentRequests of the peer's requests are handled at
//     once; the others wait in arrival order, never refused.
//   - A request from the peer, and the answer to one of our calls, is
//     dispatched only after every notification read before it was handled.
//   - An answer to the peer is written before its request is done: a peer
//     that stops reading holds its own requests, and the bytes queued for
//     it stay under MaxWriteQueueBytes (plus one answer).
//   - Malformed lines are logged and skipped; the connection lives on.
//   - A call's error is an *Error only when the peer sent that error; local
//     cancellation wraps ctx.Err(), a closed connection wraps ErrConnClosed.
type Conn struct {
	h      Handler
	log    *slog.Logger
	opts   ConnOptions
	ctx    context.Context // cancelled when the connection closes
	cancel context.CancelFunc

	out *writeQueue

	mu       sync.Mutex
	nextID   int64
	calls    map[string]chan response      // our calls awaiting an answer, by id
	incoming map[string]context.CancelFunc // peer requests not yet answered, by raw id
	err      error                         // why the connection closed; set once
	done     chan struct{}                 // closed with err set

	in   *inbox
	gate requestGate
	seq  int64 // this connection's number in the frame record (record.go)
}

type response struct {
	result json.RawMessage
	err    *Error
}

// wireMessage is any JSON-RPC 2.0 message.
type wireMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// NewConn starts a peer reading r and writing w. It owns neither: closing the
// underlying pipes (or the process) is the caller's job, and ends the
// connection through EOF.
func NewConn(r io.Reader, w io.Writer, h Handler, opts ConnOptions) *Conn {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = DefaultMaxLineBytes
	}
	if opts.MaxQueuedBytes <= 0 {
		opts.MaxQueuedBytes = 8 << 20
	}
	if opts.MaxWriteQueueBytes <= 0 {
		opts.MaxWriteQueueBytes = DefaultMaxWriteQueueBytes
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Conn{
		h:        h,
		log:      opts.Logger,
		opts:     opts,
		ctx:      ctx,
		cancel:   cancel,
		calls:    make(map[string]chan response),
		incoming: make(map[string]context.CancelFunc),
		done:     make(chan struct{}),
		in:       newInbox(opts.MaxQueuedBytes),
		gate:     requestGate{max: opts.MaxConcurrentRequests},
	}
	if frameRec != nil {
		c.seq = connSeq.Add(1)
	}
	c.out = newWriteQueue(w, opts.MaxWriteQueueBytes, func(err error) { c.closeWith(fmt.Errorf("write to peer: %w", err)) })
	go c.read(r)
	go c.dispatch()
	return c
}

// Done is closed when the connection has ended; Err then says why.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err reports why the connection ended, or nil while it is open.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close ends the connection: pending calls fail with ErrConnClosed, handler
// contexts are cancelled, queued outgoing messages are dropped.
func (c *Conn) Close() error {
	c.closeWith(errors.New("closed locally"))
	return nil
}

// CloseWithError ends the connection like Close, with cause reported by Err
// and by the pending calls.
func (c *Conn) CloseWithError(cause error) { c.closeWith(cause) }

func (c *Conn) closeWith(cause error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = fmt.Errorf("%w: %w", ErrConnClosed, cause)
	calls := c.calls
	c.calls = nil
	for _, cancel := range c.incoming {
		cancel()
	}
	c.mu.Unlock()
	for _, ch := range calls {
		close(ch)
	}
	c.cancel()
	c.in.close()
	c.out.close()
	close(c.done)
}

// Call sends a request and waits for its answer, decoding the result into
// result (which may be nil). When ctx ends first, Call sends $/cancel_request
// to the peer and returns an error wrapping ctx.Err().
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	raw, err := marshalParams(params)
	if err != nil {
		return fmt.Errorf("acp: %s: %w", method, err)
	}
	ch := make(chan response, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return fmt.Errorf("acp: %s: %w", method, err)
	}
	id := c.nextID
	c.nextID++
	key := strconv.FormatInt(id, 10)
	c.calls[key] = ch
	c.mu.Unlock()

	c.send(wireMessage{ID: json.RawMessage(key), Method: method, Params: raw})
	select {
	case resp, ok := <-ch:
		if !ok {
			return fmt.Errorf("acp: %s: %w", method, c.Err())
		}
		if resp.err != nil {
			return resp.err
		}
		if result != nil && len(resp.result) > 0 {
			if err := json.Unmarshal(resp.result, result); err != nil {
				return fmt.Errorf("acp: %s: decode result: %w", method, err)
			}
		}
		return nil
	case <-ctx.Done():
		c.mu.Lock()
		_, pending := c.calls[key]
		delete(c.calls, key)
		c.mu.Unlock()
		if pending {
			c.send(wireMessage{Method: "$/cancel_request", Params: json.RawMessage(`{"requestId":` + key + `}`)})
		}
		return fmt.Errorf("acp: %s: %w", method, ctx.Err())
	}
}

// Notify sends a notification. It fails only when the connection is closed;
// delivery is in the order of Notify and Call calls.
func (c *Conn) Notify(method string, params any) error {
	raw, err := marshalParams(params)
	if err != nil {
		return fmt.Errorf("acp: %s: %w", method, err)
	}
	if err := c.Err(); err != nil {
		return fmt.Errorf("acp: %s: %w", method, err)
	}
	c.send(wireMessage{Method: method, Params: raw})
	return nil
}

func marshalParams(params any) (json.RawMessage, error) {
	if params == nil {
		return nil, nil
	}
	if raw, ok := params.(json.RawMessage); ok {
		return raw, nil
	}
	b, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("encode params: %w", err)
	}
	return b, nil
}

func (c *Conn) send(m wireMessage) { c.out.push(c.encode(m)) }

// encode is m as a line.
func (c *Conn) encode(m wireMessage) []byte {
	m.JSONRPC = "2.0"
	b, err := json.Marshal(m)
	if err != nil {
		// Only a handler result can fail to marshal; answer with an error.
		c.log.Error("acp: encode message", "method", m.Method, "err", err)
		m.Result, m.Error = nil, NewError(CodeInternalError, "encode result: %v", err)
		b, _ = json.Marshal(m)
	}
	if frameRec != nil {
		frameRec.record(c.seq, true, b)
	}
	return append(b, '\n')
}

// read runs in its own goroutine until the stream ends or the connection
// closes.
func (c *Conn) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(line)+len(frag) > c.opts.MaxLineBytes+1 { // +1: the newline itself
			c.log.Error("acp: line too long", "limit", c.opts.MaxLineBytes)
			c.closeWith(fmt.Errorf("%w (%d bytes)", ErrLineTooLong, c.opts.MaxLineBytes))
			return
		}
		if err == bufio.ErrBufferFull {
			line = append(line, frag...)
			continue
		}
		var msg []byte
		if len(line) > 0 {
			line = append(line, frag...)
			msg, line = line, nil
		} else {
			msg = frag
		}
		if len(bytes.TrimSpace(msg)) > 0 {
			c.receive(msg)
		}
		if err != nil {
			c.endOfStream(err)
			return
		}
	}
}

func (c *Conn) endOfStream(readErr error) {
	if c.Err() != nil {
		return
	}
	cause := readErr
	if readErr == io.EOF {
		cause = errors.New("peer closed its output")
	}
	if c.opts.EOFCause != nil {
		cause = c.opts.EOFCause(readErr)
	}
	// Let the dispatcher deliver what was read before the end.
	c.in.push(inboxItem{eof: cause})
}

// receive classifies one line and queues it. It runs on the reader goroutine
// and never blocks on a handler.
func (c *Conn) receive(line []byte) {
	if frameRec != nil {
		frameRec.record(c.seq, false, bytes.TrimSpace(line))
	}
	var m wireMessage
	if err := unmarshal(line, &m); err != nil {
		c.log.Warn("acp: skipping malformed line", "bytes", len(line), "err", err, "preview", preview(line))
		return
	}
	if m.ID != nil {
		m.ID = compactJSON(m.ID)
	}
	switch {
	case m.Method == "$/cancel_request":
		c.cancelIncoming(m.Params)
	case m.Method != "" && m.ID == nil:
		c.in.push(inboxItem{msg: m, size: len(line)})
	case m.Method != "":
		ctx, cancel := context.WithCancel(c.ctx)
		key := string(m.ID)
		c.mu.Lock()
		if c.err == nil {
			c.incoming[key] = cancel
		}
		c.mu.Unlock()
		c.in.push(inboxItem{msg: m, size: len(line), ctx: ctx, cancel: cancel})
	case m.ID != nil && (m.Result != nil || m.Error != nil):
		c.in.push(inboxItem{msg: m, size: len(line)})
	default:
		c.log.Warn("acp: skipping line that is not JSON-RPC", "bytes", len(line), "preview", preview(line))
	}
}

func (c *Conn) cancelIncoming(params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.RequestID == nil {
		c.log.Warn("acp: malformed $/cancel_request", "preview", preview(params))
		return
	}
	c.mu.Lock()
	cancel := c.incoming[string(compactJSON(p.RequestID))]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// dispatch delivers queued messages in order.
func (c *Conn) dispatch() {
	for {
		item, ok := c.in.pop()
		if !ok {
			return
		}
		switch {
		case item.eof != nil:
			c.closeWith(item.eof)
			return
		case item.msg.Method != "" && item.ctx == nil:
			c.handleNotification(item.msg)
		case item.msg.Method != "":
			if o, ok := c.h.(RequestObserver); ok {
				o.RequestDispatched(item.msg.Method, item.msg.Params)
			}
			c.startRequest(item)
		default:
			c.deliverResponse(item.msg)
		}
	}
}

// startRequest runs a request's handler on its own goroutine, at once when
// it is not gated or a slot is free, else when a slot frees (runGated).
// It never blocks.
func (c *Conn) startRequest(it inboxItem) {
	if c.opts.Unbounded != nil && c.opts.Unbounded(it.msg.Method) {
		go c.handleRequest(it.ctx, it.cancel, it.msg, false)
		return
	}
	if !c.gate.admit(it) {
		c.in.hold(it.size + waitingRequestCost)
		return
	}
	go c.runGated(it)
}

// runGated handles it, then the requests that waited for its slot, one
// after another, until none waits.
func (c *Conn) runGated(it inboxItem) {
	waited := false
	for {
		c.handleRequest(it.ctx, it.cancel, it.msg, waited)
		var ok bool
		if it, ok = c.gate.next(); !ok {
			return
		}
		c.in.release(it.size + waitingRequestCost)
		waited = true
	}
}

func (c *Conn) handleNotification(m wireMessage) {
	defer c.recoverHandler(m.Method)
	c.h.HandleNotification(c.ctx, m.Method, m.Params)
}

// handleRequest calls the handler and answers. waited says the request
// waited for a slot (MaxConcurrentRequests): cancelled meanwhile, it is
// answered at once without its handler. Any other request reaches its
// handler even when the peer cancelled it before the handler started
// (its ctx is then already done): the dispatcher may start it after the
// reader has read the $/cancel_request that follows it, and a Handler
// (a RequestObserver pairing RequestDispatched with HandleRequest) must
// not see a dispatched request vanish by a race.
func (c *Conn) handleRequest(ctx context.Context, cancel context.CancelFunc, m wireMessage, waited bool) {
	key := string(m.ID)
	// forget ends the request's context and drops its entry from the
	// cancel table, before the answer is sent: the peer may reuse the id
	// as soon as it has the answer, and that new request's entry must not
	// be the one deleted.
	forget := sync.OnceFunc(func() {
		cancel()
		c.mu.Lock()
		delete(c.incoming, key)
		c.mu.Unlock()
	})
	defer forget()
	var result any
	var err error
	if waited && ctx.Err() != nil {
		err = ctx.Err()
	} else {
		result, err = c.callHandler(ctx, m)
	}
	if c.ctx.Err() != nil {
		return // connection closed: nobody to answer
	}
	resp := wireMessage{ID: m.ID}
	switch {
	case err != nil && ctx.Err() != nil:
		resp.Error = NewError(CodeRequestCancelled, "request cancelled")
	case err != nil:
		var e *Error
		if !errors.As(err, &e) {
			e = NewError(CodeInternalError, "%s", err.Error())
		}
		resp.Error = e
	default:
		b, merr := json.Marshal(result)
		if merr != nil {
			resp.Error = NewError(CodeInternalError, "encode result: %v", merr)
		} else {
			resp.Result = b
		}
	}
	forget()
	// Held until written: the request's slot frees only then
	// (ConnOptions.MaxWriteQueueBytes).
	c.out.pushWait(c.encode(resp))
}

func (c *Conn) callHandler(ctx context.Context, m wireMessage) (result any, err error) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("acp: handler panic", "method", m.Method, "panic", fmt.Sprint(r))
			result, err = nil, NewError(CodeInternalError, "internal error handling %s", m.Method)
		}
	}()
	return c.h.HandleRequest(ctx, m.Method, m.Params)
}

func (c *Conn) recoverHandler(method string) {
	if r := recover(); r != nil {
		c.log.Error("acp: notification handler panic", "method", method, "panic", fmt.Sprint(r))
	}
}

func (c *Conn) deliverResponse(m wireMessage) {
	key := string(m.ID)
	c.mu.Lock()
	ch, ok := c.calls[key]
	delete(c.calls, key)
	c.mu.Unlock()
	if !ok {
		// A late answer to a call we gave up on, or an id we never used.
		c.log.Debug("acp: response for unknown id", "id", preview(m.ID))
		return
	}
	if m.Error != nil {
		ch <- response{err: m.Error}
		return
	}
	ch <- response{result: m.Result}
}

func compactJSON(b []byte) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return b
	}
	return buf.Bytes()
}

func preview(b []byte) string {
	const n = 120
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(bytes.TrimSpace(b))
}
