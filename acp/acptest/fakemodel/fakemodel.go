// Package fakemodel is a scripted fake LLM server for driving real coding
// agents offline in tests. It speaks the OpenAI chat-completions format
// (POST …/chat/completions) and the Anthropic messages format
// (POST …/messages), streaming (SSE) and not, plus the side endpoints agents
// call at start (…/models, …/messages/count_tokens).
//
// Each model request consumes the next entry of the script given to Start.
// Requests that declare no tools (title generation, summaries, "next
// speaker" checks…) are side requests: by default they are answered with
// plain text without consuming the script, so they cannot steal a scripted
// tool call. See Server.SetSide and Reply.When.
//
// The server listens on 127.0.0.1 only and is closed by tb.Cleanup.
package fakemodel

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// ModelID is the model name the server advertises on …/models.
const ModelID = "fake-model"

// maxBody caps a request body.
const maxBody = 64 << 20

// NoTools is the default side-request predicate: the request declares no
// tools.
func NoTools(r *Recorded) bool { return !r.HasTools() }

// Server is a running fake model server.
type Server struct {
	// URL is the base URL, "http://127.0.0.1:PORT", without "/v1". OpenAI
	// clients want URL+"/v1" as base URL; Anthropic clients want URL.
	URL string

	tb   testing.TB
	srv  *httptest.Server
	done chan struct{} // closed at cleanup: releases Hang replies

	mu         sync.Mutex
	script     []Reply
	used       []bool
	last       int    // index of the last consumed entry, -1 if none
	exhausted  *Reply // nil: repeat the last consumed entry
	side       func(*Recorded) bool
	sideReply  Reply
	requests   []Recorded
	changed    chan struct{} // closed and replaced on every request
	chunkCount int
}

// Start starts a server on 127.0.0.1:0 answering model requests with
// script, in order. Once the script is exhausted it answers Text("done")
// (see SetExhausted, RepeatLast). It panics if a ToolCall's arguments are
// not a JSON object.
func Start(tb testing.TB, script ...Reply) *Server {
	tb.Helper()
	for _, r := range script {
		r.validate()
	}
	done := Text("done")
	s := &Server{
		tb:         tb,
		done:       make(chan struct{}),
		script:     append([]Reply(nil), script...),
		used:       make([]bool, len(script)),
		last:       -1,
		exhausted:  &done,
		side:       NoTools,
		sideReply:  Text("ok"),
		changed:    make(chan struct{}),
		chunkCount: 3,
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("fakemodel: listen: %v", err)
	}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serveHTTP))
	s.srv.Listener.Close()
	s.srv.Listener = ln
	s.srv.Start()
	s.URL = s.srv.URL
	tb.Cleanup(func() {
		close(s.done)
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
	return s
}

// Push appends replies to the script.
func (s *Server) Push(replies ...Reply) {
	for _, r := range replies {
		r.validate()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, replies...)
	s.used = append(s.used, make([]bool, len(replies))...)
}

// SetExhausted sets the answer given once no script entry is left (or none
// matches). The default is Text("done").
func (s *Server) SetExhausted(r Reply) {
	r.validate()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.exhausted = &r
}

// RepeatLast makes an exhausted script repeat its last consumed entry
// (Text("done") if none was consumed).
func (s *Server) RepeatLast() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.exhausted = nil
}

// SetSide sets which requests are side requests and what answers them when
// no script entry with a When predicate claims them. Side requests never
// consume script entries without a predicate. The default is
// SetSide(NoTools, Text("ok")); SetSide(nil, Reply{}) makes every request
// a script request.
func (s *Server) SetSide(pred func(*Recorded) bool, r Reply) {
	r.validate()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.side, s.sideReply = pred, r
}

// SetChunks sets into how many deltas streamed text and tool arguments are
// split (default 3).
func (s *Server) SetChunks(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chunkCount = max(n, 1)
}

// Remaining returns how many script entries are not consumed yet.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, u := range s.used {
		if !u {
			n++
		}
	}
	return n
}

// Requests returns a copy of every request received so far, in order.
func (s *Server) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Recorded(nil), s.requests...)
}

// ModelRequests returns the model requests (Format != "") received so far.
// With side true it returns the side requests only, otherwise only the
// others.
func (s *Server) ModelRequests(side bool) []Recorded {
	var out []Recorded
	for _, r := range s.Requests() {
		if r.Format != "" && r.Side == side {
			out = append(out, r)
		}
	}
	return out
}

// WaitFor blocks until cond, called with every request so far, returns
// true, or ctx ends.
func (s *Server) WaitFor(ctx context.Context, cond func([]Recorded) bool) ([]Recorded, error) {
	for {
		s.mu.Lock()
		reqs := append([]Recorded(nil), s.requests...)
		ch := s.changed
		s.mu.Unlock()
		if cond(reqs) {
			return reqs, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return reqs, fmt.Errorf("fakemodel: waiting for requests: %w", ctx.Err())
		}
	}
}

