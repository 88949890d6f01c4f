// Package client is the Go client of the hub's HTTP/SSE API (docs/API.md),
// and the only Go code that calls it: the tray, the editor bridge and the
// end-to-end tests and benchmarks all go through it.
//
// A Client finds its hub through <data-dir>/hub.json and the token file
// (Discover), checks that the process there proves it knows the token
// (GET /healthz?nonce=, proof.go) before it sends it, sends the token,
// X-Client-ID and, when asked, ?scope=all on every /v1 request, reads the
// token file again when the hub refuses it (a rotation), turns error
// answers into *Error, and reads event streams (Stream) with a cap on each
// line, resume from the last id: and, as an option, reconnection with
// backoff.
//
// It imports hub (the API's types) and the standard library only.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// Defaults for Options.
const (
	// DefaultMaxEventBytes caps one line of an event stream (a data: line
	// holds one event's JSON). It matches the cap the hub puts on one line
	// from an agent, so any event an agent can cause fits.
	DefaultMaxEventBytes = 64 << 20
	// DefaultIdleTimeout: a stream with no byte for this long (the hub
	// pings idle streams every 15 s) is dropped as dead.
	DefaultIdleTimeout = 45 * time.Second
)

// maxAnswer caps a JSON answer (a long thread's history with events).
const maxAnswer = 256 << 20

// Options say how a Client calls the hub.
type Options struct {
	// ClientID is the X-Client-ID of every request ([A-Za-z0-9._-]{1,64}).
	ClientID string
	// All adds ?scope=all to every /v1 request: the caller sees every
	// client's threads, events and permissions (the tray does).
	All bool
	// TraySecret, when set, is sent as X-Switchboard-Tray (hub.TraySecretHeader):
	// the per-launch secret the desktop app hands the tray it starts, with
	// which the hub records the tray's decisions as decidedBy "tray". Any
	// other caller is recorded as "client:<ClientID>".
	TraySecret string
	// LinkSecret, when set, makes the Client a host's link (issue 30,
	// hub/host.go): it is sent as X-Switchboard-Link, with the surface
	// that decided here (hub.DecidedByOf the Remote's caller) as
	// X-Switchboard-Link-Surface, and the hub behind records that
	// caller's decisions as "link:<surface>".
	LinkSecret string
	// HTTP sends the requests (an *http.Client, say). nil: the Client's
	// own, without proxy (the hub is on loopback), without an overall
	// timeout (streams last as long as a turn; each call is bounded by its
	// context), and proving every new connection (proof.go): a pool of
	// connections through net/http's Transport (New, ForHub), or a
	// connection per request (NewLean, ForHubLean). With one given, the
	// proof is checked once per hub found and after each failure instead.
	HTTP Doer
	// MaxEventBytes caps one line of an event stream; 0 means
	// DefaultMaxEventBytes. A longer line ends the stream with
	// ErrLineTooLong.
	MaxEventBytes int
	// IdleTimeout drops a stream silent for that long; 0 means
	// DefaultIdleTimeout.
	IdleTimeout time.Duration
}

// Doer sends one request and returns the answer, as (*http.Client).Do.
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// Client calls one hub's API. It is safe for concurrent use.
//
// A Client made by New finds its hub in a data dir on first use, and again
// when the hub does not answer or refuses the token: a hub restarted on
// another port, or with a new token, is found on the next call. A Client
// made by ForHub always calls the same hub.
type Client struct {
	dataDir string // "" for ForHub

	mu     sync.Mutex
	opts   Options
	hub    Hub
	found  bool
	proven Hub // the hub last proven through Healthz (Options.HTTP only)

	// newOwn makes the default Doer (Options.HTTP nil), proving each new
	// connection with the token the Client holds at the time, to the hub's
	// unix socket when hub.json names one (else its URL's TCP address):
	// pooled or lean, chosen by the constructor, so that a program calling
	// only the lean ones does not link net/http's Client and Transport.
	newOwn   func(socket string, token func() string) Doer
	httpOnce sync.Once
	own      Doer // made on first use
}

