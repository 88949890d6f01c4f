package tray

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// ClientID is the X-Client-ID the tray sends, and Via the surface it names
// in X-Switchboard-Via, which the hub records as a permission's decidedBy.
const (
	ClientID = "switchboard-tray"
	Via      = "tray"
)

// Files in the data dir (docs/API.md "Finding the hub").
const (
	discoveryFile = "hub.json"
	tokenFile     = "token"
)

// Discovery is <data-dir>/hub.json as the hub writes it. It never holds the
// token.
type Discovery struct {
	URL     string `json:"url"`
	PID     int    `json:"pid"`
	Version string `json:"version"`
	// Window: the hub runs inside the desktop app (launching the app again
	// raises its window).
	Window bool `json:"window,omitempty"`
}

// Hub is a hub found through the data dir: its address and its token. The
// token is unexported and String never shows it, so a Hub may be logged.
type Hub struct {
	Discovery
	token string
}

// String describes h without its token.
func (h Hub) String() string { return fmt.Sprintf("hub %s (pid %d, %s)", h.URL, h.PID, h.Version) }

// LogValue keeps the token out of slog output.
func (h Hub) LogValue() slog.Value { return slog.StringValue(h.String()) }

// ErrNoHub: the data dir has no hub.json, so no hub is running there.
var ErrNoHub = errors.New("no hub is running (no hub.json)")

// DataDirError is a hub.json or token file that cannot be read or makes
// no sense.
type DataDirError struct{ Err error }

func (e *DataDirError) Error() string { return e.Err.Error() }
func (e *DataDirError) Unwrap() error { return e.Err }

// Discover reads <dataDir>/hub.json and <dataDir>/token. The error is
// ErrNoHub (wrapped) when hub.json does not exist, else a *DataDirError.
func Discover(dataDir string) (Hub, error) {
	h, err := discover(dataDir)
	if err != nil && !errors.Is(err, ErrNoHub) {
		err = &DataDirError{err}
	}
	return h, err
}

func discover(dataDir string) (Hub, error) {
	var h Hub
	b, err := os.ReadFile(filepath.Join(dataDir, discoveryFile))
	if errors.Is(err, os.ErrNotExist) {
		return h, fmt.Errorf("%w in %s", ErrNoHub, dataDir)
	}
	if err != nil {
		return h, fmt.Errorf("hub.json: %w", err)
	}
	if err := json.Unmarshal(b, &h.Discovery); err != nil {
		return h, fmt.Errorf("hub.json: %w", err)
	}
	u, err := url.Parse(h.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return h, fmt.Errorf("hub.json: url %q is not an http URL", h.URL)
	}
	h.URL = strings.TrimRight(h.URL, "/")
	t, err := os.ReadFile(filepath.Join(dataDir, tokenFile))
	if err != nil {
		return h, fmt.Errorf("token: %w", err)
	}
	h.token = strings.TrimSpace(string(t))
	if h.token == "" {
		return h, errors.New("token: the token file is empty")
	}
	return h, nil
}

// AuthURL is the address that opens the browser UI with a session cookie
// (GET /auth?token=…). It holds the token: hand it to a browser, never to
// a log.
func (h Hub) AuthURL() string {
	return h.URL + "/auth?token=" + url.QueryEscape(h.token)
}

// APIError is an error answer of the API: {"error":{"code","message"}}.
type APIError struct {
	Status  int
	Code    string
	Message string
}

func (e *APIError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("hub: %d %s", e.Status, e.Code)
	}
	return fmt.Sprintf("hub: %s: %s", e.Code, e.Message)
}

// IsCode reports whether err is an APIError with that code.
func IsCode(err error, code string) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Code == code
}

// Client calls one hub's API. It is safe for concurrent use.
type Client struct {
	Hub  Hub
	HTTP *http.Client // nil: a client without an overall timeout (SSE streams stay open)
}

func (c *Client) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}

// request builds a /v1 request with the tray's headers and ?scope=all.
func (c *Client) request(ctx context.Context, method, path string, query url.Values, body any) (*http.Request, error) {
	if query == nil {
		query = url.Values{}
	}
	query.Set("scope", "all")
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.Hub.URL+path+"?"+query.Encode(), rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.Hub.token)
	req.Header.Set("X-Client-ID", ClientID)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// call sends one JSON request and decodes a 2xx answer into out (nil: the
