// Package client is the Go client of the hub's HTTP/SSE API (docs/API.md),
// and the only Go code that calls it: the tray, the editor bridge and the
// end-to-end tests and benchmarks all go through it.
//
// A Client finds its hub through <data-dir>/hub.json and the token file
// (Discover), sends the token, X-Client-ID and, when asked, ?scope=all on
// every /v1 request, turns error answers into *Error, and reads event
// streams (Stream) with a cap on each line, resume from the last id: and,
// as an option, reconnection with backoff.
//
// It imports hub (the API's types) and the standard library only.
package client

import (
	"bytes"
	"context"
	"encoding/json"
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
	// HTTP sends the requests. nil: a client without proxy (the hub is on
	// loopback) and without an overall timeout (streams last as long as
	// a turn); each call is bounded by its context.
	HTTP *http.Client
	// MaxEventBytes caps one line of an event stream; 0 means
	// DefaultMaxEventBytes. A longer line ends the stream with
	// ErrLineTooLong.
	MaxEventBytes int
	// IdleTimeout drops a stream silent for that long; 0 means
	// DefaultIdleTimeout.
	IdleTimeout time.Duration
}

var defaultHTTP = &http.Client{Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 8}}

// Client calls one hub's API. It is safe for concurrent use.
//
// A Client made by New finds its hub in a data dir on first use, and again
// when the hub does not answer or refuses the token: a hub restarted on
// another port, or with a new token, is found on the next call. A Client
// made by ForHub always calls the same hub.
type Client struct {
	dataDir string // "" for ForHub

	mu    sync.Mutex
	opts  Options
	hub   Hub
	found bool
}

// New is a client of the hub running on dataDir.
func New(dataDir string, o Options) *Client { return &Client{dataDir: dataDir, opts: o} }

// ForHub is a client of h.
func ForHub(h Hub, o Options) *Client { return &Client{opts: o, hub: h, found: true} }

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

func (c *Client) httpClient() *http.Client {
	if h := c.options().HTTP; h != nil {
		return h
	}
	return defaultHTTP
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
// answers /healthz. The error wraps ErrNoHub when no hub runs, is a
// *DataDirError when the data dir's files are unreadable, and an
// *UnreachableError when the hub named there does not answer.
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

// Healthz checks that a hub answers at the address (no token needed).
func (c *Client) Healthz(ctx context.Context) error {
	h, err := c.current()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.URL+"/healthz", nil)
	if err != nil {
		return err
	}
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return &UnreachableError{h.URL, err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return decodeError(resp)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	return nil
}

// request is one API request before it is sent.
type request struct {
	method, path string
	query        url.Values
	body         any         // marshalled as JSON when not nil
	header       http.Header // extra headers
}

// newHTTPRequest builds req for hub h with the client's headers.
func (c *Client) newHTTPRequest(ctx context.Context, h Hub, r request) (*http.Request, error) {
	o := c.options()
	q := url.Values{}
	for k, v := range r.query {
		q[k] = v
	}
	if o.All {
		q.Set("scope", "all")
	}
	u := h.URL + r.path
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
	if r.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range r.header {
		req.Header[k] = v
	}
	return req, nil
}

// send sends r and returns the hub's answer, whatever its status. When
// the hub cannot be reached or answers 401, a data-dir client reads the
// data dir again and, if it now names another hub or token (a restart),
// sends r once more to that one. A transport failure is an
// *UnreachableError.
func (c *Client) send(ctx context.Context, r request) (*http.Response, error) {
	h, err := c.current()
	if err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		req, err := c.newHTTPRequest(ctx, h, r)
		if err != nil {
			return nil, err
		}
		resp, err := c.httpClient().Do(req)
		if ctx.Err() != nil {
			if err == nil {
				resp.Body.Close()
			}
			return nil, ctx.Err()
		}
		retry := err != nil || resp.StatusCode == http.StatusUnauthorized
		if !retry || attempt > 0 || c.dataDir == "" {
			if err != nil {
				return nil, &UnreachableError{h.URL, err}
			}
			return resp, nil
		}
		nh, derr := c.Rediscover()
		if derr != nil || (nh.Discovery == h.Discovery && nh.token == h.token) {
			if err != nil { // nothing changed: this is the answer
				return nil, &UnreachableError{h.URL, err}
			}
			return resp, nil
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
