package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// The hub's side of an agent's fs/* and terminal/create requests, when the
// hub serves them (not an editor: see delegatingClient), confined as
// confine.go says. threadClient is the acp.FileSystem and the
// acp.TerminalAuthorizer of every thread's agent.

var (
	_ acp.FileSystem         = (*threadClient)(nil)
	_ acp.TerminalAuthorizer = (*threadClient)(nil)
)

// The hub's own permission options: allow once, or reject.
const (
	hubAllow  = "allow"
	hubReject = "reject"
)

var hubOptions = []acp.PermissionOption{
	{OptionID: hubAllow, Name: "Allow", Kind: acp.AllowOnce},
	{OptionID: hubReject, Name: "Reject", Kind: acp.RejectOnce},
}

// Reasons in the data of the JSON-RPC errors the hub refuses with.
const (
	reasonProtected = "PROTECTED_PATH"
	reasonDenied    = "PERMISSION_DENIED"
	reasonOutside   = "OUTSIDE_FOLDERS"
)

// refused is the agent's JSON-RPC error for a refused request: code
// -32603 (ACP has no "forbidden"), the message saying why, and data
// {reason, path}.
func refused(reason, path, format string, args ...any) *acp.Error {
	data, _ := json.Marshal(map[string]string{"reason": reason, "path": path})
	return &acp.Error{Code: acp.CodeInternalError, Message: "switchboard: " + fmt.Sprintf(format, args...), Data: data}
}

// ReadTextFile implements acp.FileSystem: LocalFS on the resolved path,
// once checkFile allows it.
func (c *threadClient) ReadTextFile(ctx context.Context, req acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	p, err := c.checkFile(ctx, req.SessionID, "fs/read_text_file", "read", req.Path)
	if err != nil {
		return acp.ReadTextFileResponse{}, err
	}
	req.Path = p
	return acp.LocalFS{}.ReadTextFile(ctx, req)
}

// WriteTextFile implements acp.FileSystem: LocalFS on the resolved path,
// once checkFile allows it.
func (c *threadClient) WriteTextFile(ctx context.Context, req acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	p, err := c.checkFile(ctx, req.SessionID, "fs/write_text_file", "edit", req.Path)
	if err != nil {
		return acp.WriteTextFileResponse{}, err
	}
	req.Path = p
	return acp.LocalFS{}.WriteTextFile(ctx, req)
}

// checkFile resolves path, once the turn's checkpoint is stored
// (holdForCheckpoint), and returns it when the agent may have method on
// it: never a protected path; a write that changes git's own settings
// (gitSettingsPath) only when a person approves it, wherever it is (a hub
// permission of kind git, which no rule decides); at once inside the
// thread's allowed folders; elsewhere only when the user approves a hub
// permission of kind file ("read" or "edit") in the thread's running
// turn. Otherwise it returns the agent's error.
func (c *threadClient) checkFile(ctx context.Context, sessionID, method, kind, path string) (string, error) {
	c.touch()
	if err := c.holdForCheckpoint(ctx); err != nil { // snapshots.go
		return "", err
	}
	if err := c.holdForBudget(ctx, method); err != nil { // spend.go
		return "", err
	}
	p, err := resolvePath(path)
	if err != nil {
		return "", acp.NewError(acp.CodeInvalidParams, "%v", err)
	}
	if c.e.protectedPath(p) {
		c.e.log.Warn("hub: refused an agent's request for a protected path", "thread", c.thread.ID, "method", method, "path", p)
		return "", refused(reasonProtected, p, "%s is protected: the hub never serves its own data or config files to an agent", p)
	}
	hubKind, title := hub.PermKindFile, method+" "+p
	switch {
	case kind == "edit" && (gitSettingsPath(path) || gitSettingsPath(p)):
		hubKind, title = hub.PermKindGit, "Change git's own settings: "+p
	case c.e.insideFolders(c.thread, p):
		return p, nil
	}
	tc := map[string]any{
		"toolCallId": fmt.Sprintf("hub_fs_%d", c.e.hubCalls.Add(1)),
		"kind":       kind,
		"title":      title,
		"locations":  []map[string]string{{"path": p}},
	}
	ok, err := c.askUser(ctx, sessionID, hubKind, tc, func(d *hub.PermissionRequest) {
		if slices.Contains(strings.Split(filepath.ToSlash(path), "/"), "..") {
			d.Flags = append(d.Flags, hub.FlagDotDot)
			slices.Sort(d.Flags)
		}
	})
	if err != nil {
		return "", err
	}
	if !ok {
		return "", refused(reasonDenied, p, "permission denied: the user did not allow %s %s", method, p)
	}
	return p, nil
}

