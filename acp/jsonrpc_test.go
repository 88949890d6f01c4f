package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// scriptedPeer is the far side of a Conn: the test writes what the peer
// sends and reads what the Conn wrote, line by line.
type scriptedPeer struct {
	t    *testing.T
	toW  *io.PipeWriter // peer → conn
	from *bufio.Reader  // conn → peer
}

func newScripted(t *testing.T, h Handler, opts ConnOptions) (*Conn, *scriptedPeer) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := NewConn(inR, outW, h, opts)
	t.Cleanup(func() {
		c.Close()
		inW.Close()
		outR.Close()
	})
	return c, &scriptedPeer{t: t, toW: inW, from: bufio.NewReader(outR)}
}

func (p *scriptedPeer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.toW, line+"\n"); err != nil {
		p.t.Fatalf("peer write: %v", err)
	}
}

// expect reads the next line the Conn wrote and compares it with want
// after normalising both as JSON.
func (p *scriptedPeer) expect(want string) {
	p.t.Helper()
	got := p.next()
	if !jsonEqual(got, want) {
		p.t.Fatalf("conn wrote\n  %s\nwant\n  %s", got, want)
	}
}

func (p *scriptedPeer) next() string {
	p.t.Helper()
	type res struct {
		s   string
		err error
	}
	ch := make(chan res, 1)
	go func() {
		s, err := p.from.ReadString('\n')
		ch <- res{s, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			p.t.Fatalf("reading from conn: %v", r.err)
		}
		if !strings.HasSuffix(r.s, "\n") || strings.Count(r.s, "\n") != 1 {
			p.t.Fatalf("conn wrote a message that is not one line: %q", r.s)
		}
		return strings.TrimSuffix(r.s, "\n")
	case <-time.After(5 * time.Second):
		p.t.Fatal("timed out waiting for the conn to write")
		return ""
	}
}

func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}

// funcHandler adapts functions to Handler.
type funcHandler struct {
	req    func(ctx context.Context, method string, params json.RawMessage) (any, error)
	notify func(ctx context.Context, method string, params json.RawMessage)
}

func (f funcHandler) HandleRequest(ctx context.Context, m string, p json.RawMessage) (any, error) {
	if f.req == nil {
		return nil, NewError(CodeMethodNotFound, "method not found: %s", m)
	}
	return f.req(ctx, m, p)
}

func (f funcHandler) HandleNotification(ctx context.Context, m string, p json.RawMessage) {
	if f.notify != nil {
		f.notify(ctx, m, p)
	}
}

type callResult struct {
	raw json.RawMessage
	err error
}

func goCall(c *Conn, ctx context.Context, method string, params any) <-chan callResult {
	ch := make(chan callResult, 1)
	go func() {
		var raw json.RawMessage
		err := c.Call(ctx, method, params, &raw)
		ch <- callResult{raw, err}
	}()
	return ch
}

func waitResult(t *testing.T, ch <-chan callResult) callResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(5 * time.Second):
		t.Fatal("call did not return")
		return callResult{}
	}
}

func TestConnCallWireFormat(t *testing.T) {
	c, peer := newScripted(t, funcHandler{}, ConnOptions{})
	ch := goCall(c, context.Background(), "session/new", map[string]any{"cwd": "/tmp", "mcpServers": []any{}})
	peer.expect(`{"jsonrpc":"2.0","id":0,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`)
	peer.send(`{"jsonrpc":"2.0","id":0,"result":{"sessionId":"s1"}}`)
	r := waitResult(t, ch)
	if r.err != nil || !jsonEqual(string(r.raw), `{"sessionId":"s1"}`) {
		t.Fatalf("got %s, %v", r.raw, r.err)
	}

	// The next call uses the next id; a peer error arrives as *Error.
	ch = goCall(c, context.Background(), "session/load", nil)
	peer.expect(`{"jsonrpc":"2.0","id":1,"method":"session/load"}`)
	peer.send(`{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"no such session","data":{"x":1}}}`)
	r = waitResult(t, ch)
	var e *Error
	if !errors.As(r.err, &e) || e.Code != CodeResourceNotFound || e.Message != "no such session" || !jsonEqual(string(e.Data), `{"x":1}`) {
		t.Fatalf("want peer error -32002, got %v", r.err)
	}

	if err := c.Notify("session/cancel", map[string]string{"sessionId": "s1"}); err != nil {
		t.Fatal(err)
	}
	peer.expect(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`)
}

func TestConnRequestIDsOfAnyType(t *testing.T) {
	h := funcHandler{req: func(ctx context.Context, m string, p json.RawMessage) (any, error) {
		return map[string]string{"echo": m}, nil
	}}
	_, peer := newScripted(t, h, ConnOptions{})
	for _, id := range []string{`0`, `"abc"`, `-7`, `1.5`, `"0"`} {
		peer.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"x/y"}`)
		peer.expect(`{"jsonrpc":"2.0","id":` + id + `,"result":{"echo":"x/y"}}`)
	}
}

