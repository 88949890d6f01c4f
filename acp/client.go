package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"
)

// Client is what the hub implements to serve an agent. SessionUpdate is
// called in the order the agent sent its updates, one at a time;
// RequestPermission concurrently, with a ctx that ends when the turn is
// cancelled, the agent withdraws the request ($/cancel_request) or the
// connection closes — the permission must then be treated as not granted.
// An error from RequestPermission reaches the agent as a JSON-RPC error:
// never an approval.
type Client interface {
	SessionUpdate(ctx context.Context, n SessionNotification)
	RequestPermission(ctx context.Context, req RequestPermissionRequest) (RequestPermissionResponse, error)
}

// FileSystem serves fs/* requests. A Client that also implements it serves
// them itself (the editor bridge forwards them to the editor); otherwise
// LocalFS does.
type FileSystem interface {
	ReadTextFile(ctx context.Context, req ReadTextFileRequest) (ReadTextFileResponse, error)
	WriteTextFile(ctx context.Context, req WriteTextFileRequest) (WriteTextFileResponse, error)
}

// TerminalHost serves terminal/* requests. A Client that also implements it
// serves them itself; otherwise real processes are run by Terminals, in the
// session's cwd.
type TerminalHost interface {
	CreateTerminal(ctx context.Context, req CreateTerminalRequest) (CreateTerminalResponse, error)
	TerminalOutput(ctx context.Context, req TerminalOutputRequest) (TerminalOutputResponse, error)
	WaitForTerminalExit(ctx context.Context, req WaitForTerminalExitRequest) (WaitForTerminalExitResponse, error)
	KillTerminal(ctx context.Context, req KillTerminalRequest) (KillTerminalResponse, error)
	ReleaseTerminal(ctx context.Context, req ReleaseTerminalRequest) (ReleaseTerminalResponse, error)
}

// TerminalAuthorizer is implemented by a Client that decides each
// terminal/create the built-in terminal host (Terminals) would serve; a
// Client that is a TerminalHost serves terminals itself and is not asked.
// AuthorizeTerminal gets the request, already checked (a command, an
// absolute cwd, valid variables), and dir, the directory it asks for
// (req.Cwd, else the session's), before anything starts. It may block
// (to ask a person) until ctx ends. An error refuses the terminal: the
// agent gets it as a JSON-RPC error (an *Error keeps its code).
type TerminalAuthorizer interface {
	AuthorizeTerminal(ctx context.Context, req CreateTerminalRequest, dir string) (TerminalGrant, error)
}

// ErrCancelTimeout is returned by Cancel when the agent did not end the turn
// within ClientOptions.CancelWait. The caller should stop the agent.
var ErrCancelTimeout = errors.New("acp: agent did not end the turn after session/cancel")

// ErrPromptRunning is returned by Prompt when the session already has one.
var ErrPromptRunning = errors.New("acp: a prompt is already running in this session")

// ClientOptions tune a ClientConn. The zero value is usable.
type ClientOptions struct {
	Logger *slog.Logger
	// ClientInfo is sent in initialize. An empty Name means "switchboard",
	// an empty Version (which agents require) the version of the main
	// module in the build info, or "dev".
	ClientInfo Implementation
	// MaxLineBytes caps one line from the agent (default DefaultMaxLineBytes).
	MaxLineBytes int
	// CancelWait bounds how long Cancel waits for the agent's stop reason
	// (default 5s).
	CancelWait time.Duration
	// Terminals configures the built-in terminal host.
	Terminals TerminalOptions
	// EOFCause: see ConnOptions.
	EOFCause func(readErr error) error
	// MaxConcurrentRequests bounds how many of the agent's requests
	// (fs/*, terminal/*, vendor methods) are served at once (default
	// DefaultMaxAgentRequests; negative: no bound); more wait their turn,
	// never refused (see ConnOptions). session/request_permission and
	// terminal/wait_for_exit are not counted: they wait on a person or a
	// process, hold little, and must not keep the others waiting (the
	// hub bounds pending permissions per turn itself).
	MaxConcurrentRequests int
}

// DefaultMaxAgentRequests is the default ClientOptions.MaxConcurrentRequests
// (config limits.agentRequests): ten parallel 60 MB reads once took a hub to
// 2.6 GB.
const DefaultMaxAgentRequests = 4

