package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// Error is an answer of the API other than 2xx: its status and its
// {"error":{"code","message","details"}} body. It unwraps to a *hub.Error
// with the same code and message, so hub.ErrorCode works on it.
type Error struct {
	Status  int
	Code    string // "" when the body was not the API's error shape
	Message string
	Details map[string]any
	// RetryAfter is the Retry-After of a 429, else 0.
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	switch {
	case e.Message == "" && e.Code == "":
		return fmt.Sprintf("hub: HTTP %d", e.Status)
	case e.Message == "":
		return fmt.Sprintf("hub: %s (HTTP %d)", e.Code, e.Status)
	}
	return fmt.Sprintf("hub: %s: %s", e.Code, e.Message)
}

// Unwrap is the hub.Error of the same code and message.
func (e *Error) Unwrap() error {
	return &hub.Error{Code: e.Code, Message: e.Message, Details: e.Details, RetryAfter: e.RetryAfter}
}

// IsCode reports whether err is (or wraps) an API answer with that code.
func IsCode(err error, code string) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// StatusOf is the HTTP status of the API answer err is, or 0 when err is
// not one (the hub could not be reached, or the answer was unreadable).
func StatusOf(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

// maxErrorBody caps how much of an error answer is read.
const maxErrorBody = 1 << 20

// decodeError reads resp (not 2xx) into an *Error; it does not close the
// body.
func decodeError(resp *http.Response) *Error {
	var body struct {
		Error struct {
			Code    string         `json:"code"`
			Message string         `json:"message"`
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	_ = json.Unmarshal(b, &body)
	e := &Error{Status: resp.StatusCode, Code: body.Error.Code, Message: body.Error.Message, Details: body.Error.Details}
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
		e.RetryAfter = time.Duration(s) * time.Second
	}
	return e
}