// body is discarded). Any other status is an *APIError.
func (c *Client) call(ctx context.Context, method, path string, query url.Values, body, out any, extra http.Header) error {
	req, err := c.request(ctx, method, path, query, body)
	if err != nil {
		return err
	}
	for k, v := range extra {
		req.Header[k] = v
	}
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return decodeError(resp)
	}
	if out == nil {
		_, err := io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		return err
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(out); err != nil {
		return fmt.Errorf("hub: %s %s: decoding the answer: %w", method, path, err)
	}
	return nil
}

func decodeError(resp *http.Response) error {
	var e struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	_ = json.Unmarshal(b, &e)
	return &APIError{Status: resp.StatusCode, Code: e.Error.Code, Message: e.Error.Message}
}

// PendingPermissions lists every client's pending permissions.
func (c *Client) PendingPermissions(ctx context.Context) ([]Permission, error) {
	var out struct {
		Permissions []Permission `json:"permissions"`
	}
	err := c.call(ctx, http.MethodGet, "/v1/permissions", url.Values{"status": {"pending"}}, nil, &out, nil)
	return out.Permissions, err
}

// maxThreadPages bounds Threads: the tray needs the running threads, which
// are the most recently active, so the first pages are enough.
const maxThreadPages = 10

// Threads lists every client's threads, newest first (at most
// maxThreadPages pages).
func (c *Client) Threads(ctx context.Context) ([]Thread, error) {
	var all []Thread
	cursor := ""
	for range maxThreadPages {
		q := url.Values{"limit": {"100"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		var out struct {
			Threads    []Thread `json:"threads"`
			NextCursor string   `json:"nextCursor"`
		}
		if err := c.call(ctx, http.MethodGet, "/v1/threads", q, nil, &out, nil); err != nil {
			return all, err
		}
		all = append(all, out.Threads...)
		if out.NextCursor == "" {
			break
		}
		cursor = out.NextCursor
	}
	return all, nil
}

// Thread returns one thread.
func (c *Client) Thread(ctx context.Context, id string) (Thread, error) {
	var out struct {
		Thread Thread `json:"thread"`
	}
	err := c.call(ctx, http.MethodGet, "/v1/threads/"+url.PathEscape(id), nil, nil, &out, nil)
	return out.Thread, err
}

// RunningTurn returns the id of the thread's running turn, "" if none.
func (c *Client) RunningTurn(ctx context.Context, threadID string) (Turn, error) {
	var out struct {
		Turns []Turn `json:"turns"`
	}
	if err := c.call(ctx, http.MethodGet, "/v1/threads/"+url.PathEscape(threadID)+"/history", nil, nil, &out, nil); err != nil {
		return Turn{}, err
	}
	for i := len(out.Turns) - 1; i >= 0; i-- {
		if out.Turns[i].Status == "running" {
			return out.Turns[i], nil
		}
	}
	return Turn{}, nil
}

// Agents lists the agents the hub knows.
func (c *Client) Agents(ctx context.Context) ([]Agent, error) {
	var out struct {
		Agents []Agent `json:"agents"`
	}
	err := c.call(ctx, http.MethodGet, "/v1/agents", nil, nil, &out, nil)
	return out.Agents, err
}

// Decide sends a decision on a permission as the tray (X-Switchboard-Via:
// tray, recorded as decidedBy "tray"). A permission already decided
// answers an APIError with code CONFLICT.
func (c *Client) Decide(ctx context.Context, id string, d Decision) (Permission, error) {
	var body any
	switch {
	case d.OptionID != "" && d.Outcome == "":
		body = map[string]string{"optionId": d.OptionID}
	case d.Outcome != "" && d.OptionID == "":
		body = map[string]string{"outcome": d.Outcome}
	default:
		return Permission{}, fmt.Errorf("tray: a decision needs exactly one of optionId and outcome, got %+v", d)
	}
	var out struct {
		Permission Permission `json:"permission"`
	}
	err := c.call(ctx, http.MethodPost, "/v1/permissions/"+url.PathEscape(id), nil, body, &out,
		http.Header{"X-Switchboard-Via": {Via}})
	return out.Permission, err
}

// CancelTurn cancels a running turn.
func (c *Client) CancelTurn(ctx context.Context, turnID string) error {
	return c.call(ctx, http.MethodPost, "/v1/turns/"+url.PathEscape(turnID)+"/cancel", nil, nil, nil, nil)
}

// Shutdown asks the hub to stop gracefully (POST /v1/shutdown).
func (c *Client) Shutdown(ctx context.Context) error {
	return c.call(ctx, http.MethodPost, "/v1/shutdown", nil, nil, nil, nil)
}

// Healthz checks that a hub answers at the address (no token needed).
func (c *Client) Healthz(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.Hub.URL+"/healthz", nil)
	if err != nil {
		return err
	}
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return decodeError(resp)
	}
	return nil
}
