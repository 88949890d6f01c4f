package client

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// leanDoer is the default Doer of NewLean and ForHubLean.
func leanDoer(socket string, token func() string) Doer {
	return &connPerRequest{socket: socket, token: token, dialer: net.Dialer{Timeout: 5 * time.Second}}
}

// connPerRequest sends each request on a new connection to the request's
// host, proven first with the token the Client holds (proveConn: no
// request, and so no token, goes to a peer that fails), written with
// (*http.Request).Write and read with http.ReadResponse, and closed when
// the answer's body is closed or the request's context ends. Only plain
// http:// URLs (the hub's, on loopback); no proxy, no redirects, no
// keep-alive: one dial and one proof per request, which a program making
// a few requests a minute does not notice.
type connPerRequest struct {
	socket string // the hub's unix socket, when it serves on one
	token  func() string
	dialer net.Dialer
}

func (d *connPerRequest) Do(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme != "http" || req.URL.Host == "" {
		return nil, fmt.Errorf("hub: %s: only http:// URLs", req.URL.Redacted())
	}
	ctx := req.Context()
	addr := req.URL.Host
	network, to := "tcp", addr
	if d.socket != "" {
		network, to = "unix", d.socket
	}
	conn, err := d.dialer.DialContext(ctx, network, to)
	if err != nil {
		return nil, err
	}
	// The context ends the exchange, proof included, as it does with
	// http.Client: closing the connection ends a write or read blocked on
	// it.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	fail := func(err error) (*http.Response, error) {
		stop()
		conn.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	if err := proveConn(ctx, conn, addr, d.token()); err != nil {
		return fail(err)
	}
	req.Close = true // Connection: close — the hub ends the answer with the connection
	if err := req.Write(conn); err != nil {
		return fail(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		return fail(err)
	}
	resp.Body = &connBody{body: resp.Body, conn: conn, stop: stop, ctx: ctx}
	return resp, nil
}

// connBody is an answer's body that owns its connection.
type connBody struct {
	body io.ReadCloser
	conn net.Conn
	stop func() bool
	ctx  context.Context
	once sync.Once
}

func (b *connBody) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	if err != nil && err != io.EOF && b.ctx.Err() != nil {
		err = b.ctx.Err()
	}
	return n, err
}

// Close closes the connection first: net/http's body holds a lock while a
// Read waits on the connection, so a Close from another goroutine (a
// stream's idle timer, Stream.Close) must end that Read before it can
// take it.
func (b *connBody) Close() error {
	b.once.Do(func() {
		b.stop()
		b.conn.Close()
		b.body.Close()
	})
	return nil
}
