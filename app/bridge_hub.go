package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// hubClient is the editor bridge's client of the hub's HTTP/SSE API. It
// finds the hub through <data-dir>/hub.json and reads the token file on
// every (re)connection, so a hub restarted on another port, or with a new
// token, is found again on the next request.
type hubClient struct {
	dataDir  string
	clientID string // X-Client-ID: acp-<editor name>
	http     *http.Client

	mu    sync.Mutex
	url   string // "" until discovered
	token string
}

func newHubClient(dataDir string) *hubClient {
	return &hubClient{
		dataDir:  dataDir,
		clientID: "acp-editor",
		// No proxy: the hub is on loopback. No overall timeout: SSE
		// streams last as long as a turn; requests carry contexts.
		http: &http.Client{Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 4}},
	}
}

// setClient sets the X-Client-ID from the editor's clientInfo name.
func (c *hubClient) setClient(editor string) {
	c.mu.Lock()
	c.clientID = bridgeClientID(editor)
	c.mu.Unlock()
}

// bridgeClientID is "acp-<name>" with every character outside
// [A-Za-z0-9._-] replaced by '-', at most 64 characters.
func bridgeClientID(editor string) string {
	if editor == "" {
		editor = "editor"
	}
	b := []byte("acp-" + editor)
	for i, ch := range b {
		ok := ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '.' || ch == '_' || ch == '-'
		if !ok {
			b[i] = '-'
		}
	}
	if len(b) > 64 {
		b = b[:64]
	}
	return string(b)
}

// hubCallError is a failed hub request: Status 0 means the hub could not
// be reached at all.
type hubCallError struct {
	Status  int
	Code    string // the API's error code, when the hub answered one
	Message string
}

func (e *hubCallError) Error() string { return e.Message }

// errNoHub says why no hub could be found.
type errNoHub struct{ reason string }

func (e errNoHub) Error() string { return e.reason }

// discover (re)reads hub.json and the token file.
func (c *hubClient) discover() error {
	d, err := ReadDiscovery(c.dataDir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return errNoHub{fmt.Sprintf("no Switchboard hub is running (no %s): start `switchboard serve` or the desktop app", filepath.Join(c.dataDir, discoveryFile))}
		}
		return errNoHub{fmt.Sprintf("cannot read the hub's discovery file: %v", err)}
	}
	if d.URL == "" {
		return errNoHub{fmt.Sprintf("%s names no url", filepath.Join(c.dataDir, discoveryFile))}
	}
	tok, err := os.ReadFile(filepath.Join(c.dataDir, tokenFile))
	if err != nil {
		return errNoHub{fmt.Sprintf("cannot read the hub's token: %v", err)}
	}
	c.mu.Lock()
	c.url, c.token = strings.TrimRight(d.URL, "/"), strings.TrimSpace(string(tok))
	c.mu.Unlock()
	return nil
}

// baseURL is the hub's URL as last discovered.
func (c *hubClient) baseURL() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.url
}

