package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// Flush batching: when events are waiting, up to this many (or this many
// bytes) are written before one flush.
const (
	maxBatchEvents = 1024
	maxBatchBytes  = 256 << 10
)

var pingFrame = []byte(": ping\n\n")

// shutdownWriteGrace is how long, once Shutdown starts, a stream's writes
// may still take: a client that stopped reading is cut off after it.
const shutdownWriteGrace = time.Second

// threadEvents is GET /v1/threads/{id}/events: the thread's stored events
// after the resume point (default: from the start), then live ones.
func (s *Server) threadEvents(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	s.serveEvents(w, r, c, r.PathValue("id"), 0)
}

// allEvents is GET /v1/events: every event the caller may see after the
// resume point (default: live events only), across threads.
func (s *Server) allEvents(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	s.serveEvents(w, r, c, "", -1)
}

func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request, c hub.Caller, threadID string, def int64) {
	after, err := resumePoint(r, def)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	release, err := s.acquireStream(c)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	defer release()
	sub, err := s.subscribe(r.Context(), c, threadID, after)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	defer sub.Close()
	s.stream(w, r, sub, nil)
}

// resumePoint returns the seq to resume after: the Last-Event-ID header
// when present and non-empty (an integer ≥ 0), else ?after (an integer
// ≥ -1, -1 meaning live events only), else def. Last-Event-ID wins because
// a reconnecting EventSource keeps its original URL, ?after included, and
// sends its newer position in the header.
func resumePoint(r *http.Request, def int64) (int64, error) {
	if v := strings.TrimSpace(r.Header.Get("Last-Event-ID")); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return 0, errorf(hub.CodeInvalidArgument, "Last-Event-ID must be an event seq (an integer ≥ 0)")
		}
		return n, nil
	}
	if q := r.URL.Query(); q.Has("after") {
		n, err := strconv.ParseInt(q.Get("after"), 10, 64)
		if err != nil || n < -1 {
			return 0, errorf(hub.CodeInvalidArgument, "after must be an event seq (an integer ≥ 0, or -1 for live events only)")
		}
		return n, nil
	}
	return def, nil
}

// stream writes sub's events as SSE until the request ends, the Server
// shuts down, the subscription closes, a resync event is written (the
// subscriber fell behind: the client reconnects with its last id), or keep
// says an event was the last. keep (nil: every event) picks the events to
// write. Waiting events are written in one batch and flushed once. An
// idle stream gets ": ping" every PingInterval. The caller closes sub.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, sub eventStream, keep func(hub.Event) (write, last bool)) {
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // a stream has no write timeout
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead || rc.Flush() != nil {
		return
	}
	// On Shutdown, a Write blocked on a client that stopped reading (its
	// socket buffers full) would hold the server up until Shutdown's
	// deadline: a write deadline makes it fail. It leaves a second for
	// the clean end of a healthy stream (the final chunk).
	returned := make(chan struct{})
	defer close(returned)
	go func() {
		select {
		case <-s.closing:
			_ = rc.SetWriteDeadline(time.Now().Add(shutdownWriteGrace))
		case <-returned:
		}
	}()
	ping := time.NewTicker(s.ping)
	defer ping.Stop()
	events := sub.Events()
	buf := make([]byte, 0, 64<<10)
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.closing:
			return
		case <-ping.C:
			if _, err := w.Write(pingFrame); err != nil || rc.Flush() != nil {
				return
			}
		case e, ok := <-events:
			if !ok {
				return
			}
			var end bool
			buf, end = s.appendEvent(buf[:0], e, keep)
		drain:
			for n := 1; !end && n < maxBatchEvents && len(buf) < maxBatchBytes; n++ {
				select {
				case e, ok := <-events:
					if !ok {
						end = true
						break drain
					}
					buf, end = s.appendEvent(buf, e, keep)
				default:
					break drain
				}
			}
			if len(buf) > 0 {
				if _, err := w.Write(buf); err != nil || rc.Flush() != nil {
					return
				}
				ping.Reset(s.ping)
			}
			if end {
				return
			}
			if cap(buf) > 4*maxBatchBytes {
				buf = make([]byte, 0, 64<<10) // do not keep one huge event's buffer
			}
		}
	}
}

// appendEvent appends e's SSE frame to buf if keep wants it, and reports
// whether the stream ends after it (a resync always ends it). An event
// over Limits.LiveEventBytes is written cut (hub.CutEvent):
//
//	id: <seq>
//	event: <type>
//	data: <json>
func (s *Server) appendEvent(buf []byte, e hub.Event, keep func(hub.Event) (bool, bool)) ([]byte, bool) {
	last := e.Type == hub.EventResync
	if keep != nil && !last {
		var write bool
		if write, last = keep(e); !write {
			return buf, last
		}
	}
	start := len(buf)
	if e.Seq > 0 {
		buf = append(buf, "id: "...)
		buf = strconv.AppendInt(buf, e.Seq, 10)
		buf = append(buf, '\n')
	}
	buf = append(buf, "event: "...)
	buf = append(buf, e.Type...)
	buf = append(buf, "\ndata: "...)
	at := len(buf)
	// The common case: the wire form straight into the buffer.
	buf, err := e.AppendJSON(buf)
	if limit := s.currentLimits().LiveEventBytes; err == nil && limit > 0 && len(buf)-at > limit && e.Type != hub.EventClientRequest {
		var data []byte
		data, _, err = hub.CutEvent(e, limit)
		s.log.Debug("httpapi: event sent cut: larger than limits.liveEventBytes", "seq", e.Seq, "type", e.Type, "thread", e.ThreadID)
		buf = append(buf[:at], data...)
	}
	if err == nil && strings.ContainsAny(e.Type, "\r\n") {
		err = errBadEventType
	}
	if err != nil {
		s.log.Error("httpapi: event not sent", "seq", e.Seq, "type", e.Type, "err", err)
		return buf[:start], last
	}
	if bytes.ContainsAny(buf[at:], "\r\n") {
		// Only whitespace inside JSON can be a raw newline; a payload
		// stored pretty-printed would break the frame.
		var c bytes.Buffer
		if err := json.Compact(&c, buf[at:]); err == nil {
			buf = append(buf[:at], c.Bytes()...)
		}
	}
	buf = append(buf, "\n\n"...)
	return buf, last
}

var errBadEventType = errorf(hub.CodeInternal, "event type has a line break")
