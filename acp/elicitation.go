package acp

import (
	"context"
	"encoding/json"
)

// Elicitation: an agent's structured question to the user
// (elicitation/create). The method is in ACP's schema since the July 2026
// revision; the acp-go-sdk the project pins (v0.13.5) still generates it
// as Unstable*, so this package, which never imports the SDK, speaks it
// from the schema: the params are
//
//	{sessionId, toolCallId?, mode: "form", message, requestedSchema}
//	{sessionId, toolCallId?, mode: "url", message, elicitationId, url}
//
// and the answer {action: "accept", content?} | {action: "decline"} |
// {action: "cancel"}. The client advertises clientCapabilities.elicitation
// {form: {}, url: {}} only when its Client is an Elicitor; otherwise the
// method is not found. elicitation/complete {elicitationId} (the agent
// saying a URL flow ended) goes to the Client when it is an
// ElicitationCompleter, and is ignored otherwise.

// MethodElicitationCreate is the agent's request; MethodElicitationComplete
// its notification that a URL-mode elicitation's flow has ended.
const (
	MethodElicitationCreate   = "elicitation/create"
	MethodElicitationComplete = "elicitation/complete"
)

// ElicitationCompleter is implemented by a Client that closes a URL-mode
// question when the agent says its flow is done. ElicitationComplete is
// called on the connection's reader: it must not block.
type ElicitationCompleter interface {
	ElicitationComplete(ctx context.Context, elicitationID string)
}

// completeElicitation hands elicitation/complete to the Client; a
// notification without an elicitationId is dropped with a log line.
func (c *ClientConn) completeElicitation(params json.RawMessage) {
	ec, ok := c.client.(ElicitationCompleter)
	if !ok {
		return
	}
	var n struct {
		ElicitationID string `json:"elicitationId"`
	}
	if unmarshal(params, &n) != nil || n.ElicitationID == "" {
		c.log.Warn("acp: skipping malformed elicitation/complete", "preview", preview(params))
		return
	}
	ec.ElicitationComplete(context.Background(), n.ElicitationID)
}

// ElicitationCapabilities is clientCapabilities.elicitation: a non-nil
// mode is supported.
type ElicitationCapabilities struct {
	Form *struct{} `json:"form,omitempty"`
	URL  *struct{} `json:"url,omitempty"`
}

// CreateElicitationRequest is the params of elicitation/create. The
// schema is kept raw: the Elicitor checks it.
type CreateElicitationRequest struct {
	SessionID       string          `json:"sessionId"`
	ToolCallID      string          `json:"toolCallId,omitempty"`
	Mode            string          `json:"mode"`
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	ElicitationID   string          `json:"elicitationId,omitempty"`
	URL             string          `json:"url,omitempty"`
}

// CreateElicitationResponse is the answer: Action "accept" (with Content
// for a form), "decline" or "cancel".
type CreateElicitationResponse struct {
	Action  string                     `json:"action"`
	Content map[string]json.RawMessage `json:"content,omitempty"`
}

// ElicitCancelled is the answer when nobody answered.
func ElicitCancelled() CreateElicitationResponse { return CreateElicitationResponse{Action: "cancel"} }

// Elicitor is implemented by a Client that asks the user the agent's
// questions. CreateElicitation is called concurrently, with a ctx that
// ends as RequestPermission's does (the answer is then "cancel"); an error
// reaches the agent as a JSON-RPC error (an *Error keeps its code).
type Elicitor interface {
	CreateElicitation(ctx context.Context, req CreateElicitationRequest) (CreateElicitationResponse, error)
}

// createElicitation serves elicitation/create through the Client when it
// is an Elicitor, answering "cancel" as soon as Cancel runs for the
// session.
func (c *ClientConn) createElicitation(ctx context.Context, params json.RawMessage) (any, error) {
	el, ok := c.client.(Elicitor)
	if !ok {
		return nil, NewError(CodeMethodNotFound, "method not found: %s", MethodElicitationCreate)
	}
	req, err := decode[CreateElicitationRequest](params)
	if err != nil {
		return nil, err
	}
	switch req.Mode {
	case "form", "url":
	default:
		return nil, NewError(CodeInvalidParams, "invalid params: mode must be \"form\" or \"url\", not %q", req.Mode)
	}
	if _, known := c.sessionCwd(req.SessionID); !known {
		return nil, NewError(CodeResourceNotFound, "unknown session %q", req.SessionID)
	}
	resp, err := awaitUser(c, ctx, req.SessionID, ElicitCancelled(), func(ctx context.Context) (CreateElicitationResponse, error) {
		return el.CreateElicitation(ctx, req)
	})
	if err != nil {
		return nil, err
	}
	switch resp.Action {
	case "accept", "decline", "cancel":
		return resp, nil
	}
	return nil, NewError(CodeInternalError, "client gave no elicitation action")
}