func TestConnUnknownRequestAndMalformedLines(t *testing.T) {
	var mu sync.Mutex
	var notes []string
	h := funcHandler{
		notify: func(ctx context.Context, m string, p json.RawMessage) {
			mu.Lock()
			notes = append(notes, m+" "+string(p))
			mu.Unlock()
		},
	}
	c, peer := newScripted(t, h, ConnOptions{})
	peer.send(`this is not json`)
	peer.send(`[1,2,3]`)
	peer.send(`{"hello":"world"}`)
	peer.send(`{"jsonrpc":"2.0","id":99,"result":{}}`) // answer to nothing
	peer.send(``)
	peer.send(`{"jsonrpc":"2.0","method":"_vendor/thing","params":{"a":1}}`)
	peer.send(`{"jsonrpc":"2.0","id":5,"method":"nope/nope"}`)
	peer.expect(`{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"method not found: nope/nope"}}`)
	mu.Lock()
	defer mu.Unlock()
	if len(notes) != 1 || notes[0] != `_vendor/thing {"a":1}` {
		t.Fatalf("notifications = %q", notes)
	}
	if c.Err() != nil {
		t.Fatalf("connection ended: %v", c.Err())
	}
}

// A response is released only after the notifications read before it were
// handled, even when the handler is slow.
func TestConnResponseWaitsForEarlierNotifications(t *testing.T) {
	var mu sync.Mutex
	handled := 0
	h := funcHandler{notify: func(ctx context.Context, m string, p json.RawMessage) {
		time.Sleep(2 * time.Millisecond)
		mu.Lock()
		handled++
		mu.Unlock()
	}}
	c, peer := newScripted(t, h, ConnOptions{})
	ch := goCall(c, context.Background(), "session/prompt", nil)
	peer.next()
	for i := 0; i < 50; i++ {
		peer.send(`{"jsonrpc":"2.0","method":"session/update","params":{"n":` + itoa(i) + `}}`)
	}
	peer.send(`{"jsonrpc":"2.0","id":0,"result":{"stopReason":"end_turn"}}`)
	r := waitResult(t, ch)
	if r.err != nil {
		t.Fatal(r.err)
	}
	mu.Lock()
	defer mu.Unlock()
	if handled != 50 {
		t.Fatalf("call returned after %d of 50 notifications were handled", handled)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// Notifications are handled in order while requests run concurrently: a
// request whose handler blocks does not stop later notifications or a
// second request.
func TestConnRequestsConcurrentNotificationsOrdered(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var order []string
	h := funcHandler{
		req: func(ctx context.Context, m string, p json.RawMessage) (any, error) {
			if m == "slow" {
				<-release
			}
			return m, nil
		},
		notify: func(ctx context.Context, m string, p json.RawMessage) {
			mu.Lock()
			order = append(order, string(p))
			mu.Unlock()
		},
	}
	_, peer := newScripted(t, h, ConnOptions{})
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"slow"}`)
	for i := 0; i < 20; i++ {
		peer.send(`{"jsonrpc":"2.0","method":"n","params":` + itoa(i) + `}`)
	}
	peer.send(`{"jsonrpc":"2.0","id":2,"method":"fast"}`)
	peer.expect(`{"jsonrpc":"2.0","id":2,"result":"fast"}`)
	close(release)
	peer.expect(`{"jsonrpc":"2.0","id":1,"result":"slow"}`)
	mu.Lock()
	defer mu.Unlock()
	for i, s := range order {
		if s != itoa(i) {
			t.Fatalf("notification order %v", order)
		}
	}
	if len(order) != 20 {
		t.Fatalf("handled %d of 20 notifications", len(order))
	}
}

// observingHandler is a funcHandler that is also a RequestObserver.
type observingHandler struct {
	funcHandler
	dispatched func(method string, params json.RawMessage)
}

func (o observingHandler) RequestDispatched(m string, p json.RawMessage) { o.dispatched(m, p) }

// RequestDispatched sees a request before the notification that follows
// it is handled, even while the request's handler has not started.
func TestConnRequestDispatchedInOrder(t *testing.T) {
	var mu sync.Mutex
	var order []string
	record := func(s string) {
		mu.Lock()
		order = append(order, s)
		mu.Unlock()
	}
	notified := make(chan struct{})
	h := observingHandler{
		funcHandler: funcHandler{
			req: func(ctx context.Context, m string, p json.RawMessage) (any, error) {
				<-notified // the handler starts only after the notification
				record("handle " + m)
				return "done", nil
			},
			notify: func(ctx context.Context, m string, p json.RawMessage) {
				record("notify " + m)
				close(notified)
			},
		},
		dispatched: func(m string, p json.RawMessage) { record("dispatched " + m + " " + string(p)) },
	}
	_, peer := newScripted(t, h, ConnOptions{})
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"prompt","params":{"s":"a"}}`)
	peer.send(`{"jsonrpc":"2.0","method":"cancel"}`)
	peer.expect(`{"jsonrpc":"2.0","id":1,"result":"done"}`)
	mu.Lock()
	defer mu.Unlock()
	if want := []string{`dispatched prompt {"s":"a"}`, "notify cancel", "handle prompt"}; !slices.Equal(order, want) {
		t.Fatalf("order %q, want %q", order, want)
	}
}

