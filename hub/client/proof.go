package client

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// Before a Client sends the token anywhere, the process at that address
// proves it knows the token: GET /healthz?nonce=<random> must answer
// proof = hex(HMAC-SHA256(token, nonce)) (docs/API.md "Finding the hub").
// A stale hub.json left by a crash names a port that any local program may
// have taken since; such a squatter cannot answer, and never sees the
// token.
//
// With the default transport (Options.HTTP nil) every new connection is
// proven before any request is written on it, so a hub that dies between
// two calls and a squatter that takes its port in between are caught
// too. With Options.HTTP the proof is checked once per hub found (and
// again after a failure), by Healthz.

// proofTimeout bounds the proof of one connection.
const proofTimeout = 5 * time.Second

// NotHubError: the process at URL did not prove it knows the token, so it
// is not the hub hub.json names (perhaps a stale hub.json after a crash,
// and another program on its port). The token was not sent to it.
type NotHubError struct {
	URL    string
	Reason string
}

func (e *NotHubError) Error() string {
	return fmt.Sprintf("the program at %s did not prove it knows the token (%s), so the token was not sent to it: "+
		"either it is not the Switchboard hub (hub.json is stale after a crash: start the hub again), "+
		"or the token file does not hold the running hub's token", e.URL, e.Reason)
}

// newNonce is 32 random bytes in hex.
func newNonce() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// checkProof checks a /healthz answer's body against token and nonce, in
// constant time. It returns "" when the proof holds, else why not.
func checkProof(body []byte, token, nonce string) string {
	var a struct {
		OK    bool   `json:"ok"`
		Proof string `json:"proof"`
	}
	if err := json.Unmarshal(body, &a); err != nil || !a.OK {
		return "its /healthz is not the hub's"
	}
	if a.Proof == "" {
		return "it gave no proof that it knows the token"
	}
	got, err := hex.DecodeString(a.Proof)
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte(nonce))
	if err != nil || !hmac.Equal(got, m.Sum(nil)) {
		return "its proof does not match the token"
	}
	return ""
}

// proveConn asks the peer of a fresh connection to addr for the proof,
// over that connection, before the transport writes any request on it
// (so none carrying the token goes to a peer that fails). The exchange is
// one HTTP/1.1 request and answer read whole, leaving the connection as
// the transport expects a fresh one.
func proveConn(ctx context.Context, conn net.Conn, addr, token string) error {
	if token == "" { // anyone can sign with an empty key
		return &NotHubError{URL: "http://" + addr, Reason: "there is no token to check its proof with"}
	}
	deadline := time.Now().Add(proofTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	if err := conn.SetDeadline(deadline); err != nil {
		return err
	}
	nonce := newNonce()
	if _, err := fmt.Fprintf(conn, "GET /healthz?nonce=%s HTTP/1.1\r\nHost: %s\r\nUser-Agent: switchboard-hub-client\r\nAccept: application/json\r\n\r\n", nonce, addr); err != nil {
		return err
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return &NotHubError{URL: "http://" + addr, Reason: "its answer to /healthz is not HTTP: " + err.Error()}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || resp.Close || br.Buffered() > 0 {
		return &NotHubError{URL: "http://" + addr, Reason: fmt.Sprintf("its /healthz answered %d", resp.StatusCode)}
	}
	if why := checkProof(body, token, nonce); why != "" {
		return &NotHubError{URL: "http://" + addr, Reason: why}
	}
	return conn.SetDeadline(time.Time{})
}

// pooledDoer is the default Doer of New and ForHub: net/http's Client
// over provingTransport, or socketTransport for a hub on a unix socket.
func pooledDoer(socket string, token func() string) Doer {
	if socket != "" {
		return &http.Client{Transport: socketTransport(socket, token)}
	}
	return &http.Client{Transport: provingTransport(token)}
}

// provingTransport is the default transport of a Client: no proxy (the
// hub is on loopback), and every new connection proven with the token
// the Client holds at the time.
func provingTransport(token func() string) *http.Transport {
	d := &net.Dialer{Timeout: 5 * time.Second}
	return &http.Transport{
		Proxy:               nil,
		MaxIdleConnsPerHost: 8,
		IdleConnTimeout:     90 * time.Second,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			conn, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			if err := proveConn(ctx, conn, addr, token()); err != nil {
				conn.Close()
				return nil, err
			}
			return conn, nil
		},
	}
}

// asNotHub returns the *NotHubError in err's chain, if any.
func asNotHub(err error) (*NotHubError, bool) {
	var nh *NotHubError
	ok := errors.As(err, &nh)
	return nh, ok
}
