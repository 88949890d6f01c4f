package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/switchboard-hub/switchboard/hub"
)

// Transport-only error codes. They extend hub's codes for the two failures
// that happen before a request reaches the Service (docs/API.md "Requests
// and errors").
const (
	CodeUnsupportedMediaType = "UNSUPPORTED_MEDIA_TYPE" // 415
	CodePayloadTooLarge      = hub.CodePayloadTooLarge  // 413
)

// statusOf is the one code→status table. An error whose code is not in it
// is answered as INTERNAL.
var statusOf = map[string]int{
	hub.CodeInvalidArgument:     http.StatusBadRequest,
	hub.CodeUnauthorized:        http.StatusUnauthorized,
	hub.CodeForbidden:           http.StatusForbidden,
	hub.CodeNotFound:            http.StatusNotFound,
	hub.CodeConflict:            http.StatusConflict,
	hub.CodeGone:                http.StatusGone,
	hub.CodeTooManyRequests:     http.StatusTooManyRequests,
	hub.CodeTimeout:             http.StatusGatewayTimeout,
	hub.CodeUpstreamUnavailable: http.StatusBadGateway,
	hub.CodeInternal:            http.StatusInternalServerError,
	CodeUnsupportedMediaType:    http.StatusUnsupportedMediaType,
	CodePayloadTooLarge:         http.StatusRequestEntityTooLarge,
}

// StatusOf returns the HTTP status for an error code (500 for an unknown
// code).
func StatusOf(code string) int {
	if s, ok := statusOf[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// ErrorBody is the wire form of every error answer:
// {"error":{"code","message","details"}}. Details is always an object.
type ErrorBody struct {
	Error ErrorObject `json:"error"`
}

// ErrorObject is the inside of an ErrorBody.
type ErrorObject struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details"`
}

// errorf builds a coded error for the adapter's own refusals.
func errorf(code, format string, args ...any) *hub.Error {
	return &hub.Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// writeError answers err through the code→status table. A *hub.Error keeps
// its code, message and details; any other error is a 500 with a generic
// message, and its text goes to the log only. TOO_MANY_REQUESTS carries
// Retry-After in whole seconds (at least 1).
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	body := ErrorBody{Error: ErrorObject{Code: hub.CodeInternal, Message: "internal error", Details: map[string]any{}}}
	var he *hub.Error
	if errors.As(err, &he) {
		if _, known := statusOf[he.Code]; known {
			body.Error.Code = he.Code
			body.Error.Message = he.Message
			if len(he.Details) > 0 {
				body.Error.Details = he.Details
			}
		}
	}
	status := StatusOf(body.Error.Code)
	if status == http.StatusTooManyRequests {
		secs := 1
		if he != nil && he.RetryAfter > 0 {
			secs = int(math.Ceil(he.RetryAfter.Seconds()))
		}
		w.Header().Set("Retry-After", strconv.Itoa(secs))
	}
	if status >= 500 {
		level := slog.LevelError
		if r.Context().Err() != nil {
			level = slog.LevelDebug // the client is gone; nobody reads this answer
		}
		s.log.Log(r.Context(), level, "httpapi: request failed", "method", r.Method, "path", logPath(r), "code", body.Error.Code, "err", err)
	}
	s.writeJSON(w, r, status, body)
}

// writeJSON answers v as JSON with status. A value that does not marshal is
// a 500 (and a log line), never a half-written body.
func (s *Server) writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		s.log.Error("httpapi: encoding answer failed", "method", r.Method, "path", logPath(r), "err", err)
		status = http.StatusInternalServerError
		b = []byte(`{"error":{"code":"INTERNAL","message":"internal error","details":{}}}`)
	}
	writeJSONBytes(w, status, b)
}

// writeJSONBytes answers b, a JSON value, with status and a final newline.
func writeJSONBytes(w http.ResponseWriter, status int, b []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(status)
	_, _ = w.Write(b)
	_, _ = w.Write([]byte{'\n'})
}

// decodeJSON reads the request body into v: exactly one JSON value,
// unknown fields refused, nothing after it. Its errors are INVALID_ARGUMENT
// with a message naming the problem, or PAYLOAD_TOO_LARGE past the limit.
// The body limit and Content-Type are checked by the route's middleware.
func decodeJSON(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decodeError(err)
	}
	var extra json.RawMessage
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return decodeError(err)
		}
		return errorf(hub.CodeInvalidArgument, "request body has data after the JSON value")
	}
	return nil
}

func decodeError(err error) error {
	var (
		tooBig  *http.MaxBytesError
		syntax  *json.SyntaxError
		typeErr *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &tooBig):
		return errorf(CodePayloadTooLarge, "request body is larger than %d bytes", tooBig.Limit)
	case errors.Is(err, io.EOF):
		return errorf(hub.CodeInvalidArgument, "request body is empty: a JSON object is required")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errorf(hub.CodeInvalidArgument, "malformed JSON: unexpected end of body")
	case errors.As(err, &syntax):
		return errorf(hub.CodeInvalidArgument, "malformed JSON at byte %d: %v", syntax.Offset, err)
	case errors.As(err, &typeErr):
		if typeErr.Field == "" {
			return errorf(hub.CodeInvalidArgument, "request body must be a JSON object")
		}
		return errorf(hub.CodeInvalidArgument, "field %q must be %s, not %s", typeErr.Field, jsonKind(typeErr.Type.Kind().String()), typeErr.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return errorf(hub.CodeInvalidArgument, "unknown field %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	return errorf(hub.CodeInvalidArgument, "malformed JSON: %v", err)
}

// jsonKind names a Go kind the way a JSON author thinks of it.
func jsonKind(k string) string {
	switch k {
	case "string":
		return "a string"
	case "slice", "array":
		return "an array"
	case "map", "struct":
		return "an object"
	case "bool":
		return "a boolean"
	}
	return "a number"
}
