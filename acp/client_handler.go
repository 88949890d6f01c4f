package acp

import (
	"context"
	"encoding/json"

	jsonv2 "github.com/go-json-experiment/json"
)

// clientHandler routes what an agent sends to the ClientConn's Client,
// FileSystem and TerminalHost.
type clientHandler ClientConn

// decode reads the params of a request from the agent strictly: member
// names match case-sensitively and a repeated name is invalid params, so
// that what the hub decides on ("kind") is what every other reader of
// the same bytes reads ("KIND" is another, unknown member). Strings must
// be valid UTF-8.
func decode[T any](params json.RawMessage) (T, error) {
	var v T
	if err := jsonv2.Unmarshal(params, &v); err != nil {
		return v, NewError(CodeInvalidParams, "invalid params: %v", err)
	}
	return v, nil
}

// serve decodes params as Req and calls fn.
func serve[Req, Resp any](ctx context.Context, params json.RawMessage, fn func(context.Context, Req) (Resp, error)) (any, error) {
	req, err := decode[Req](params)
	if err != nil {
		return nil, err
	}
	return fn(ctx, req)
}

func (h *clientHandler) HandleRequest(ctx context.Context, method string, params json.RawMessage) (any, error) {
	c := (*ClientConn)(h)
	switch method {
	case "session/request_permission":
		req, err := decode[RequestPermissionRequest](params)
		if err != nil {
			return nil, err
		}
		return c.requestPermission(ctx, req)
	case MethodElicitationCreate:
		return c.createElicitation(ctx, params)
	case "fs/read_text_file":
		return serve(ctx, params, c.fs.ReadTextFile)
	case "fs/write_text_file":
		return serve(ctx, params, c.fs.WriteTextFile)
	case "terminal/create":
		return serve(ctx, params, c.terms.CreateTerminal)
	case "terminal/output":
		return serve(ctx, params, c.terms.TerminalOutput)
	case "terminal/wait_for_exit":
		return serve(ctx, params, c.terms.WaitForTerminalExit)
	case "terminal/kill":
		return serve(ctx, params, c.terms.KillTerminal)
	case "terminal/release":
		return serve(ctx, params, c.terms.ReleaseTerminal)
	}
	c.log.Debug("acp: unknown request from agent", "method", method)
	return nil, NewError(CodeMethodNotFound, "method not found: %s", method)
}

func (h *clientHandler) HandleNotification(ctx context.Context, method string, params json.RawMessage) {
	c := (*ClientConn)(h)
	if method == MethodElicitationComplete {
		c.completeElicitation(params)
		return
	}
	if method != "session/update" {
		// Vendor notifications (_auth/status_update, qwen/notify/…) are
		// allowed by the protocol and ignored.
		c.log.Debug("acp: ignoring notification", "method", method)
		return
	}
	var n SessionNotification
	if err := unmarshal(params, &n); err != nil {
		c.log.Warn("acp: skipping malformed session/update", "err", err, "preview", preview(params))
		return
	}
	if n.Update.Subagent != nil {
		c.trackSubagent(n.SessionID, n.Update.Subagent.SessionID)
	}
	c.client.SessionUpdate(ctx, n)
}

// localTerminals runs terminals as real processes through ClientConn.local,
// defaulting their cwd to the session's, each as the Client allows it when
// it is a TerminalAuthorizer.
type localTerminals struct{ c *ClientConn }

func (t localTerminals) CreateTerminal(ctx context.Context, req CreateTerminalRequest) (CreateTerminalResponse, error) {
	cwd, ok := t.c.sessionCwd(req.SessionID)
	if !ok {
		return CreateTerminalResponse{}, NewError(CodeResourceNotFound, "unknown session %q", req.SessionID)
	}
	a, ok := t.c.client.(TerminalAuthorizer)
	if !ok {
		return t.c.local.Create(ctx, cwd, req)
	}
	if err := checkCreate(req); err != nil {
		return CreateTerminalResponse{}, err
	}
	dir := cwd
	if req.Cwd != "" {
		dir = req.Cwd
	}
	g, err := a.AuthorizeTerminal(ctx, req, dir)
	if err != nil {
		return CreateTerminalResponse{}, err
	}
	return t.c.local.CreateWith(ctx, cwd, req, g)
}

func (t localTerminals) TerminalOutput(ctx context.Context, req TerminalOutputRequest) (TerminalOutputResponse, error) {
	return t.c.local.Output(ctx, req)
}

func (t localTerminals) WaitForTerminalExit(ctx context.Context, req WaitForTerminalExitRequest) (WaitForTerminalExitResponse, error) {
	return t.c.local.WaitForExit(ctx, req)
}

func (t localTerminals) KillTerminal(ctx context.Context, req KillTerminalRequest) (KillTerminalResponse, error) {
	return t.c.local.Kill(ctx, req)
}

func (t localTerminals) ReleaseTerminal(ctx context.Context, req ReleaseTerminalRequest) (ReleaseTerminalResponse, error) {
	return t.c.local.Release(ctx, req)
}
