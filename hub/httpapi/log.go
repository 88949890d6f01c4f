package httpapi

import (
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// logRequests writes one line per request when it ends: method, path,
// status, duration, bytes written, and the client id when there is one.
// Never the query string (GET /auth carries the token there), the
// Authorization header or a cookie.
func (s *Server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			status := sw.status
			if status == 0 {
				status = http.StatusOK
			}
			level := slog.LevelInfo
			if status >= 500 {
				level = slog.LevelWarn
			}
			attrs := []slog.Attr{
				slog.String("method", r.Method),
				slog.String("path", logPath(r)),
				slog.Int("status", status),
				slog.Duration("duration", time.Since(start)),
				slog.Int64("bytes", sw.bytes),
			}
			if id := r.Header.Get("X-Client-ID"); id != "" && validClientID(id) {
				attrs = append(attrs, slog.String("clientId", id))
			}
			s.log.LogAttrs(r.Context(), level, "http request", attrs...)
		}()
		next.ServeHTTP(sw, r)
	})
}

// logPath is the request's path for logs: no query string, at most 256
// bytes.
func logPath(r *http.Request) string {
	p := r.URL.Path
	if len(p) > 256 {
		p = p[:256] + "…"
	}
	return p
}

// recoverPanics turns a handler's panic into a 500 INTERNAL (if nothing
// was written yet) and a log line with the stack. http.ErrAbortHandler
// passes through.
func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.Error("httpapi: handler panic", "method", r.Method, "path", logPath(r), "panic", v, "stack", string(debug.Stack()))
			if sw, ok := w.(*statusWriter); !ok || sw.status == 0 {
				s.writeError(w, r, &hub.Error{Code: hub.CodeInternal, Message: "internal error"})
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// statusWriter records the status and counts the bytes of an answer.
// Unwrap lets http.ResponseController reach the connection (Flush,
// SetWriteDeadline).
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 && code >= 200 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Flush lets code that asserts http.Flusher stream through the wrapper.
func (w *statusWriter) Flush() { _ = http.NewResponseController(w.ResponseWriter).Flush() }

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