func TestConnIncomingCancelRequest(t *testing.T) {
	started := make(chan struct{})
	h := funcHandler{req: func(ctx context.Context, m string, p json.RawMessage) (any, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	_, peer := newScripted(t, h, ConnOptions{})
	peer.send(`{"jsonrpc":"2.0","id":"r1","method":"session/request_permission","params":{}}`)
	<-started
	peer.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"r1"}}`)
	peer.expect(`{"jsonrpc":"2.0","id":"r1","error":{"code":-32800,"message":"request cancelled"}}`)
}

// A request the peer cancels before its handler started still reaches
// HandleRequest, with its ctx already done, and is answered -32800: a
// RequestObserver sees every dispatched request handled. The dispatcher is
// held in a notification so that the reader surely reads the
// $/cancel_request before the request is dispatched (the race that made
// TestClientIncomingCancelRequest hang now and then).
func TestConnCancelBeforeHandlerStartsStillHandled(t *testing.T) {
	hold := make(chan struct{})
	handled := make(chan error, 1)
	var mu sync.Mutex
	var dispatched []string
	h := observingHandler{
		funcHandler: funcHandler{
			req: func(ctx context.Context, m string, p json.RawMessage) (any, error) {
				handled <- ctx.Err()
				<-ctx.Done()
				return nil, ctx.Err()
			},
			notify: func(ctx context.Context, m string, p json.RawMessage) {
				if m == "hold" {
					<-hold
				}
			},
		},
		dispatched: func(m string, p json.RawMessage) {
			mu.Lock()
			dispatched = append(dispatched, m)
			mu.Unlock()
		},
	}
	_, peer := newScripted(t, h, ConnOptions{})
	peer.send(`{"jsonrpc":"2.0","method":"hold"}`)
	peer.send(`{"jsonrpc":"2.0","id":7,"method":"fs/read_text_file","params":{}}`)
	peer.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":7}}`)
	// The pipe hands this line over only once the reader has handled every
	// line before it: the cancel has been applied while the request still
	// waits behind "hold".
	peer.send(`{"jsonrpc":"2.0","method":"after"}`)
	close(hold)
	peer.expect(`{"jsonrpc":"2.0","id":7,"error":{"code":-32800,"message":"request cancelled"}}`)
	select {
	case err := <-handled:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("handler ctx err %v, want it already cancelled", err)
		}
	default:
		t.Fatal("the handler of a request cancelled before it started was never called")
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(dispatched, []string{"fs/read_text_file"}) {
		t.Fatalf("dispatched %q", dispatched)
	}
}

