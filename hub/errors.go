package hub

import (
	"errors"
	"fmt"
	"time"
)

// Error codes. Adapters map them to their transport (hub/httpapi: HTTP
// status; app: Wails error strings) in one table each.
const (
	CodeInvalidArgument     = "INVALID_ARGUMENT"
	CodeUnauthorized        = "UNAUTHORIZED"
	CodeForbidden           = "FORBIDDEN"
	CodeNotFound            = "NOT_FOUND"
	CodeConflict            = "CONFLICT"
	CodeGone                = "GONE"
	CodeTooManyRequests     = "TOO_MANY_REQUESTS"
	CodeTimeout             = "TIMEOUT"
	CodeUpstreamUnavailable = "UPSTREAM_UNAVAILABLE"
	CodeInternal            = "INTERNAL"
	// CodePayloadTooLarge (413, an extension of API.md): a request body, or
	// an answer (an unpaged history), over its size limit.
	CodePayloadTooLarge = "PAYLOAD_TOO_LARGE"
)

// Error is an error with a code a client can act on. Message is safe to show
// to the user; it never holds a secret.
type Error struct {
	Code       string
	Message    string
	Details    map[string]any
	RetryAfter time.Duration // TOO_MANY_REQUESTS only
	Err        error         // the cause, for logs; never sent to clients
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return e.Code + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// ErrDiskFull is in the chain of a store error caused by the data dir's
// disk being full (SQLITE_FULL, ENOSPC): the write may succeed once space
// returns. Such an error is INTERNAL with details.reason ReasonDiskFull.
var ErrDiskFull = errors.New("the data dir's disk is full")

// ReasonDiskFull is details.reason of a store error caused by a full disk.
const ReasonDiskFull = "DISK_FULL"

// Errorf returns an *Error with code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of err: that of the *Error it is or wraps,
// INTERNAL for any other error, "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// ErrorMessage returns the user-facing message of err; for an error
// without a code, a generic one (the details go to the log, not the client).
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "internal error"
}
