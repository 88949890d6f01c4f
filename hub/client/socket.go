package client

import (
	"context"
	"net"
	"net/http"
	"time"
)

// SocketURL is the base URL of a hub reached on a unix socket: the
// requests name it, the socket carries them (ForSocket). A hub serving a
// unix socket accepts any Host on it (only who may open the socket's
// 0700 folder reaches it; no browser can).
const SocketURL = "http://localhost"

// ForSocket is a client of the hub listening on the unix socket at path
// with token: a remote host's hub through the link's forwarded socket
// (hub/hosts), or a `serve --socket` hub in a test. Like ForHub it keeps a
// pool of connections, each proven (GET /healthz?nonce=) before the token
// goes on it. The token is kept in memory only.
func ForSocket(path, token string, o Options) *Client {
	c := ForHub(NewHub(SocketURL, token), o)
	c.newOwn = func(_ string, token func() string) Doer { return pooledDoer(path, token) }
	return c
}

// socketTransport is provingTransport dialling the unix socket at path
// whatever address a request names.
func socketTransport(path string, token func() string) *http.Transport {
	t := provingTransport(token)
	d := &net.Dialer{Timeout: 5 * time.Second}
	t.DialContext = func(ctx context.Context, _, addr string) (net.Conn, error) {
		conn, err := d.DialContext(ctx, "unix", path)
		if err != nil {
			return nil, err
		}
		if err := proveConn(ctx, conn, addr, token()); err != nil {
			conn.Close()
			return nil, err
		}
		return conn, nil
	}
	return t
}