// waitsOnly reports whether an agent request only waits on something else
// (a person, a process): those are not counted by MaxConcurrentRequests.
func waitsOnly(method string) bool {
	return method == "session/request_permission" || method == "terminal/wait_for_exit" || method == MethodElicitationCreate
}

// ClientConn is the client side of an ACP v1 connection to one agent.
type ClientConn struct {
	conn   *Conn
	client Client
	log    *slog.Logger
	opts   ClientOptions
	fs     FileSystem
	terms  TerminalHost
	local  *Terminals // nil when the Client hosts terminals itself

	mu         sync.Mutex
	init       *InitializeResponse
	sessions   map[string]string       // session id → cwd
	parents    map[string]string       // a sub-agent's session id → its parent's (subagent.go)
	prompts    map[string]*promptState // running prompts by session
	cancelling map[string]bool         // sessions with a cancel in flight
	usage      map[string]*PromptUsage // the last prompt's usage by session (usage.go)
	perms      map[*pendingPermission]struct{}
}

type promptState struct {
	done       chan struct{}
	stopReason string
	err        error
}

type pendingPermission struct {
	sessionID string
	cancelled chan struct{} // closed by Cancel: answer "cancelled" now
	once      sync.Once
}

func (p *pendingPermission) cancel() { p.once.Do(func() { close(p.cancelled) }) }

// NewClientConn speaks ACP over r (the agent's stdout) and w (its stdin).
// Call Initialize before anything else.
func NewClientConn(r io.Reader, w io.Writer, client Client, opts ClientOptions) *ClientConn {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.ClientInfo.Name == "" {
		opts.ClientInfo.Name = "switchboard"
	}
	if opts.ClientInfo.Version == "" {
		opts.ClientInfo.Version = buildVersion()
	}
	if opts.CancelWait <= 0 {
		opts.CancelWait = 5 * time.Second
	}
	if opts.MaxConcurrentRequests == 0 {
		opts.MaxConcurrentRequests = DefaultMaxAgentRequests
	}
	c := &ClientConn{
		client:     client,
		log:        opts.Logger,
		opts:       opts,
		sessions:   make(map[string]string),
		parents:    make(map[string]string),
		prompts:    make(map[string]*promptState),
		cancelling: make(map[string]bool),
		perms:      make(map[*pendingPermission]struct{}),
	}
	c.fs = LocalFS{}
	if fs, ok := client.(FileSystem); ok {
		c.fs = fs
	}
	if th, ok := client.(TerminalHost); ok {
		c.terms = th
	} else {
		if opts.Terminals.Logger == nil {
			opts.Terminals.Logger = opts.Logger
		}
		c.local = NewTerminals(opts.Terminals)
		c.terms = localTerminals{c}
	}
	c.conn = NewConn(r, w, (*clientHandler)(c), ConnOptions{
		Logger:       opts.Logger,
		MaxLineBytes: opts.MaxLineBytes,
		EOFCause:     opts.EOFCause,

		MaxConcurrentRequests: opts.MaxConcurrentRequests,
		Unbounded:             waitsOnly,
	})
	go func() {
		<-c.conn.Done()
		if c.local != nil {
			c.local.Close()
		}
	}()
	return c
}

// RunningTerminals counts the commands of the terminals this connection
// hosts (terminal/create served locally) that have not exited yet; 0 when
// the client hosts the terminals itself (a TerminalHost).
func (c *ClientConn) RunningTerminals() int {
	if c.local == nil {
		return 0
	}
	return c.local.Running()
}

// buildVersion is the main module's version as the go command stamped it
// ("v1.2.0", or a pseudo-version from the VCS), or "dev".
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// Done is closed when the connection ended; Err says why.
func (c *ClientConn) Done() <-chan struct{} { return c.conn.Done() }

// Err reports why the connection ended, or nil.
func (c *ClientConn) Err() error { return c.conn.Err() }

// Close ends the connection (pending calls fail) and kills the terminals it
// started. It does not stop the agent process: see Agent.Close.
func (c *ClientConn) Close() error {
	c.conn.Close()
	if c.local != nil {
		c.local.Close()
	}
	return nil
}

