package app

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// bridge runs the editor bridge until ctx is done or stdin closes: an ACP
// agent on stdio that relays to the hub found through <data-dir>/hub.json.
//
// An ACP session is a hub thread (the session id is the thread id), owned
// by the client "acp-<editor name>". session/prompt is a streamed hub turn
// whose events go back as session/update notifications; permissions are
// asked of the editor while they are pending in the hub too, and the first
// decision wins.
func bridge(ctx context.Context, e *env, o Options, agentID string, autoStart bool) error {
	log := slog.New(slog.NewTextHandler(e.stdio.Err, &slog.HandlerOptions{Level: slog.LevelWarn}))
	b := &bridgeServer{
		agentID:   agentID,
		opts:      o,
		autoStart: autoStart,
		hub:       newHubClient(o.DataDir),
		log:       log,
		stderr:    e.stdio.Err,
		sessions:  map[string]*bridgeSession{},
	}
	conn := acp.NewConn(e.stdio.In, e.stdio.Out, b, acp.ConnOptions{Logger: log})
	b.conn = conn
	select {
	case <-conn.Done():
	case <-ctx.Done():
		conn.Close()
	}
	// Let cancels and decisions under way reach the hub, briefly.
	b.bg.wait(5 * time.Second)
	return nil
}

// bridgeServer is the ACP agent side of the bridge.
type bridgeServer struct {
	agentID   string
	opts      Options
	autoStart bool // start `switchboard serve` when no hub runs
	hub       *hubClient
	conn      *acp.Conn
	log       *slog.Logger
	stderr    io.Writer
	bg        background // cancels and decisions on their way to the hub

	mu       sync.Mutex
	sessions map[string]*bridgeSession // by thread id
	// editorCaps are the editor's fs and terminal capabilities from
	// initialize, given to the threads the bridge creates (bridge_fs.go).
	editorCaps hub.ClientCapabilities
}

// background counts goroutines the bridge lets finish before it exits.
// (A sync.WaitGroup would forbid starting one while the exit waits.)
type background struct {
	mu sync.Mutex
	n  int
}

// Go runs f on its own goroutine.
func (g *background) Go(f func()) {
	g.mu.Lock()
	g.n++
	g.mu.Unlock()
	go func() {
		defer func() {
			g.mu.Lock()
			g.n--
			g.mu.Unlock()
		}()
		f()
	}()
}

// wait waits until no goroutine runs, at most d.
func (g *background) wait(d time.Duration) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		g.mu.Lock()
		n := g.n
		g.mu.Unlock()
		if n == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// bridgeSession is what the bridge knows of one session's running prompt.
type bridgeSession struct {
	mu           sync.Mutex
	running      bool
	turnID       string // the running hub turn, once the hub named it
	cancelWanted bool   // session/cancel came before the turn id
	// queued counts the session's prompts dispatched whose handlers have
	// not begun; cancelQueued is set by a session/cancel that came while
	// one was queued and none ran (bridge_cancel.go).
	queued       int
	cancelQueued bool
	// onCancel is called (with mu held) on session/cancel while a prompt
	// runs.
	onCancel func()
}

func (b *bridgeServer) session(id string) *bridgeSession {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.sessions[id]
	if s == nil {
		s = &bridgeSession{}
		b.sessions[id] = s
	}
	return s
}

// HandleRequest serves the editor's requests.
func (b *bridgeServer) HandleRequest(ctx context.Context, method string, params json.RawMessage) (any, error) {
	var (
		res any
		err error
	)
	switch method {
	case "initialize":
		res, err = b.initialize(ctx, params)
	case "authenticate":
		res = struct{}{}
	case "session/new":
		res, err = b.newSession(ctx, params)
	case "session/load":
		res, err = b.loadSession(ctx, params, true)
	case "session/resume":
		res, err = b.loadSession(ctx, params, false)
	case "session/list":
		res, err = b.listSessions(ctx, params)
	case "session/prompt":
		res, err = b.prompt(ctx, params)
	case "session/set_mode":
		res, err = b.setMode(ctx, params)
	case "session/set_config_option":
		res, err = b.setConfigOption(ctx, params)
	default:
		err = acp.NewError(acp.CodeMethodNotFound, "method not found: %s", method)
	}
	if err != nil {
		return nil, rpcError(err)
	}
	return res, nil
}