// New is a client of the hub running on dataDir. Its requests go through
// net/http's Client and a pool of proven connections.
func New(dataDir string, o Options) *Client {
	return &Client{dataDir: dataDir, opts: o, newOwn: pooledDoer}
}

// ForHub is a client of h, with New's pool of connections.
func ForHub(h Hub, o Options) *Client {
	return &Client{opts: o, hub: h, found: true, newOwn: pooledDoer}
}

// NewLean is New for a small, long-running program that makes few
// requests (the tray): each request goes on a connection of its own,
// proven like the pool's and closed with the answer (lean.go). A program
// that calls only NewLean and ForHubLean, and sets no Options.HTTP, links
// neither net/http's Client nor its Transport (with TLS and HTTP/2):
// ~1.7 MiB less binary, resident nearly whole (docs/PERFORMANCE.md "The
// desktop's footprint").
func NewLean(dataDir string, o Options) *Client {
	return &Client{dataDir: dataDir, opts: o, newOwn: leanDoer}
}

// ForHubLean is a client of h, with NewLean's connection per request.
func ForHubLean(h Hub, o Options) *Client {
	return &Client{opts: o, hub: h, found: true, newOwn: leanDoer}
}

// SetClientID changes the X-Client-ID of the requests that follow.
func (c *Client) SetClientID(id string) {
	c.mu.Lock()
	c.opts.ClientID = id
	c.mu.Unlock()
}

// Hub is the hub last found (the zero Hub before the first).
func (c *Client) Hub() Hub {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hub
}

func (c *Client) options() Options {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.opts
}

func (c *Client) httpClient() Doer {
	if h := c.options().HTTP; h != nil {
		return h
	}
	c.httpOnce.Do(func() {
		token := func() string { return c.Hub().token }
		socket := ""
		if h, err := c.current(); err == nil && h.Socket != "" && c.dataDir != "" {
			socket = h.Socket // hub.json names a unix socket (`serve --socket`)
		}
		c.own = c.newOwn(socket, token)
	})
	return c.own
}

// setToken records a token read again for hub h, if h is still the hub.
func (c *Client) setToken(h Hub) {
	c.mu.Lock()
	if c.hub.Discovery == h.Discovery {
		c.hub = h
	}
	c.mu.Unlock()
}

// Rediscover reads the data dir again (Discover) and calls the hub it
// names from now on. A ForHub client returns its hub.
func (c *Client) Rediscover() (Hub, error) {
	if c.dataDir == "" {
		return c.Hub(), nil
	}
	h, err := Discover(c.dataDir)
	if err != nil {
		return h, err
	}
	c.mu.Lock()
	c.hub, c.found = h, true
	c.mu.Unlock()
	return h, nil
}

// current is the hub to call, found now if it was not yet.
func (c *Client) current() (Hub, error) {
	c.mu.Lock()
	h, found := c.hub, c.found
	c.mu.Unlock()
	if found {
		return h, nil
	}
	return c.Rediscover()
}

// Connect finds the hub (reading the data dir again) and checks that it
// answers /healthz and proves it knows the token. The error wraps ErrNoHub
// when no hub runs, is a *DataDirError when the data dir's files are
// unreadable, an *UnreachableError when nothing answers at the address
// named there, and a *NotHubError when what answers is not the hub.
func (c *Client) Connect(ctx context.Context) (Hub, error) {
	h, err := c.Rediscover()
	if err != nil {
		return h, err
	}
	return h, c.Healthz(ctx)
}

// UnreachableError: no answer from the hub at URL (connection refused,
// reset, or a stream that went silent).
type UnreachableError struct {
	URL string
	Err error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("the hub at %s does not answer (%v): is it running?", e.URL, e.Err)
}
func (e *UnreachableError) Unwrap() error { return e.Err }