// Initialize negotiates protocol version 1. An agent answering any other
// version is refused with an error naming the version, and must not be used.
func (c *ClientConn) Initialize(ctx context.Context) (InitializeResponse, error) {
	info := c.opts.ClientInfo
	req := InitializeRequest{
		ProtocolVersion: ProtocolVersion,
		ClientCapabilities: ClientCapabilities{
			FS:       FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true},
			Terminal: true,
			Auth:     &AuthCapabilities{Terminal: true},
			Session: &ClientSessionCapabilities{Notices: &struct{}{}, Compaction: &struct{}{},
				ConfigOptions: &ConfigOptionsCapabilities{Boolean: &struct{}{}}},
			Subagents: &struct{}{},
			Plan:      &struct{}{},
			Meta:      map[string]any{"terminal-auth": true},
		},
		ClientInfo: &info,
	}
	if _, ok := c.client.(Elicitor); ok {
		req.ClientCapabilities.Elicitation = &ElicitationCapabilities{Form: &struct{}{}, URL: &struct{}{}}
	}
	var raw json.RawMessage
	if err := c.conn.Call(ctx, "initialize", req, &raw); err != nil {
		return InitializeResponse{}, err
	}
	var resp InitializeResponse
	if err := json.Unmarshal(raw, &resp); err != nil {
		return InitializeResponse{}, fmt.Errorf("acp: initialize: decode answer: %w", err)
	}
	if resp.ProtocolVersion != ProtocolVersion {
		err := fmt.Errorf("acp: initialize: agent speaks protocol version %d, switchboard speaks %d", resp.ProtocolVersion, ProtocolVersion)
		if resp.ProtocolVersion > ProtocolVersion {
			err = fmt.Errorf("%w: ACP v%d is not supported yet (docs/DECISIONS.md, ADR 0043); use an agent version that speaks v1", err, resp.ProtocolVersion)
		}
		name := "unnamed"
		if resp.AgentInfo != nil {
			name = resp.AgentInfo.Name
		}
		c.log.Warn("acp: agent refused: it speaks another protocol version", "agent", name, "agentVersion", resp.ProtocolVersion, "clientVersion", ProtocolVersion)
		return resp, err
	}
	resp.Raw = raw
	c.mu.Lock()
	c.init = &resp
	c.mu.Unlock()
	return resp, nil
}

// Capabilities returns what the agent advertised in Initialize.
func (c *ClientConn) Capabilities() AgentCapabilities {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.init == nil {
		return AgentCapabilities{}
	}
	return c.init.AgentCapabilities
}

// Authenticate runs one of the agent's advertised auth methods.
func (c *ClientConn) Authenticate(ctx context.Context, methodID string) error {
	return c.conn.Call(ctx, "authenticate", map[string]string{"methodId": methodID}, nil)
}

func mcpList(servers []MCPServer) []MCPServer {
	if servers == nil {
		return []MCPServer{}
	}
	return servers
}

// NewSession starts a session in cwd (absolute).
func (c *ClientConn) NewSession(ctx context.Context, cwd string, mcpServers []MCPServer) (SessionSetup, error) {
	return c.NewSessionIn(ctx, SessionDirs{Cwd: cwd}, mcpServers)
}

// SessionDirs are what a session is opened with besides its MCP servers:
// its folders, Cwd (absolute), the base of relative paths, and Additional,
// more absolute roots the session may use (additionalDirectories); and
// SystemPrompt, the client's instructions (sysprompt.go). Additional is
// sent only to an agent that advertises
// sessionCapabilities.additionalDirectories; the hub's own confinement
// counts them either way. SystemPrompt is sent only to an agent that
// advertises sessionCapabilities.systemPrompt, and override mode only to
// one that advertises mode.override: to an agent that advertises only
// append, the request is not sent and fails with ErrUnsupported.
type SessionDirs struct {
	Cwd          string
	Additional   []string
	SystemPrompt SystemPrompt
}

// params are the session request's fields, built in this one place for
// session/new, session/load and session/resume.
func (c *ClientConn) params(d SessionDirs, mcpServers []MCPServer) (map[string]any, error) {
	caps := c.Capabilities()
	p := map[string]any{"cwd": d.Cwd, "mcpServers": mcpList(mcpServers)}
	if len(d.Additional) > 0 && advertised(caps.SessionCapabilities.AdditionalDirectories) {
		p["additionalDirectories"] = d.Additional
	}
	sp, err := systemPromptParam(d.SystemPrompt, caps.SystemPromptSupport())
	if err != nil {
		return nil, err
	}
	if sp != nil {
		p["systemPrompt"] = sp
	}
	return p, nil
}

