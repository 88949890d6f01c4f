package httpapi

import (
	"net"
	"os"
	"sync"
	"time"
)

// stallListener stands for a client that stopped reading: the first
// connection it accepts takes stallAfter bytes, then every Write on it
// blocks, as one on a full socket does, until the write deadline passes
// (os.ErrDeadlineExceeded) or the connection is closed. stalled is closed
// once a Write blocks there: the handler is stuck in Write.
type stallListener struct {
	net.Listener
	stallAfter int
	stalled    chan struct{}
	once       sync.Once // the first connection only
}

func newStallListener(l net.Listener, after int) *stallListener {
	return &stallListener{Listener: l, stallAfter: after, stalled: make(chan struct{})}
}

func (l *stallListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	first := false
	l.once.Do(func() { first = true })
	if !first {
		return c, nil
	}
	return &stallConn{Conn: c, l: l, wake: make(chan struct{}, 1), closed: make(chan struct{})}, nil
}

type stallConn struct {
	net.Conn
	l *stallListener

	mu       sync.Mutex
	written  int
	deadline time.Time
	wake     chan struct{} // a new deadline
	closed   chan struct{}
	once     sync.Once
}

func (c *stallConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	if c.written+len(b) <= c.l.stallAfter {
		c.written += len(b)
		c.mu.Unlock()
		return c.Conn.Write(b)
	}
	c.mu.Unlock()
	select {
	case <-c.l.stalled:
	default:
		close(c.l.stalled)
	}
	for {
		c.mu.Lock()
		d := c.deadline
		c.mu.Unlock()
		if err := c.park(d); err != nil {
			return 0, err
		}
	}
}

// park waits until deadline d (zero: none) passes, a new deadline is set
// (nil) or the connection closes.
func (c *stallConn) park(d time.Time) error {
	var expired <-chan time.Time
	if !d.IsZero() {
		t := time.NewTimer(time.Until(d))
		defer t.Stop()
		expired = t.C
	}
	select {
	case <-expired:
		return os.ErrDeadlineExceeded
	case <-c.wake:
		return nil
	case <-c.closed:
		return net.ErrClosed
	}
}

func (c *stallConn) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	c.deadline = t
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
	return c.Conn.SetWriteDeadline(t)
}

func (c *stallConn) SetDeadline(t time.Time) error {
	if err := c.SetWriteDeadline(t); err != nil {
		return err
	}
	return c.Conn.SetDeadline(t)
}

func (c *stallConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Conn.Close()
}