// Healthz checks that the hub answers at its address and proves it knows
// the token (GET /healthz?nonce=; the token itself is not sent). A proof
// that does not match the token is checked once more against the token
// file read again (a rotation). A wrong or missing proof is a
// *NotHubError.
func (c *Client) Healthz(ctx context.Context) error {
	_, err := c.Health(ctx)
	return err
}

// HubVersion is Healthz that also returns the version the hub reports.
func (c *Client) HubVersion(ctx context.Context) (string, error) {
	h, err := c.Health(ctx)
	return h.Version, err
}

// Health is what a proven hub says of itself at GET /healthz.
type Health struct {
	Version string `json:"version"`
	// LogID is its event log's identity ("" from a hub before ADR 0053):
	// a seq kept from another LogID is not a point in this log.
	LogID string `json:"logId"`
}

// Health is Healthz that also returns what the hub says of itself.
func (c *Client) Health(ctx context.Context) (Health, error) { return c.healthz(ctx) }

func (c *Client) healthz(ctx context.Context) (Health, error) {
	h, err := c.current()
	if err != nil {
		return Health{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	nonce := newNonce()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.URL+"/healthz?nonce="+nonce, nil)
	if err != nil {
		return Health{}, err
	}
	resp, err := c.httpClient().Do(req)
	if nh, ok := asNotHub(err); ok {
		if fresh, changed := h.rereadToken(); changed {
			c.setToken(fresh)
			return c.healthz(ctx)
		}
		return Health{}, nh
	}
	if err != nil {
		return Health{}, &UnreachableError{h.URL, err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Health{}, decodeError(resp)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if err != nil {
		return Health{}, &UnreachableError{h.URL, err}
	}
	why := checkProof(body, h.token, nonce)
	if why != "" {
		fresh, changed := h.rereadToken()
		if changed && checkProof(body, fresh.token, nonce) == "" {
			c.setToken(fresh)
			h, why = fresh, ""
		}
	}
	if why != "" {
		return Health{}, &NotHubError{URL: h.URL, Reason: why}
	}
	c.mu.Lock()
	c.proven = h
	c.mu.Unlock()
	var v Health
	json.Unmarshal(body, &v) // the proof was read from it: it is JSON
	return v, nil
}

// ensureProven checks the proof of h through Healthz, once per hub found,
// when the Client uses a caller's Options.HTTP (its own transport proves
// each connection instead).
func (c *Client) ensureProven(ctx context.Context, h Hub) error {
	if c.options().HTTP == nil {
		return nil
	}
	c.mu.Lock()
	ok := c.proven == h && h.URL != ""
	c.mu.Unlock()
	if ok {
		return nil
	}
	return c.Healthz(ctx)
}

// forgetProof makes the next call prove the hub again (after a failure).
func (c *Client) forgetProof() {
	c.mu.Lock()
	c.proven = Hub{}
	c.mu.Unlock()
}

// request is one API request before it is sent.
type request struct {
	method, path string
	query        url.Values
	body         any // marshalled as JSON when not nil
	// raw, when not nil, is the body as it is, sent with rawType (an
	// import); it can be read once, so such a request is never retried.
	raw     io.Reader
	rawType string
	header  http.Header // extra headers
}

// newHTTPRequest builds req for hub h with the client's headers.
func (c *Client) newHTTPRequest(ctx context.Context, h Hub, r request) (*http.Request, error) {
	o := c.options()
	linkSurface := ""
	if as, ok := ctx.Value(callerKey{}).(*callerValue); ok { // Remote: the caller given
		if as.ClientID != "" {
			o.ClientID = as.ClientID
		}
		o.All = as.All
		linkSurface = hub.DecidedByOf(hub.Caller(*as))
	}
	q := url.Values{}
	for k, v := range r.query {
		q[k] = v
	}
	if o.All {
		q.Set("scope", "all")
	}
	u := h.URL + hostPath(ctx, r.path)
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	var rd io.Reader
	if r.body != nil {
		b, err := json.Marshal(r.body)
		if err != nil {
			return nil, fmt.Errorf("hub: %s %s: %w", r.method, r.path, err)
		}
		rd = bytes.NewReader(b)
	} else if r.raw != nil {
		rd = r.raw
	}
	req, err := http.NewRequestWithContext(ctx, r.method, u, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+h.token)
	req.Header.Set("X-Client-ID", o.ClientID)
	if o.TraySecret != "" {
		req.Header.Set(hub.TraySecretHeader, o.TraySecret)
	}
	if o.LinkSecret != "" {
		req.Header.Set(hub.LinkSecretHeader, o.LinkSecret)
		if linkSurface != "" {
			req.Header.Set(hub.LinkSurfaceHeader, linkSurface)
		}
	}
	if r.body != nil {
		req.Header.Set("Content-Type", "application/json")
	} else if r.raw != nil {
		req.Header.Set("Content-Type", r.rawType)
	}
	for k, v := range r.header {
		req.Header[k] = v
	}
	return req, nil
}

// send sends r and returns the hub's answer, whatever its status. It
// never sends the token to a process that has not proven it knows it
// (proof.go). When the hub cannot be reached, is not proven or answers
// 401, the client reads the data dir again (a data-dir client) or the
// token file again (a hub found by Discover) and, if it now names another
// hub or token (a restart, a rotation), sends r once more. A transport
// failure is an *UnreachableError, a failed proof a *NotHubError.
func (c *Client) send(ctx context.Context, r request) (*http.Response, error) {
	h, err := c.current()
	if err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		var resp *http.Response
		err := c.ensureProven(ctx, h)
		if err == nil {
			var req *http.Request
			if req, err = c.newHTTPRequest(ctx, h, r); err != nil {
				return nil, err
			}
			resp, err = c.httpClient().Do(req)
		}
		if ctx.Err() != nil {
			if err == nil {
				resp.Body.Close()
			}
			return nil, ctx.Err()
		}
		if err != nil {
			c.forgetProof()
		}
		final := func() (*http.Response, error) {
			var ue *UnreachableError
			var he *Error
			if nh, ok := asNotHub(err); ok {
				return nil, nh
			}
			if errors.As(err, &ue) || errors.As(err, &he) { // from Healthz
				return nil, err
			}
			if err != nil {
				return nil, &UnreachableError{h.URL, err}
			}
			return resp, nil
		}
		retry := err != nil || resp.StatusCode == http.StatusUnauthorized
		if !retry || attempt > 0 || r.raw != nil {
			return final()
		}
		nh, changed := c.refresh(h)
		if !changed { // nothing changed: this is the answer
			return final()
		}
		if err == nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
			resp.Body.Close()
		}
		h = nh
	}
}

// call sends r and decodes a 2xx answer into out (nil: the body is
// discarded). Any other status is an *Error.
func (c *Client) call(ctx context.Context, r request, out any) error {
	resp, err := c.send(ctx, r)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return decodeError(resp)
	}
	if out == nil {
		_, err := io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
		return err
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxAnswer)).Decode(out); err != nil {
		return fmt.Errorf("hub: %s %s: decoding the answer: %w", r.method, r.path, err)
	}
	return nil
}

// refresh reads the data dir again (a data-dir client) or h's token file
// (a hub found by Discover): the hub to call now, and whether it differs
// from h.
func (c *Client) refresh(h Hub) (Hub, bool) {
	if c.dataDir != "" {
		nh, err := c.Rediscover()
		return nh, err == nil && (nh.Discovery != h.Discovery || nh.token != h.token)
	}
	nh, changed := h.rereadToken()
	if changed {
		c.setToken(nh)
	}
	return nh, changed
}