// NewSessionIn is NewSession with additional directories.
func (c *ClientConn) NewSessionIn(ctx context.Context, d SessionDirs, mcpServers []MCPServer) (SessionSetup, error) {
	var s SessionSetup
	p, err := c.params(d, mcpServers)
	if err != nil {
		return s, fmt.Errorf("session/new: %w", err)
	}
	err = c.conn.Call(ctx, "session/new", p, &s)
	if err != nil {
		return s, err
	}
	if s.SessionID == "" {
		return s, errors.New("acp: session/new: agent returned no sessionId")
	}
	c.trackSession(s.SessionID, d.Cwd)
	return s, nil
}

// LoadSession reopens a session; the agent replays its history as
// session/update notifications before answering. Needs loadSession.
func (c *ClientConn) LoadSession(ctx context.Context, sessionID, cwd string, mcpServers []MCPServer) (SessionSetup, error) {
	return c.LoadSessionIn(ctx, sessionID, SessionDirs{Cwd: cwd}, mcpServers)
}

// LoadSessionIn is LoadSession with additional directories.
func (c *ClientConn) LoadSessionIn(ctx context.Context, sessionID string, d SessionDirs, mcpServers []MCPServer) (SessionSetup, error) {
	if !c.Capabilities().LoadSession {
		return SessionSetup{}, fmt.Errorf("session/load: %w", ErrUnsupported)
	}
	var s SessionSetup
	p, err := c.params(d, mcpServers)
	if err != nil {
		return s, fmt.Errorf("session/load: %w", err)
	}
	p["sessionId"] = sessionID
	err = c.conn.Call(ctx, "session/load", p, &s)
	if err == nil {
		s.SessionID = sessionID
		c.trackSession(sessionID, d.Cwd)
	}
	return s, err
}

// ResumeSession reopens a session without replaying history. Needs
// sessionCapabilities.resume.
func (c *ClientConn) ResumeSession(ctx context.Context, sessionID, cwd string, mcpServers []MCPServer) (SessionSetup, error) {
	return c.ResumeSessionIn(ctx, sessionID, SessionDirs{Cwd: cwd}, mcpServers)
}

// ResumeSessionIn is ResumeSession with additional directories.
func (c *ClientConn) ResumeSessionIn(ctx context.Context, sessionID string, d SessionDirs, mcpServers []MCPServer) (SessionSetup, error) {
	if !advertised(c.Capabilities().SessionCapabilities.Resume) {
		return SessionSetup{}, fmt.Errorf("session/resume: %w", ErrUnsupported)
	}
	var s SessionSetup
	p, err := c.params(d, mcpServers)
	if err != nil {
		return s, fmt.Errorf("session/resume: %w", err)
	}
	p["sessionId"] = sessionID
	err = c.conn.Call(ctx, "session/resume", p, &s)
	if err == nil {
		s.SessionID = sessionID
		c.trackSession(sessionID, d.Cwd)
	}
	return s, err
}

// ListSessions lists the agent's sessions, optionally only those in cwd.
// Needs sessionCapabilities.list.
func (c *ClientConn) ListSessions(ctx context.Context, cwd, cursor string) (ListSessionsResponse, error) {
	var resp ListSessionsResponse
	if !advertised(c.Capabilities().SessionCapabilities.List) {
		return resp, fmt.Errorf("session/list: %w", ErrUnsupported)
	}
	params := map[string]string{}
	if cwd != "" {
		params["cwd"] = cwd
	}
	if cursor != "" {
		params["cursor"] = cursor
	}
	err := c.conn.Call(ctx, "session/list", params, &resp)
	return resp, err
}

// Logout asks the agent to sign out (forget its credentials). Needs
// agentCapabilities.auth.logout.
func (c *ClientConn) Logout(ctx context.Context) error {
	if !advertised(c.Capabilities().Auth.Logout) {
		return fmt.Errorf("logout: %w", ErrUnsupported)
	}
	return c.conn.Call(ctx, "logout", struct{}{}, nil)
}

// DeleteSession asks the agent to forget a session and its history
// (session/delete). Needs sessionCapabilities.delete. The hub sends it only
// for sessions it opened itself, never for one imported from the agent's
// own history.
func (c *ClientConn) DeleteSession(ctx context.Context, sessionID string) error {
	if !advertised(c.Capabilities().SessionCapabilities.Delete) {
		return fmt.Errorf("session/delete: %w", ErrUnsupported)
	}
	return c.conn.Call(ctx, "session/delete", map[string]string{"sessionId": sessionID}, nil)
}