func (s *Server) serveHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(io.LimitReader(req.Body, maxBody))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rec := Recorded{
		Time:   time.Now(),
		Method: req.Method,
		Path:   req.URL.Path,
		Query:  req.URL.RawQuery,
		Header: req.Header.Clone(),
		Body:   body,
		Script: -1,
	}
	path := strings.TrimSuffix(req.URL.Path, "/")
	switch {
	case req.Method == http.MethodPost && strings.HasSuffix(path, "/chat/completions"):
		rec.Format = OpenAI
	case req.Method == http.MethodPost && strings.HasSuffix(path, "/messages/count_tokens"):
		s.record(&rec, "count_tokens")
		writeJSON(w, http.StatusOK, map[string]any{"input_tokens": tokens(body)})
		return
	case req.Method == http.MethodPost && strings.HasSuffix(path, "/messages"):
		rec.Format = Anthropic
	case req.Method == http.MethodGet && strings.HasSuffix(path, "/models"):
		s.record(&rec, "models")
		writeJSON(w, http.StatusOK, map[string]any{
			"object": "list", "data": []any{modelObject(ModelID)},
			"has_more": false, "first_id": ModelID, "last_id": ModelID,
		})
		return
	case req.Method == http.MethodGet && strings.Contains(path, "/models/"):
		s.record(&rec, "model")
		writeJSON(w, http.StatusOK, modelObject(path[strings.LastIndex(path, "/")+1:]))
		return
	default:
		s.record(&rec, "404")
		s.tb.Logf("fakemodel: unexpected request %s %s (%d bytes): 404", req.Method, req.URL, len(body))
		writeJSON(w, http.StatusNotFound, map[string]any{
			"type":  "error",
			"error": map[string]any{"type": "not_found_error", "message": "fakemodel: no such endpoint " + req.URL.Path},
		})
		return
	}
	parseModelRequest(&rec)
	reply, chunkCount := s.choose(&rec)
	s.tb.Logf("fakemodel: #%d %s %s stream=%v tools=%d side=%v → %s", rec.Seq, req.Method, req.URL.Path, rec.Stream, len(rec.Tools), rec.Side, rec.Reply)

	switch {
	case reply.hang:
		select {
		case <-req.Context().Done():
		case <-s.done:
		}
	case reply.status != 0:
		writeError(w, rec.Format, reply.status, reply.errMsg)
	case rec.Format == OpenAI:
		writeOpenAI(w, &rec, reply, chunkCount)
	default:
		writeAnthropic(w, &rec, reply, chunkCount)
	}
}

// choose picks the answer to a model request and records the request.
func (s *Server) choose(rec *Recorded) (Reply, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	side := s.side != nil && s.side(rec)
	var reply Reply
	found := false
	for i, r := range s.script {
		if s.used[i] {
			continue
		}
		if !r.matches(rec) || r.match == nil && side {
			continue
		}
		s.used[i], s.last = true, i
		reply, found, rec.Script = r, true, i
		break
	}
	switch {
	case found:
	case side:
		reply, rec.Side = s.sideReply, true
	case s.exhausted != nil:
		reply = *s.exhausted
	case s.last >= 0:
		reply = s.script[s.last]
	default:
		reply = Text("done")
	}
	rec.Reply = reply.String()
	s.recordLocked(rec)
	return reply, s.chunkCount
}

func (s *Server) record(rec *Recorded, reply string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec.Reply = reply
	s.recordLocked(rec)
}

// recordLocked appends rec; s.mu must be held.
func (s *Server) recordLocked(rec *Recorded) {
	rec.Seq = len(s.requests)
	s.requests = append(s.requests, *rec)
	close(s.changed)
	s.changed = make(chan struct{})
}

func modelObject(id string) map[string]any {
	return map[string]any{
		"id": id, "object": "model", "type": "model", "display_name": id,
		"created": 1700000000, "created_at": "2024-01-01T00:00:00Z", "owned_by": "fakemodel",
	}
}

// tokens is a crude token estimate for usage fields.
func tokens(body []byte) int { return len(body)/4 + 1 }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, f Format, status int, msg string) {
	if f == Anthropic {
		writeJSON(w, status, map[string]any{
			"type": "error", "error": map[string]any{"type": "api_error", "message": msg},
		})
		return
	}
	writeJSON(w, status, map[string]any{
		"error": map[string]any{"message": msg, "type": "fake_error", "code": status},
	})
}

// sse writes Server-Sent Events and flushes after each one.
type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func startSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &sse{w: w, f: f}
}

// event writes one event; name "" omits the event: line. v is JSON-encoded
// unless it is a string.
func (e *sse) event(name string, v any) {
	var data string
	if s, ok := v.(string); ok {
		data = s
	} else {
		b, _ := json.Marshal(v)
		data = string(b)
	}
	if name != "" {
		fmt.Fprintf(e.w, "event: %s\n", name)
	}
	fmt.Fprintf(e.w, "data: %s\n\n", data)
	if e.f != nil {
		e.f.Flush()
	}
}