// HandleNotification serves session/cancel; others are ignored.
func (b *bridgeServer) HandleNotification(_ context.Context, method string, params json.RawMessage) {
	if method != "session/cancel" {
		return
	}
	var p struct {
		SessionID string `json:"sessionId"`
	}
	if json.Unmarshal(params, &p) != nil || p.SessionID == "" {
		return
	}
	s := b.session(p.SessionID)
	s.mu.Lock()
	turnID := s.turnID
	if !s.running && s.queued > 0 {
		s.cancelQueued = true // its prompt has not begun yet
	}
	if s.running && turnID == "" {
		s.cancelWanted = true
	}
	if s.running && s.onCancel != nil {
		s.onCancel()
	}
	s.mu.Unlock()
	if turnID != "" {
		b.cancelTurn(turnID)
	}
}

// cancelTurn asks the hub to cancel a turn, in the background (a
// notification handler must not wait).
func (b *bridgeServer) cancelTurn(turnID string) {
	b.bg.Go(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := b.hub.do(ctx, "POST", "/v1/turns/"+url.PathEscape(turnID)+"/cancel", nil, nil); err != nil {
			b.log.Warn("switchboard acp: cancelling the turn failed", "turn", turnID, "err", err)
		}
	})
}

// rpcError turns a hub or bridge failure into the JSON-RPC error the
// editor gets.
func rpcError(err error) error {
	var re *acp.Error
	if errors.As(err, &re) {
		return re
	}
	var he *hubCallError
	if errors.As(err, &he) {
		switch he.Status {
		case http.StatusNotFound:
			return acp.NewError(acp.CodeResourceNotFound, "switchboard: %s", he.Message)
		case http.StatusBadRequest:
			return acp.NewError(acp.CodeInvalidParams, "switchboard: %s", he.Message)
		}
		return acp.NewError(acp.CodeInternalError, "switchboard: %s", he.Message)
	}
	if errors.Is(err, context.Canceled) {
		return acp.NewError(acp.CodeRequestCancelled, "request cancelled")
	}
	return acp.NewError(acp.CodeInternalError, "switchboard: %v", err)
}

// ---- initialize ------------------------------------------------------------