func TestConnOutgoingCallTimeoutIsLocal(t *testing.T) {
	c, peer := newScripted(t, funcHandler{}, ConnOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	ch := goCall(c, ctx, "session/prompt", nil)
	peer.expect(`{"jsonrpc":"2.0","id":0,"method":"session/prompt"}`)
	r := waitResult(t, ch)
	if !errors.Is(r.err, context.DeadlineExceeded) {
		t.Fatalf("want deadline exceeded, got %v", r.err)
	}
	if _, isPeer := ErrorCode(r.err); isPeer {
		t.Fatalf("a local timeout must not look like a peer error: %v", r.err)
	}
	peer.expect(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":0}}`)
	// The late answer is dropped and the connection goes on.
	peer.send(`{"jsonrpc":"2.0","id":0,"result":{"stopReason":"cancelled"}}`)
	ch = goCall(c, context.Background(), "ping", nil)
	peer.expect(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	peer.send(`{"jsonrpc":"2.0","id":1,"result":null}`)
	if r := waitResult(t, ch); r.err != nil {
		t.Fatal(r.err)
	}
}

func TestConnHandlerPanicAnswersInternalError(t *testing.T) {
	h := funcHandler{req: func(ctx context.Context, m string, p json.RawMessage) (any, error) {
		panic("boom")
	}}
	c, peer := newScripted(t, h, ConnOptions{})
	peer.send(`{"jsonrpc":"2.0","id":3,"method":"fs/read_text_file"}`)
	peer.expect(`{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"internal error handling fs/read_text_file"}}`)
	if c.Err() != nil {
		t.Fatal(c.Err())
	}
}

func TestConnLineTooLongEndsConnection(t *testing.T) {
	c, peer := newScripted(t, funcHandler{}, ConnOptions{MaxLineBytes: 1 << 10})
	ch := goCall(c, context.Background(), "session/prompt", nil)
	peer.next()
	go io.WriteString(peer.toW, `{"jsonrpc":"2.0","method":"session/update","params":{"text":"`+strings.Repeat("x", 4<<10)+`"}}`+"\n")
	r := waitResult(t, ch)
	if !errors.Is(r.err, ErrConnClosed) || !errors.Is(r.err, ErrLineTooLong) {
		t.Fatalf("want closed by line too long, got %v", r.err)
	}
	<-c.Done()
	if !errors.Is(c.Err(), ErrLineTooLong) {
		t.Fatalf("Err() = %v", c.Err())
	}
}

func TestConnLongLineUnderLimitAccepted(t *testing.T) {
	got := make(chan int, 1)
	h := funcHandler{notify: func(ctx context.Context, m string, p json.RawMessage) { got <- len(p) }}
	_, peer := newScripted(t, h, ConnOptions{MaxLineBytes: 4 << 20})
	text := strings.Repeat("y", 3<<20)
	go io.WriteString(peer.toW, `{"jsonrpc":"2.0","method":"u","params":"`+text+`"}`+"\n")
	select {
	case n := <-got:
		if n != len(text)+2 {
			t.Fatalf("params length %d", n)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("long line not delivered")
	}
}

func TestConnEOFWithoutFinalNewline(t *testing.T) {
	got := make(chan string, 1)
	h := funcHandler{notify: func(ctx context.Context, m string, p json.RawMessage) { got <- string(p) }}
	c, peer := newScripted(t, h, ConnOptions{EOFCause: func(error) error { return errors.New("agent exited with code 0") }})
	ch := goCall(c, context.Background(), "session/prompt", nil)
	peer.next()
	io.WriteString(peer.toW, `{"jsonrpc":"2.0","method":"session/update","params":"last words"}`)
	peer.toW.Close()
	if s := <-got; s != `"last words"` {
		t.Fatalf("got %s", s)
	}
	r := waitResult(t, ch)
	if !errors.Is(r.err, ErrConnClosed) || !strings.Contains(r.err.Error(), "agent exited with code 0") {
		t.Fatalf("want closed with the EOF cause, got %v", r.err)
	}
	if err := c.Call(context.Background(), "x", nil, nil); !errors.Is(err, ErrConnClosed) {
		t.Fatalf("call after close: %v", err)
	}
}

// A peer that stops reading blocks nobody: calls still honour their ctx.
func TestConnPeerNotReading(t *testing.T) {
	inR, _ := io.Pipe()
	_, outW := io.Pipe() // nobody reads
	c := NewConn(inR, outW, funcHandler{}, ConnOptions{})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Call(ctx, "x", strings.Repeat("z", 1<<20), nil) }()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("got %v", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("Call blocked on a peer that does not read")
	}
}