// CloseSession ends a session at the agent and releases its terminals.
// Needs sessionCapabilities.close.
func (c *ClientConn) CloseSession(ctx context.Context, sessionID string) error {
	if !advertised(c.Capabilities().SessionCapabilities.Close) {
		return fmt.Errorf("session/close: %w", ErrUnsupported)
	}
	err := c.conn.Call(ctx, "session/close", map[string]string{"sessionId": sessionID}, nil)
	c.mu.Lock()
	delete(c.sessions, sessionID)
	c.mu.Unlock()
	if c.local != nil {
		c.local.ReleaseSession(sessionID)
	}
	return err
}

// SetMode switches the session's mode (one of SessionSetup.Modes).
func (c *ClientConn) SetMode(ctx context.Context, sessionID, modeID string) error {
	return c.conn.Call(ctx, "session/set_mode", map[string]string{"sessionId": sessionID, "modeId": modeID}, nil)
}

// SetConfigOption sets a session config option (the model, for instance) and
// returns the agent's full, updated option list, raw.
func (c *ClientConn) SetConfigOption(ctx context.Context, sessionID, configID, value string) (json.RawMessage, error) {
	return c.setConfigOption(ctx, map[string]any{"sessionId": sessionID, "configId": configID, "value": value})
}

// SetBoolConfigOption sets a boolean config option ({type: "boolean",
// value}, the schema's SetSessionConfigOptionRequest) and returns the
// agent's updated option list, raw.
func (c *ClientConn) SetBoolConfigOption(ctx context.Context, sessionID, configID string, value bool) (json.RawMessage, error) {
	return c.setConfigOption(ctx, map[string]any{"sessionId": sessionID, "configId": configID, "type": "boolean", "value": value})
}

func (c *ClientConn) setConfigOption(ctx context.Context, params map[string]any) (json.RawMessage, error) {
	var resp struct {
		ConfigOptions json.RawMessage `json:"configOptions"`
	}
	err := c.conn.Call(ctx, "session/set_config_option", params, &resp)
	return resp.ConfigOptions, err
}

// Prompt sends one user turn and waits for the agent's stop reason; the
// turn's updates reach Client.SessionUpdate before Prompt returns. Blocks
// the agent did not advertise (image, audio, embedded resource) are refused
// before anything is sent. When ctx ends first the request is withdrawn with
// $/cancel_request; use Cancel for the protocol's orderly cancel.
func (c *ClientConn) Prompt(ctx context.Context, sessionID string, prompt []ContentBlock) (string, error) {
	if err := checkPrompt(c.Capabilities().PromptCapabilities, prompt); err != nil {
		return "", err
	}
	p := &promptState{done: make(chan struct{})}
	c.mu.Lock()
	if c.prompts[sessionID] != nil {
		c.mu.Unlock()
		return "", ErrPromptRunning
	}
	c.prompts[sessionID] = p
	c.mu.Unlock()

	var resp struct {
		StopReason string       `json:"stopReason"`
		Usage      *PromptUsage `json:"usage"`
	}
	err := c.conn.Call(ctx, "session/prompt", map[string]any{"sessionId": sessionID, "prompt": prompt}, &resp)
	p.stopReason, p.err = resp.StopReason, err
	c.mu.Lock()
	c.setPromptUsageLocked(sessionID, resp.Usage)
	delete(c.prompts, sessionID)
	delete(c.cancelling, sessionID)
	c.mu.Unlock()
	close(p.done)
	return resp.StopReason, err
}

func checkPrompt(caps PromptCapabilities, prompt []ContentBlock) error {
	if len(prompt) == 0 {
		return errors.New("acp: session/prompt: empty prompt")
	}
	if i := UnsupportedBlock(caps, prompt); i >= 0 {
		if !knownBlock(prompt[i].Type) {
			return fmt.Errorf("acp: session/prompt: unknown content block type %q", prompt[i].Type)
		}
		return fmt.Errorf("acp: session/prompt: %s content: %w", prompt[i].Type, ErrUnsupported)
	}
	return nil
}

// UnsupportedBlock returns the index of the first block of prompt that an
// agent advertising caps cannot take — an image, audio or embedded
// resource it did not advertise, or a type ACP does not define — or -1
// when it takes them all (text and resource links always).
func UnsupportedBlock(caps PromptCapabilities, prompt []ContentBlock) int {
	for i, b := range prompt {
		ok := true
		switch b.Type {
		case "text", "resource_link":
		case "image":
			ok = caps.Image
		case "audio":
			ok = caps.Audio
		case "resource":
			ok = caps.EmbeddedContext
		default:
			ok = false
		}
		if !ok {
			return i
		}
	}
	return -1
}

