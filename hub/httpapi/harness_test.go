package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
	"github.com/switchboard-hub/switchboard/hub"
)

const testToken = "5f0c6e1a9b2d4c8e7f3a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e"

// harness is a Server over a fake Service, on real HTTP at 127.0.0.1:0.
type harness struct {
	t      testing.TB
	fake   *fake
	srv    *Server
	ts     *httptest.Server
	client *http.Client
	url    string // http://127.0.0.1:<port>
	port   int
	logs   *testkit.Buffer
}

// newHarness starts a Server over the fake; each mod is a func(*Options)
// or a func(*hub.Services) (the fake is the Service, no other capability
// is there unless a mod adds it).
func newHarness(t testing.TB, mod ...any) *harness {
	t.Helper()
	h := &harness{t: t, fake: newFake(), logs: &testkit.Buffer{}}
	svcs := hub.Services{Service: h.fake}
	opts := Options{
		Token:        testToken,
		Version:      "1.2.3-test",
		Logger:       slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		PingInterval: time.Hour,
	}
	for _, m := range mod {
		switch m := m.(type) {
		case func(*Options):
			m(&opts)
		case func(*hub.Services):
			m(&svcs)
		default:
			t.Fatalf("newHarness: a mod is a %T", m)
		}
	}
	h.srv = New(svcs, opts)
	h.ts = httptest.NewUnstartedServer(h.srv)
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h.ts.Listener.Close()
	h.ts.Listener = l
	h.port = l.Addr().(*net.TCPAddr).Port
	h.srv.SetPort(h.port)
	h.ts.Start()
	t.Cleanup(h.ts.Close)
	t.Cleanup(func() { _ = h.srv.Shutdown(context.Background()) }) // runs first: ends streams
	h.url = "http://127.0.0.1:" + strconv.Itoa(h.port)
	h.client = h.ts.Client()
	h.client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return h
}

// reqOpt changes a request before it is sent.
type reqOpt func(*http.Request)

// withHeader sets a header; an empty value removes it.
func withHeader(k, v string) reqOpt {
	return func(r *http.Request) {
		if v == "" {
			r.Header.Del(k)
			return
		}
		r.Header.Set(k, v)
	}
}

func withHost(host string) reqOpt { return func(r *http.Request) { r.Host = host } }

var noToken = withHeader("Authorization", "")

// request builds a request with the defaults of a well-behaved client: the
// bearer token, X-Client-ID c1, and Content-Type application/json when
// there is a body.
func (h *harness) request(method, path, body string, opts ...reqOpt) *http.Request {
	h.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, h.url+path, rd)
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("X-Client-ID", "c1")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for _, o := range opts {
		o(req)
	}
	return req
}

// reply is a finished answer.
type reply struct {
	status int
	header http.Header
	body   []byte
}

func (r reply) code() string {
	var b ErrorBody
	_ = json.Unmarshal(r.body, &b)
	return b.Error.Code
}

func (h *harness) send(req *http.Request) reply {
	h.t.Helper()
	resp, err := h.client.Do(req)
	if err != nil {
		h.t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatalf("%s %s: reading body: %v", req.Method, req.URL.Path, err)
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: b}
}

func (h *harness) call(method, path, body string, opts ...reqOpt) reply {
	h.t.Helper()
	return h.send(h.request(method, path, body, opts...))
}

// mustJSON decodes a reply's body into v after checking its status.
func (h *harness) mustJSON(r reply, status int, v any) {
	h.t.Helper()
	if r.status != status {
		h.t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
	if v != nil {
		if err := json.Unmarshal(r.body, v); err != nil {
			h.t.Fatalf("decoding %s: %v", r.body, err)
		}
	}
}

// newThread creates a thread as client.
func (h *harness) newThread(client string) string {
	h.t.Helper()
	var a struct{ Thread struct{ ID string } }
	h.mustJSON(h.call("POST", "/v1/threads", `{"agent":"echo","cwd":"/tmp/project"}`, withHeader("X-Client-ID", client)), 201, &a)
	return a.Thread.ID
}

// frame is one SSE message (or a comment) as read off the wire.
type frame struct {
	raw                  string
	id, event, data, cmt string
}

// sseStream reads frames from an SSE answer on a goroutine. It is
// deliberately independent of hub/client (which every Go client uses):
// it checks the bytes on the wire — the id:/event:/data: framing, pings,
// resync — so that a fault in the one client cannot hide one here.
type sseStream struct {
	t      testing.TB
	resp   *http.Response
	frames chan frame
}

// openStream sends req and expects an SSE answer.
func (h *harness) openStream(req *http.Request) *sseStream {
	h.t.Helper()
	resp, err := h.client.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		h.t.Fatalf("not a stream: %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	s := &sseStream{t: h.t, resp: resp, frames: make(chan frame, 1<<16)}
	h.t.Cleanup(func() { resp.Body.Close() })
	go s.read()
	return s
}

func (s *sseStream) read() {
	defer close(s.frames)
	br := bufio.NewReader(s.resp.Body)
	var f frame
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return
		}
		f.raw += line
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			s.frames <- f
			f = frame{}
		case strings.HasPrefix(line, ":"):
			f.cmt = strings.TrimSpace(line[1:])
		case strings.HasPrefix(line, "id: "):
			f.id = line[4:]
		case strings.HasPrefix(line, "event: "):
			f.event = line[7:]
		case strings.HasPrefix(line, "data: "):
			f.data = line[6:]
		}
	}
}

// next returns the next frame; ok is false when the stream ended.
func (s *sseStream) next() (frame, bool) {
	s.t.Helper()
	select {
	case f, ok := <-s.frames:
		return f, ok
	case <-time.After(10 * time.Second):
		s.t.Fatal("no SSE frame within 10s")
		return frame{}, false
	}
}

// nextEvent skips comments.
func (s *sseStream) nextEvent() frame {
	s.t.Helper()
	for {
		f, ok := s.next()
		if !ok {
			s.t.Fatal("stream ended")
		}
		if f.event != "" {
			return f
		}
	}
}

// rest reads until the stream ends and returns the events.
func (s *sseStream) rest() []frame {
	s.t.Helper()
	var out []frame
	for {
		f, ok := s.next()
		if !ok {
			return out
		}
		if f.event != "" {
			out = append(out, f)
		}
	}
}

// quiet checks that no event arrives for d.
func (s *sseStream) quiet(d time.Duration) {
	s.t.Helper()
	select {
	case f, ok := <-s.frames:
		if ok && f.event != "" {
			s.t.Fatalf("unexpected event %q", f.raw)
		}
	case <-time.After(d):
	}
}

// waitFor polls cond for up to 5s.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(5 * time.Second)
	for !cond() {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
