package engine

import (
	"context"
	"encoding/json"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// delegatingClient is the acp.Client of a thread whose owner serves some
// fs methods: those go to the owner as client requests while a stream of
// the owner is attached to the thread; the others, and every one while the
// owner is away (the user drives the thread from the window after closing
// the editor), go to the hub's own file system, confined as for any thread
// (threadClient.ReadTextFile, guard.go). What the editor serves is the
// editor's business: the hub passes those requests on unchecked. Terminals do not fall back: a terminal lives on one side, so a
// thread whose owner hosts terminals gets an error for them while the
// owner is away.
type delegatingClient struct {
	*threadClient
	caps hub.ClientCapabilities
}

// delegatingTerminals is a delegatingClient whose owner also hosts every
// terminal: being an acp.TerminalHost, it replaces the hub's terminals.
type delegatingTerminals struct{ *delegatingClient }

var (
	_ acp.FileSystem   = (*delegatingClient)(nil)
	_ acp.TerminalHost = (*delegatingTerminals)(nil)
)

// ownerAttached reports whether a stream of the thread's owner receives its
// events, so that a client request can be answered.
func (d *delegatingClient) ownerAttached() bool {
	return d.e.bus.Attached(d.thread.ID, d.thread.ClientID)
}

// forward sends req to the thread's owner and decodes its result.
func forward[Resp any](ctx context.Context, c *threadClient, method string, req any) (Resp, error) {
	var out Resp
	if err := c.holdForBudget(ctx, method); err != nil { // spend.go
		return out, err
	}
	raw, err := c.e.clientRequest(ctx, c, method, req)
	if err != nil {
		return out, err
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return out, acp.NewError(acp.CodeInternalError, "switchboard: the editor's answer to %s is malformed: %v", method, err)
	}
	return out, nil
}

func (d *delegatingClient) ReadTextFile(ctx context.Context, req acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	if !d.caps.FS.ReadTextFile || !d.ownerAttached() {
		return d.threadClient.ReadTextFile(ctx, req)
	}
	if err := d.holdForCheckpoint(ctx); err != nil { // snapshots.go
		return acp.ReadTextFileResponse{}, err
	}
	return forward[acp.ReadTextFileResponse](ctx, d.threadClient, hub.MethodReadTextFile, req)
}

func (d *delegatingClient) WriteTextFile(ctx context.Context, req acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	if !d.caps.FS.WriteTextFile || !d.ownerAttached() {
		return d.threadClient.WriteTextFile(ctx, req)
	}
	if err := d.holdForCheckpoint(ctx); err != nil { // snapshots.go
		return acp.WriteTextFileResponse{}, err
	}
	return forward[acp.WriteTextFileResponse](ctx, d.threadClient, hub.MethodWriteTextFile, req)
}

func (d *delegatingTerminals) CreateTerminal(ctx context.Context, req acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	if err := d.holdForCheckpoint(ctx); err != nil { // snapshots.go
		return acp.CreateTerminalResponse{}, err
	}
	return forward[acp.CreateTerminalResponse](ctx, d.threadClient, "terminal/create", req)
}

func (d *delegatingTerminals) TerminalOutput(ctx context.Context, req acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return forward[acp.TerminalOutputResponse](ctx, d.threadClient, "terminal/output", req)
}

func (d *delegatingTerminals) WaitForTerminalExit(ctx context.Context, req acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return forward[acp.WaitForTerminalExitResponse](ctx, d.threadClient, "terminal/wait_for_exit", req)
}

func (d *delegatingTerminals) KillTerminal(ctx context.Context, req acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return forward[acp.KillTerminalResponse](ctx, d.threadClient, "terminal/kill", req)
}

func (d *delegatingTerminals) ReleaseTerminal(ctx context.Context, req acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return forward[acp.ReleaseTerminalResponse](ctx, d.threadClient, "terminal/release", req)
}
