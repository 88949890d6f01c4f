package acp

import (
	"encoding/json"
	"errors"
	"fmt"
)

// JSON-RPC 2.0 and ACP error codes.
const (
	CodeParseError       = -32700
	CodeInvalidRequest   = -32600
	CodeMethodNotFound   = -32601
	CodeInvalidParams    = -32602
	CodeInternalError    = -32603
	CodeAuthRequired     = -32000 // ACP: authentication required
	CodeResourceNotFound = -32002 // ACP: resource (file, terminal, session) not found
	CodeRequestCancelled = -32800 // ACP: request cancelled ($/cancel_request)
)

// Error is an error carried in a JSON-RPC response. When a Call returns an
// *Error, the peer sent it; a local failure (timeout, cancellation, closed
// connection) is never an *Error, so callers can tell the two apart with
// errors.As.
//
// Handlers may return an *Error to choose the code sent back; any other error
// is sent as CodeInternalError with its message.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string {
	if len(e.Data) > 0 {
		return fmt.Sprintf("acp: peer error %d: %s (%s)", e.Code, e.Message, e.Data)
	}
	return fmt.Sprintf("acp: peer error %d: %s", e.Code, e.Message)
}

// NewError returns an *Error with the given code and message.
func NewError(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode reports the JSON-RPC code of err when it is (or wraps) an *Error.
func ErrorCode(err error) (int, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e.Code, true
	}
	return 0, false
}

// ErrUnsupported is returned (wrapped) by client methods the agent did not
// advertise in its capabilities, such as LoadSession without loadSession.
var ErrUnsupported = errors.New("acp: not supported by the agent")
