//go:build linux

package systest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
	"github.com/switchboard-hub/switchboard/hub/client"
)

// The client side of the end-to-end tests: requests as a well-behaved
// client sends them (raw, since the tests check statuses and headers),
// the API's resources as a client decodes them, and event streams read
// with hub/client's reader.

// reply is an HTTP answer, read whole.
type reply struct {
	status int
	header http.Header
	body   []byte
}

func (r reply) String() string { return fmt.Sprintf("%d %s", r.status, tail(string(r.body), 2048)) }

// decode unmarshals the body into v.
func (r reply) decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decoding %s: %v", r, err)
	}
}

// errorCode is the code of an {"error":{"code"}} body.
func (r reply) errorCode() string {
	var e struct {
		Error struct{ Code string } `json:"error"`
	}
	json.Unmarshal(r.body, &e)
	return e.Error.Code
}

// request builds a request to the hub with the headers of a well-behaved
// client (bearer token, X-Client-ID alice, Content-Type for a body).
// hdr are name, value pairs applied on top: an empty value removes the
// header; "Host" sets the Host. body is sent as is when []byte or string,
// else as JSON.
func (h *hubProc) request(ctx context.Context, method, path string, body any, hdr ...string) *http.Request {
	h.t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		r = bytes.NewReader(b)
	case string:
		r = strings.NewReader(b)
	case io.Reader:
		r = b
	default:
		j, err := json.Marshal(b)
		if err != nil {
			h.t.Fatal(err)
		}
		r = bytes.NewReader(j)
	}
	req, err := http.NewRequestWithContext(ctx, method, h.url+path, r)
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+h.token)
	req.Header.Set("X-Client-ID", "alice")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if len(hdr)%2 != 0 {
		h.t.Fatalf("odd header list %q", hdr)
	}
	for i := 0; i < len(hdr); i += 2 {
		k, v := hdr[i], hdr[i+1]
		switch {
		case strings.EqualFold(k, "Host"):
			req.Host = v
		case v == "":
			req.Header.Del(k)
		default:
			req.Header.Set(k, v)
		}
	}
	return req
}

// do sends a request (see request) and reads the whole answer; it fails
// the test on a transport error or after 60 s.
func (h *hubProc) do(method, path string, body any, hdr ...string) reply {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	resp, err := h.client.Do(h.request(ctx, method, path, body, hdr...))
	if err != nil {
		h.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatalf("%s %s: reading the answer: %v", method, path, err)
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: b}
}

// call is do that wants status want and decodes the answer into out
// (if not nil).
func (h *hubProc) call(method, path string, body any, want int, out any, hdr ...string) reply {
	h.t.Helper()
	r := h.do(method, path, body, hdr...)
	if r.status != want {
		h.t.Fatalf("%s %s: got %s, want %d", method, path, r, want)
	}
	if out != nil {
		r.decode(h.t, out)
	}
	return r
}

// ---- API resources, as a client decodes them -------------------------------

type apiThread struct {
	ID       string `json:"id"`
	Agent    string `json:"agent"`
	Cwd      string `json:"cwd"`
	Title    string `json:"title"`
	ClientID string `json:"clientId"`
	Status   string `json:"status"`
}

type apiTurn struct {
	ID         string     `json:"id"`
	ThreadID   string     `json:"threadId"`
	Status     string     `json:"status"`
	Input      string     `json:"input"`
	Output     string     `json:"output"`
	StopReason string     `json:"stopReason"`
	Error      string     `json:"error"`
	EndedAt    string     `json:"endedAt"`
	Events     []apiEvent `json:"events"`
}

type apiOption struct {
	OptionID string `json:"optionId"`
	Name     string `json:"name"`
	Kind     string `json:"kind"`
}