func (b *bridgeServer) initialize(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		ProtocolVersion int                 `json:"protocolVersion"`
		ClientInfo      *acp.Implementation `json:"clientInfo"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, acp.NewError(acp.CodeInvalidParams, "initialize: %v", err)
	}
	if p.ClientInfo != nil {
		b.hub.setClient(p.ClientInfo.Name)
	}
	b.mu.Lock()
	b.editorCaps = editorCapabilities(params)
	b.mu.Unlock()
	if err := b.ensureHub(ctx); err != nil {
		return nil, err
	}
	agent, ids, err := b.hubAgent(ctx)
	if err != nil {
		return nil, err
	}
	if agent != nil && agent.Status == hub.AgentAvailable && len(agent.Capabilities) == 0 {
		// A hub that has just started probes its agents in the
		// background: give it a moment to learn the capabilities.
		deadline := time.Now().Add(capabilitiesWait)
		for len(agent.Capabilities) == 0 && time.Now().Before(deadline) {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
			if a, _, err := b.hubAgent(ctx); err == nil && a != nil {
				agent = a
			}
		}
	}
	if agent == nil {
		return nil, acp.NewError(acp.CodeInvalidParams, "switchboard: unknown agent %q: the hub knows %s", b.agentID, strings.Join(ids, ", "))
	}
	if agent.Status == hub.AgentUnavailable {
		return nil, acp.NewError(acp.CodeInternalError, "switchboard: agent %q is unavailable: %s", b.agentID, agent.Reason)
	}
	return map[string]any{
		"protocolVersion":   acp.ProtocolVersion,
		"agentCapabilities": bridgeCapabilities(agent.Capabilities),
		"agentInfo":         acp.Implementation{Name: "switchboard", Title: agent.Name + " via Switchboard", Version: version},
		"authMethods":       []any{},
	}, nil
}

// capabilitiesWait bounds how long initialize waits for the hub to learn
// the agent's capabilities; past it, the bridge answers conservative ones.
const capabilitiesWait = 2 * time.Second

// hubAgent returns the hub's entry for the bridge's agent (nil if the hub
// does not know it) and the ids of the agents it knows.
func (b *bridgeServer) hubAgent(ctx context.Context) (*hub.Agent, []string, error) {
	var list struct {
		Agents []hub.Agent `json:"agents"`
	}
	if err := b.hub.do(ctx, "GET", "/v1/agents", nil, &list); err != nil {
		return nil, nil, err
	}
	var ids []string
	for i, a := range list.Agents {
		ids = append(ids, a.ID)
		if a.ID == b.agentID {
			return &list.Agents[i], nil, nil
		}
	}
	return nil, ids, nil
}

// bridgeCapabilities is what the bridge advertises: the agent's prompt
// capabilities as the hub reported them (none when the hub has not probed
// the agent), plus what the bridge serves itself over the hub's history:
// session/load, session/list and session/resume. MCP servers are not
// passed on by the hub, so no MCP capability is claimed.
func bridgeCapabilities(reported json.RawMessage) map[string]any {
	var agent struct {
		PromptCapabilities json.RawMessage `json:"promptCapabilities"`
		// Set when the hub reports the agent's whole initialize answer.
		AgentCapabilities *struct {
			PromptCapabilities json.RawMessage `json:"promptCapabilities"`
		} `json:"agentCapabilities"`
	}
	prompt := json.RawMessage(`{}`)
	if len(reported) > 0 && json.Unmarshal(reported, &agent) == nil {
		p := agent.PromptCapabilities
		if agent.AgentCapabilities != nil {
			p = agent.AgentCapabilities.PromptCapabilities
		}
		if len(p) > 0 && p[0] == '{' {
			prompt = p
		}
	}
	return map[string]any{
		"loadSession":         true,
		"promptCapabilities":  prompt,
		"sessionCapabilities": map[string]any{"list": struct{}{}, "resume": struct{}{}},
	}
}

// ensureHub connects to the running hub.
func (b *bridgeServer) ensureHub(ctx context.Context) error {
	err := b.hub.connect(ctx)
	if err == nil {
		return nil
	}
	var nh errNoHub
	if !errors.As(err, &nh) {
		return err
	}
	if serr := b.launchHub(ctx); serr != nil {
		return acp.NewError(acp.CodeInternalError, "switchboard: %v; starting one failed: %v", err, serr)
	}
	return nil
}

// ---- sessions --------------------------------------------------------------

func (b *bridgeServer) newSession(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		Cwd string `json:"cwd"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, acp.NewError(acp.CodeInvalidParams, "session/new: %v", err)
	}
	if !filepath.IsAbs(p.Cwd) {
		return nil, acp.NewError(acp.CodeInvalidParams, "session/new: cwd must be an absolute path, not %q", p.Cwd)
	}
	var r struct {
		Thread hub.Thread `json:"thread"`
	}
	// openSession: the hub starts the agent now, so the answer can carry
	// the session's modes and config options, as the agent's own would.
	req := hub.CreateThreadRequest{Agent: b.agentID, Cwd: p.Cwd, OpenSession: true}
	b.mu.Lock()
	if caps := b.editorCaps; caps.Any() {
		req.ClientCapabilities = &caps
	}
	b.mu.Unlock()
	err := b.hub.do(ctx, "POST", "/v1/threads", req, &r)
	var he *hubCallError
	if errors.As(err, &he) && he.Status == http.StatusBadRequest && strings.Contains(he.Message, "openSession") {
		// An older hub: create the thread without.
		err = b.hub.do(ctx, "POST", "/v1/threads", hub.CreateThreadRequest{Agent: b.agentID, Cwd: p.Cwd}, &r)
	}
	if err != nil {
		return nil, err
	}
	b.session(r.Thread.ID)
	return withSessionState(map[string]any{"sessionId": r.Thread.ID}, r.Thread), nil
}

// withSessionState adds the thread's modes and configOptions, when the hub
// knows them, to a session/new, load or resume answer.
func withSessionState(res map[string]any, th hub.Thread) map[string]any {
	if len(th.Modes) > 0 && th.Modes[0] == '{' {
		res["modes"] = th.Modes
	}
	if len(th.ConfigOptions) > 0 && th.ConfigOptions[0] == '[' {
		res["configOptions"] = th.ConfigOptions
	}
	return res
}