func knownBlock(typ string) bool {
	switch typ {
	case "text", "resource_link", "image", "audio", "resource":
		return true
	}
	return false
}

// Cancel asks the agent to stop the session's turn: it sends session/cancel,
// answers every pending permission request of the session "cancelled" (and
// any that arrive until the turn ends), then waits up to CancelWait (and
// ctx) for the running Prompt to return. It returns the agent's stop reason
// — "cancelled" from a conforming agent; some answer "end_turn" — or "" when
// no prompt was running, or ErrCancelTimeout.
func (c *ClientConn) Cancel(ctx context.Context, sessionID string) (string, error) {
	c.mu.Lock()
	p := c.prompts[sessionID]
	if p != nil {
		c.cancelling[sessionID] = true
	}
	var perms []*pendingPermission
	for pp := range c.perms {
		if pp.sessionID == sessionID {
			perms = append(perms, pp)
		}
	}
	c.mu.Unlock()

	notifyErr := c.conn.Notify("session/cancel", map[string]string{"sessionId": sessionID})
	for _, pp := range perms {
		pp.cancel()
	}
	if p == nil {
		return "", notifyErr
	}
	wait, stop := context.WithTimeout(ctx, c.opts.CancelWait)
	defer stop()
	select {
	case <-p.done:
		return p.stopReason, p.err
	case <-wait.Done():
		if ctx.Err() != nil {
			return "", fmt.Errorf("acp: cancel: %w", ctx.Err())
		}
		return "", ErrCancelTimeout
	}
}

func (c *ClientConn) trackSession(id, cwd string) {
	c.mu.Lock()
	c.sessions[id] = cwd
	c.mu.Unlock()
}

func (c *ClientConn) sessionCwd(id string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cwd, ok := c.sessions[id]
	return cwd, ok
}

// requestPermission waits for the Client's answer, or answers "cancelled"
// as soon as Cancel runs for the session.
func (c *ClientConn) requestPermission(ctx context.Context, req RequestPermissionRequest) (any, error) {
	resp, err := awaitUser(c, ctx, req.SessionID, Cancelled(), func(ctx context.Context) (RequestPermissionResponse, error) {
		return c.client.RequestPermission(ctx, req)
	})
	if err != nil {
		return nil, err
	}
	return resp, validOutcome(req, resp)
}

// awaitUser runs ask (a question to a person: a permission, an
// elicitation) with a context that ends when Cancel runs for the session,
// and answers onCancel at once then. ask must return once its context
// ends.
func awaitUser[T any](c *ClientConn, ctx context.Context, sessionID string, onCancel T, ask func(context.Context) (T, error)) (T, error) {
	c.mu.Lock()
	sessionID = c.rootSessionLocked(sessionID) // a sub-agent's ask ends with its parent's turn
	pp := &pendingPermission{sessionID: sessionID, cancelled: make(chan struct{})}
	if c.cancelling[sessionID] {
		c.mu.Unlock()
		return onCancel, nil
	}
	c.perms[pp] = struct{}{}
	c.mu.Unlock()
	pctx, stop := context.WithCancel(ctx)
	defer func() {
		stop()
		c.mu.Lock()
		delete(c.perms, pp)
		c.mu.Unlock()
	}()

	type answer struct {
		resp T
		err  error
	}
	ch := make(chan answer, 1)
	go func() {
		resp, err := ask(pctx)
		ch <- answer{resp, err}
	}()
	var zero T
	select {
	case a := <-ch:
		if a.err != nil {
			return zero, a.err
		}
		return a.resp, nil
	case <-pp.cancelled:
		return onCancel, nil
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

// validOutcome refuses to send the agent an option it did not offer.
func validOutcome(req RequestPermissionRequest, resp RequestPermissionResponse) error {
	switch resp.Outcome.Outcome {
	case "cancelled":
		return nil
	case "selected":
		for _, o := range req.Options {
			if o.OptionID == resp.Outcome.OptionID {
				return nil
			}
		}
		return NewError(CodeInternalError, "client chose option %q, which the agent did not offer", resp.Outcome.OptionID)
	}
	return NewError(CodeInternalError, "client gave no permission outcome")
}