type apiPermission struct {
	ID        string          `json:"id"`
	ThreadID  string          `json:"threadId"`
	TurnID    string          `json:"turnId"`
	Status    string          `json:"status"`
	ToolCall  json.RawMessage `json:"toolCall"`
	Options   []apiOption     `json:"options"`
	Deadline  string          `json:"deadline"`
	DecidedBy string          `json:"decidedBy"`
	OptionID  string          `json:"optionId"`
	Kind      string          `json:"kind"`
	Request   *apiRequest     `json:"request"`
}

// apiRequest is a permission's request: the hub's own description.
type apiRequest struct {
	Kind    string   `json:"kind"`
	Title   string   `json:"title"`
	Command string   `json:"command"`
	Argv    []string `json:"argv"`
	Cwd     string   `json:"cwd"`
	Env     []struct {
		Name, Value string
		Hidden      bool
	} `json:"env"`
	Paths []string `json:"paths"`
	Flags []string `json:"flags"`
}

// apiEvent is an event's data: the common fields and those of the
// payloads the tests read.
type apiEvent struct {
	Seq        int64          `json:"seq"`
	Type       string         `json:"type"`
	ThreadID   string         `json:"threadId"`
	TurnID     string         `json:"turnId"`
	At         string         `json:"at"`
	Input      string         `json:"input"`
	Text       string         `json:"text"`
	Code       string         `json:"code"`
	Message    string         `json:"message"`
	Turn       *apiTurn       `json:"turn"`
	Permission *apiPermission `json:"permission"`
}

func (h *hubProc) newThread(agent, cwd string, hdr ...string) apiThread {
	h.t.Helper()
	var r struct{ Thread apiThread }
	h.call("POST", "/v1/threads", map[string]string{"agent": agent, "cwd": cwd}, 201, &r, hdr...)
	if r.Thread.ID == "" || r.Thread.Status != "idle" {
		h.t.Fatalf("created thread %+v", r.Thread)
	}
	return r.Thread
}

// startTurn starts a turn with JSON (202) and returns it.
func (h *hubProc) startTurn(threadID, input string, hdr ...string) apiTurn {
	h.t.Helper()
	var r struct{ Turn apiTurn }
	h.call("POST", "/v1/threads/"+threadID+"/turns", map[string]string{"input": input}, 202, &r, hdr...)
	if r.Turn.ID == "" || r.Turn.Status != "running" || r.Turn.Input != input {
		h.t.Fatalf("started turn %+v", r.Turn)
	}
	return r.Turn
}

func (h *hubProc) history(threadID string, events bool, hdr ...string) []apiTurn {
	h.t.Helper()
	var r struct{ Turns []apiTurn }
	path := "/v1/threads/" + threadID + "/history"
	if events {
		path += "?includeEvents=true"
	}
	h.call("GET", path, nil, 200, &r, hdr...)
	return r.Turns
}

// nextStoredSeq returns the seq of the thread's first stored event after
// after, or -1 when it has none: read off a thread stream resumed there
// (the unpaged history of a flooded thread is over the hub's 64 MiB
// bound). Stored events come at once; quiet says there is none.
func (h *hubProc) nextStoredSeq(threadID string, after int64, quiet time.Duration) int64 {
	h.t.Helper()
	s := h.mustSSE("GET", "/v1/threads/"+threadID+"/events?after="+strconv.FormatInt(after, 10), nil)
	defer s.close()
	s.once.Do(func() { go s.read() })
	for {
		select {
		case m := <-s.msgs:
			if m.event != "" && m.ev.Seq > 0 {
				return m.ev.Seq
			}
		case <-s.end:
			return -1
		case <-time.After(quiet):
			return -1
		}
	}
}

func (h *hubProc) thread(id string, hdr ...string) apiThread {
	h.t.Helper()
	var r struct{ Thread apiThread }
	h.call("GET", "/v1/threads/"+id, nil, 200, &r, hdr...)
	return r.Thread
}

// turn returns a turn of the thread from its history (with events).
func (h *hubProc) turn(threadID, turnID string) apiTurn {
	h.t.Helper()
	for _, tu := range h.history(threadID, true) {
		if tu.ID == turnID {
			return tu
		}
	}
	h.t.Fatalf("turn %s not in the history of thread %s", turnID, threadID)
	return apiTurn{}
}