// setMode serves session/set_mode through POST /v1/threads/{id}/mode.
func (b *bridgeServer) setMode(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		SessionID string `json:"sessionId"`
		ModeID    string `json:"modeId"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, acp.NewError(acp.CodeInvalidParams, "session/set_mode: %v", err)
	}
	if p.SessionID == "" || p.ModeID == "" {
		return nil, acp.NewError(acp.CodeInvalidParams, "session/set_mode: sessionId and modeId are required")
	}
	if err := b.hub.do(ctx, "POST", "/v1/threads/"+url.PathEscape(p.SessionID)+"/mode", map[string]string{"modeId": p.ModeID}, nil); err != nil {
		return nil, err
	}
	return struct{}{}, nil
}

// setConfigOption serves session/set_config_option through POST
// /v1/threads/{id}/config-option; it answers the agent's updated options.
func (b *bridgeServer) setConfigOption(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		SessionID string          `json:"sessionId"`
		ConfigID  string          `json:"configId"`
		Value     json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, acp.NewError(acp.CodeInvalidParams, "session/set_config_option: %v", err)
	}
	var value string
	if p.SessionID == "" || p.ConfigID == "" || json.Unmarshal(p.Value, &value) != nil {
		return nil, acp.NewError(acp.CodeInvalidParams, "session/set_config_option: sessionId, configId and a string value are required")
	}
	var r struct {
		Thread hub.Thread `json:"thread"`
	}
	if err := b.hub.do(ctx, "POST", "/v1/threads/"+url.PathEscape(p.SessionID)+"/config-option", map[string]string{"configId": p.ConfigID, "value": value}, &r); err != nil {
		return nil, err
	}
	opts := r.Thread.ConfigOptions
	if len(opts) == 0 || opts[0] != '[' {
		opts = json.RawMessage(`[]`)
	}
	return map[string]any{"configOptions": opts}, nil
}

func (b *bridgeServer) thread(ctx context.Context, id string) (hub.Thread, error) {
	var r struct {
		Thread hub.Thread `json:"thread"`
	}
	if id == "" {
		return r.Thread, acp.NewError(acp.CodeInvalidParams, "sessionId is required")
	}
	err := b.hub.do(ctx, "GET", "/v1/threads/"+url.PathEscape(id), nil, &r)
	return r.Thread, err
}

// loadSession serves session/load (replay true) and session/resume: the
// thread must exist; load replays its history as session/update
// notifications before answering.
func (b *bridgeServer) loadSession(ctx context.Context, params json.RawMessage, replay bool) (any, error) {
	var p struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, acp.NewError(acp.CodeInvalidParams, "%v", err)
	}
	th, err := b.thread(ctx, p.SessionID)
	if err != nil {
		return nil, err
	}
	if th.Agent != b.agentID {
		return nil, acp.NewError(acp.CodeResourceNotFound, "switchboard: session %s belongs to agent %q, not %q", th.ID, th.Agent, b.agentID)
	}
	b.session(th.ID)
	if !replay {
		return withSessionState(map[string]any{}, th), nil
	}
	var h struct {
		Turns []hub.TurnHistory `json:"turns"`
	}
	if err := b.hub.do(ctx, "GET", "/v1/threads/"+url.PathEscape(th.ID)+"/history?includeEvents=true", nil, &h); err != nil {
		return nil, err
	}
	for _, t := range h.Turns {
		for _, u := range userChunks(t.Turn) {
			b.notifyUpdate(th.ID, u)
		}
		for _, ev := range t.Events {
			if u, ok := eventUpdate(ev); ok {
				b.notifyUpdate(th.ID, u)
			}
		}
	}
	return withSessionState(map[string]any{}, th), nil
}

// userChunks is a turn's prompt as user_message_chunk updates: one per
// content block when the turn was sent as blocks, else its text.
func userChunks(t hub.Turn) []json.RawMessage {
	var blocks []json.RawMessage
	if len(t.Content) > 0 && json.Unmarshal(t.Content, &blocks) == nil && len(blocks) > 0 {
		out := make([]json.RawMessage, 0, len(blocks))
		for _, c := range blocks {
			out = append(out, update("user_message_chunk", "content", c))
		}
		return out
	}
	return []json.RawMessage{update("user_message_chunk", "content", acp.TextBlock(t.Input))}
}

func (b *bridgeServer) listSessions(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		Cwd    string `json:"cwd"`
		Cursor string `json:"cursor"`
	}
	if len(params) > 0 {
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, acp.NewError(acp.CodeInvalidParams, "session/list: %v", err)
		}
	}
	sessions := []acp.SessionInfo{}
	cursor := p.Cursor
	// Gather pages until some sessions match or the threads run out, so a
	// cwd filter does not return empty pages.
	for range 50 {
		path := "/v1/threads?limit=100"
		if cursor != "" {
			path += "&cursor=" + url.QueryEscape(cursor)
		}
		var page hub.ThreadPage
		if err := b.hub.do(ctx, "GET", path, nil, &page); err != nil {
			return nil, err
		}
		for _, th := range page.Threads {
			if th.Agent != b.agentID || p.Cwd != "" && th.Cwd != p.Cwd {
				continue
			}
			sessions = append(sessions, acp.SessionInfo{SessionID: th.ID, Cwd: th.Cwd, Title: th.Title, UpdatedAt: th.UpdatedAt.UTC().Format(time.RFC3339Nano)})
		}
		cursor = page.NextCursor
		if cursor == "" || len(sessions) > 0 {
			break
		}
	}
	return acp.ListSessionsResponse{Sessions: sessions, NextCursor: cursor}, nil
}

// ---- updates ---------------------------------------------------------------

// update builds {"sessionUpdate": kind, key: value}.
func update(kind, key string, value any) json.RawMessage {
	b, err := json.Marshal(map[string]any{"sessionUpdate": kind, key: value})
	if err != nil {
		return nil
	}
	return b
}

// eventUpdate maps a hub event to the session/update the agent sent for
// it. Raw updates (tool calls, usage, agent_update) go back unchanged.
// Events that are not updates (turn_started, permissions, turn_completed,
// error, thread_updated, unknown types) give false.
func eventUpdate(ev hub.Event) (json.RawMessage, bool) {
	var p struct {
		Text          string          `json:"text"`
		ToolCall      json.RawMessage `json:"toolCall"`
		Entries       json.RawMessage `json:"entries"`
		ModeID        string          `json:"modeId"`
		Commands      json.RawMessage `json:"commands"`
		ConfigOptions json.RawMessage `json:"configOptions"`
		Usage         json.RawMessage `json:"usage"`
		Update        json.RawMessage `json:"update"`
	}
	if json.Unmarshal(ev.Payload, &p) != nil {
		return nil, false
	}
	var u json.RawMessage
	switch ev.Type {
	case hub.EventMessageDelta:
		u = update(acp.UpdateAgentMessageChunk, "content", acp.TextBlock(p.Text))
	case hub.EventThoughtDelta:
		u = update(acp.UpdateAgentThoughtChunk, "content", acp.TextBlock(p.Text))
	case hub.EventToolCall, hub.EventToolCallUpdate:
		u = withKind(p.ToolCall, ev.Type)
	case hub.EventPlan:
		if len(p.Entries) == 0 || string(p.Entries) == "null" {
			p.Entries = json.RawMessage(`[]`)
		}
		u = update(acp.UpdatePlan, "entries", p.Entries)
	case hub.EventModeChanged:
		u = update(acp.UpdateCurrentMode, "currentModeId", p.ModeID)
	case hub.EventAvailableCommands:
		u = update(acp.UpdateAvailableCommands, "availableCommands", p.Commands)
	case hub.EventConfigOptions:
		u = update(acp.UpdateConfigOption, "configOptions", p.ConfigOptions)
	case hub.EventUsage:
		u = withKind(p.Usage, acp.UpdateUsage)
	case hub.EventAgentUpdate:
		u = p.Update
	}
	return u, len(u) > 0 && u[0] == '{'
}

// withKind returns raw unchanged when it has a "sessionUpdate", else raw
// with kind added (a defensive case: the hub stores the agent's object).
func withKind(raw json.RawMessage, kind string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	if _, ok := m["sessionUpdate"]; ok {
		return raw
	}
	m["sessionUpdate"], _ = json.Marshal(kind)
	b, _ := json.Marshal(m)
	return b
}

// notifyUpdate sends one session/update to the editor.
func (b *bridgeServer) notifyUpdate(sessionID string, u json.RawMessage) {
	params := struct {
		SessionID string          `json:"sessionId"`
		Update    json.RawMessage `json:"update"`
	}{sessionID, u}
	b.conn.Notify("session/update", params)
}