// healthy reports whether the discovered hub answers /healthz.
func (c *hubClient) healthy(ctx context.Context) bool {
	c.mu.Lock()
	url := c.url
	c.mu.Unlock()
	if url == "" {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", url+"/healthz", nil)
	if err != nil {
		return false
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return false
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// connect finds a hub that answers, or says why there is none.
func (c *hubClient) connect(ctx context.Context) error {
	if err := c.discover(); err != nil {
		return err
	}
	if !c.healthy(ctx) {
		c.mu.Lock()
		url := c.url
		c.mu.Unlock()
		return errNoHub{fmt.Sprintf("the hub named in %s (%s) does not answer: is it running?", filepath.Join(c.dataDir, discoveryFile), url)}
	}
	return nil
}

// newRequest builds an API request with the token, the client id and the
// editor's Via.
func (c *hubClient) newRequest(ctx context.Context, method, path string, body any) (*http.Request, error) {
	c.mu.Lock()
	url, token, id := c.url, c.token, c.clientID
	c.mu.Unlock()
	if url == "" {
		if err := c.discover(); err != nil {
			return nil, err
		}
		c.mu.Lock()
		url, token = c.url, c.token
		c.mu.Unlock()
	}
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url+path, r)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("X-Client-ID", id)
	req.Header.Set("X-Switchboard-Via", "editor")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// send sends a request. When the hub cannot be reached, it re-reads
// hub.json once (the hub may have restarted elsewhere) and retries.
func (c *hubClient) send(ctx context.Context, method, path string, body any, accept string) (*http.Response, error) {
	var lastErr error
	for attempt := 0; attempt < 2; attempt++ {
		if attempt > 0 {
			if err := c.discover(); err != nil {
				return nil, err
			}
		}
		req, err := c.newRequest(ctx, method, path, body)
		if err != nil {
			return nil, err
		}
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		resp, err := c.http.Do(req)
		if err == nil && resp.StatusCode == http.StatusUnauthorized && attempt == 0 {
			// The hub may have restarted with a new token: read it again.
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			lastErr = errors.New("401 Unauthorized")
			continue
		}
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		lastErr = err
	}
	return nil, &hubCallError{Message: fmt.Sprintf("the hub does not answer (%v): is it still running?", lastErr)}
}

// do sends a JSON request and decodes a 2xx answer into out (may be nil).
func (c *hubClient) do(ctx context.Context, method, path string, body, out any) error {
	resp, err := c.send(ctx, method, path, body, "")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return &hubCallError{Message: fmt.Sprintf("reading the hub's answer: %v", err)}
	}
	if resp.StatusCode/100 != 2 {
		return c.apiError(resp.StatusCode, b)
	}
	if out != nil && len(b) > 0 {
		if err := json.Unmarshal(b, out); err != nil {
			return &hubCallError{Status: resp.StatusCode, Message: fmt.Sprintf("decoding the hub's answer: %v", err)}
		}
	}
	return nil
}

// apiError turns an error answer into a *hubCallError with a message an
// editor can show.
func (c *hubClient) apiError(status int, body []byte) *hubCallError {
	var e struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	json.Unmarshal(body, &e)
	msg := e.Error.Message
	if msg == "" {
		msg = fmt.Sprintf("HTTP %d", status)
	}
	if status == http.StatusUnauthorized {
		msg = fmt.Sprintf("the hub refused the token in %s (%s): was the token file replaced while the hub ran?", filepath.Join(c.dataDir, tokenFile), msg)
	}
	return &hubCallError{Status: status, Code: e.Error.Code, Message: msg}
}

// ---- SSE -------------------------------------------------------------------

// sseReader parses a text/event-stream into hub events.
type sseReader struct {
	br *bufio.Reader
}

func newSSEReader(r io.Reader) *sseReader { return &sseReader{br: bufio.NewReaderSize(r, 64<<10)} }

// next returns the next event (resync included, as an event of that
// type). It returns io.EOF (or the read error) when the stream ends.
func (s *sseReader) next() (hub.Event, error) {
	var typ string
	var data []byte
	for {
		line, err := s.br.ReadBytes('\n')
		if err != nil {
			if err == io.EOF && len(line) == 0 {
				return hub.Event{}, io.EOF
			}
			if err != io.EOF {
				return hub.Event{}, err
			}
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			if err == io.EOF {
				return hub.Event{}, io.EOF
			}
			if data == nil && typ == "" {
				continue
			}
			var ev hub.Event
			if len(data) > 0 {
				if jerr := json.Unmarshal(data, &ev); jerr != nil {
					typ, data = "", nil
					continue // not ours to judge: skip a malformed event
				}
			}
			if ev.Type == "" {
				ev.Type = typ
			}
			return ev, nil
		}
		if line[0] == ':' {
			continue // comment (ping)
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			typ = string(value)
		case "data":
			if data != nil {
				data = append(data, '\n')
			}
			data = append(data, value...)
		}
	}
}