// waitTurn polls the history until the turn has ended, and returns it
// (without its events: see turn).
func (h *hubProc) waitTurn(threadID, turnID string, timeout time.Duration) apiTurn {
	h.t.Helper()
	tu, ok := waitFirst(timeout, func() []apiTurn { return h.history(threadID, false) },
		func(tu apiTurn) bool { return tu.ID == turnID && tu.Status != "running" })
	if !ok {
		h.t.Fatalf("turn %s still running after %v", turnID, timeout)
	}
	return tu
}

// permissions lists permissions (status "" for all).
func (h *hubProc) permissions(status string, hdr ...string) []apiPermission {
	h.t.Helper()
	var r struct{ Permissions []apiPermission }
	path := "/v1/permissions"
	if status != "" {
		path += "?status=" + url.QueryEscape(status)
	}
	h.call("GET", path, nil, 200, &r, hdr...)
	return r.Permissions
}

// permission returns the permission id, whatever its status.
func (h *hubProc) permission(id string) apiPermission {
	h.t.Helper()
	for _, p := range h.permissions("") {
		if p.ID == id {
			return p
		}
	}
	h.t.Fatalf("permission %s not listed", id)
	return apiPermission{}
}

// waitPermission polls until the turn has a pending permission.
func (h *hubProc) waitPermission(turnID string, timeout time.Duration) apiPermission {
	h.t.Helper()
	p, ok := waitFirst(timeout, func() []apiPermission { return h.permissions("pending") },
		func(p apiPermission) bool { return p.TurnID == turnID })
	if !ok {
		h.t.Fatalf("no pending permission for turn %s within %v", turnID, timeout)
	}
	return p
}

// decide posts a decision and returns the answer.
func (h *hubProc) decide(id string, decision any, hdr ...string) reply {
	h.t.Helper()
	return h.do("POST", "/v1/permissions/"+id, decision, hdr...)
}

// ---- SSE -------------------------------------------------------------------

// sseMsg is one SSE message as sent: its fields and its data decoded.
type sseMsg struct {
	id, event, data string
	ev              apiEvent
}

// sseStream reads an SSE answer. Reading starts at the first next, so a
// test can hold a stream open without reading it.
type sseStream struct {
	t      testing.TB
	resp   *http.Response
	cancel context.CancelFunc
	once   sync.Once
	msgs   chan sseMsg
	end    chan struct{} // closed when the reader stops; err is then set
	err    error
	stop   chan struct{}
	closed sync.Once
}

// sse sends a request that wants text/event-stream. A 200 answer must be
// text/event-stream; any other answer is returned as a reply with a nil
// stream.
func (h *hubProc) sse(method, path string, body any, hdr ...string) (*sseStream, reply) {
	h.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req := h.request(ctx, method, path, body, append([]string{"Accept", "text/event-stream"}, hdr...)...)
	resp, err := h.client.Do(req)
	if err != nil {
		cancel()
		h.t.Fatalf("%s %s: %v", method, path, err)
	}
	if resp.StatusCode != 200 {
		defer cancel()
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return nil, reply{status: resp.StatusCode, header: resp.Header, body: b}
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		cancel()
		resp.Body.Close()
		h.t.Fatalf("%s %s: 200 with Content-Type %q, want text/event-stream", method, path, ct)
	}
	s := &sseStream{t: h.t, resp: resp, cancel: cancel, msgs: make(chan sseMsg, 256), end: make(chan struct{}), stop: make(chan struct{})}
	h.t.Cleanup(s.close)
	return s, reply{status: 200, header: resp.Header}
}

// mustSSE is sse that wants a stream.
func (h *hubProc) mustSSE(method, path string, body any, hdr ...string) *sseStream {
	h.t.Helper()
	s, r := h.sse(method, path, body, hdr...)
	if s == nil {
		h.t.Fatalf("%s %s: got %s, want an event stream", method, path, r)
	}
	return s
}