// AuthorizeTerminal implements acp.TerminalAuthorizer, once the turn's
// checkpoint is stored (holdForCheckpoint): the terminal runs
// in its resolved dir, which must be inside the thread's allowed folders
// (and not protected), and only once a person approved it — a hub
// permission of kind terminal whose description (describeTerminal) shows
// the argv, the folder and the environment the agent sets (the values of
// those that change what runs) — or approved exactly the same run in this
// turn (approvals.go; then the run is recorded as covered). It inherits
// what terminals.inheritEnv names.
func (c *threadClient) AuthorizeTerminal(ctx context.Context, req acp.CreateTerminalRequest, dir string) (acp.TerminalGrant, error) {
	c.touch()
	if err := c.holdForCheckpoint(ctx); err != nil { // snapshots.go
		return acp.TerminalGrant{}, err
	}
	if err := c.holdForBudget(ctx, "terminal/create"); err != nil { // spend.go
		return acp.TerminalGrant{}, err
	}
	d, err := resolvePath(dir)
	if err != nil {
		return acp.TerminalGrant{}, acp.NewError(acp.CodeInvalidParams, "cwd: %v", err)
	}
	if c.e.protectedPath(d) {
		return acp.TerminalGrant{}, refused(reasonProtected, d, "terminal cwd %s is protected: the hub never runs commands in its own data or config folders", d)
	}
	if !c.e.insideFolders(c.thread, d) {
		return acp.TerminalGrant{}, refused(reasonOutside, d, "terminal cwd %s is outside the thread's folders", d)
	}
	grant := acp.TerminalGrant{Dir: d, InheritEnv: c.e.config().TerminalInheritEnv}
	env := make([]hub.EnvVar, 0, len(req.Env))
	names := make([]string, 0, len(req.Env))
	for _, v := range req.Env {
		env = append(env, hub.EnvVar{Name: v.Name, Value: v.Value})
		names = append(names, v.Name)
	}
	desc := c.e.describeTerminal(req.Command, req.Args, d, env)
	c.rt.mu.Lock()
	tr := c.rt.turn
	c.rt.mu.Unlock()
	if tr != nil {
		if id, ok := tr.takeApproval(c.e.now(), desc, env); ok {
			if err := c.e.recordCovered(c.thread, tr, id, desc); err != nil {
				return acp.TerminalGrant{}, err
			}
			return grant, nil
		}
	}
	text := "Run in " + d
	if len(names) > 0 {
		text += "\nEnvironment set by the agent: " + strings.Join(names, ", ")
	}
	tc := map[string]any{
		"toolCallId": fmt.Sprintf("hub_terminal_%d", c.e.hubCalls.Add(1)),
		"kind":       "execute",
		"title":      desc.Command,
		"rawInput":   map[string]any{"command": desc.Command, "cwd": d, "env": names},
		"content":    []map[string]any{{"type": "content", "content": map[string]string{"type": "text", "text": text}}},
		"locations":  []map[string]string{{"path": d}},
	}
	ok, err := c.askUserAbout(ctx, req.SessionID, hub.PermKindTerminal, tc, desc, env)
	if err != nil {
		return acp.TerminalGrant{}, err
	}
	if !ok {
		return acp.TerminalGrant{}, refused(reasonDenied, d, "permission denied: the user did not allow running %s", desc.Command)
	}
	return grant, nil
}

// askUser raises a hub permission of hub kind kind for toolCall, described
// from it (then adjusted by adjust, when not nil), and reports whether it
// was approved (askUserAbout).
func (c *threadClient) askUser(ctx context.Context, sessionID, kind string, toolCall map[string]any, adjust func(*hub.PermissionRequest)) (bool, error) {
	raw, err := json.Marshal(toolCall)
	if err != nil {
		return false, err
	}
	desc := c.e.describeToolCall(c.thread, raw)
	if adjust != nil {
		adjust(desc)
	}
	return c.askUserAbout(ctx, sessionID, kind, toolCall, desc, nil)
}

// askUserAbout raises a hub permission of hub kind kind for toolCall,
// described by desc, with the hub's options, through the same path as an
// agent's request (requestPermission: the same events, deadline, rules
// and fail-closed answers), and reports whether it was approved. Without
// a running turn nobody can be asked: it is refused.
func (c *threadClient) askUserAbout(ctx context.Context, sessionID, kind string, toolCall map[string]any, desc *hub.PermissionRequest, env []hub.EnvVar) (bool, error) {
	raw, err := json.Marshal(toolCall)
	if err != nil {
		return false, err
	}
	resp, err := c.requestPermission(ctx, acp.RequestPermissionRequest{SessionID: sessionID, ToolCall: raw, Options: hubOptions}, kind, desc, env)
	if err != nil {
		return false, err
	}
	return resp.Outcome.Outcome == "selected" && resp.Outcome.OptionID == hubAllow, nil
}