// read parses the stream with hub/client's reader (the one SSE parser of
// the Go code) and decodes each event as a test reads it.
func (s *sseStream) read() {
	defer close(s.end)
	r := client.NewReader(s.resp.Body, 0)
	for {
		f, err := r.Next()
		if err != nil {
			s.err = err // io.EOF: the server ended the stream
			return
		}
		m := sseMsg{id: f.ID, event: f.Event, data: f.Data}
		if m.data != "" {
			if err := json.Unmarshal([]byte(m.data), &m.ev); err != nil {
				s.err = fmt.Errorf("event data is not JSON: %v: %q", err, m.data)
				return
			}
		}
		select {
		case s.msgs <- m:
		case <-s.stop:
			s.err = errors.New("closed")
			return
		}
	}
}

// next returns the next message; ok is false at the end of the stream.
// It fails the test after timeout.
func (s *sseStream) next(timeout time.Duration) (m sseMsg, ok bool) {
	s.t.Helper()
	s.once.Do(func() { go s.read() })
	select {
	case m := <-s.msgs: // the common case, without a timer
		return m, true
	default:
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case m := <-s.msgs:
		return m, true
	case <-s.end:
		select {
		case m := <-s.msgs: // sent before the end
			return m, true
		default:
		}
		if s.err != io.EOF {
			s.t.Fatalf("event stream broke: %v", s.err)
		}
		return sseMsg{}, false
	case <-timer.C:
		s.t.Fatalf("no event within %v", timeout)
	}
	return sseMsg{}, false
}

// until reads messages until one satisfies pred and returns all read,
// that one last. It fails the test if the stream ends first.
func (s *sseStream) until(timeout time.Duration, pred func(sseMsg) bool) []sseMsg {
	s.t.Helper()
	deadline := time.Now().Add(timeout)
	var got []sseMsg
	for {
		m, ok := s.next(time.Until(deadline))
		if !ok {
			s.t.Fatalf("stream ended after %d events without the one awaited (last: %+v)", len(got), lastMsg(got))
		}
		got = append(got, m)
		if pred(m) {
			return got
		}
	}
}

// wantEnd checks that the stream ends (the server closes it) within
// timeout, and returns what came before the end.
func (s *sseStream) wantEnd(timeout time.Duration) []sseMsg {
	s.t.Helper()
	deadline := time.Now().Add(timeout)
	var got []sseMsg
	for {
		m, ok := s.next(time.Until(deadline))
		if !ok {
			return got
		}
		got = append(got, m)
	}
}

// close disconnects.
func (s *sseStream) close() {
	s.closed.Do(func() {
		close(s.stop)
		s.cancel()
		s.resp.Body.Close()
	})
}

// lastMsg is the last of ms, or a zero message.
func lastMsg(ms []sseMsg) sseMsg {
	if len(ms) == 0 {
		return sseMsg{}
	}
	return ms[len(ms)-1]
}

// isType returns a predicate for an event of type typ (and, if given,
// turn id).
func isType(typ string, turnID ...string) func(sseMsg) bool {
	return func(m sseMsg) bool {
		return m.event == typ && (len(turnID) == 0 || m.ev.TurnID == turnID[0])
	}
}

// types lists the event types of ms.
func types(ms []sseMsg) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.event
	}
	return out
}

// waitFor reports whether cond holds within timeout (testkit.Until: the
// one way these tests wait on the hub's state).
func waitFor(timeout time.Duration, cond func() bool) bool {
	return testkit.Until(timeout, cond)
}

// waitFirst waits until list returns an item that match accepts, and
// returns the first such item.
func waitFirst[T any](timeout time.Duration, list func() []T, match func(T) bool) (T, bool) {
	var found T
	ok := waitFor(timeout, func() bool {
		items := list()
		i := slices.IndexFunc(items, match)
		if i >= 0 {
			found = items[i]
		}
		return i >= 0
	})
	return found, ok
}
