package editorbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

// Sessions are hub threads of the bridge's agent: session/new creates
// one; load, resume and list are served from the hub's threads and
// history, for every agent (whether or not it can load sessions itself);
// set_mode and set_config_option go to the thread's agent session.

func (b *server) newSession(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		Cwd        string            `json:"cwd"`
		MCPServers []json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, acp.NewError(acp.CodeInvalidParams, "session/new: %v", err)
	}
	if !filepath.IsAbs(p.Cwd) {
		return nil, acp.NewError(acp.CodeInvalidParams, "session/new: cwd must be an absolute path, not %q", p.Cwd)
	}
	// openSession: the hub starts the agent now, so the answer can carry
	// the session's modes and config options, as the agent's own would.
	// The editor's MCP servers go with the thread: the hub merges them
	// with its own (the editor's win by name).
	req := hub.CreateThreadRequest{Agent: b.opts.Agent, Cwd: p.Cwd, Host: b.opts.Host, OpenSession: true, MCPServers: p.MCPServers}
	b.mu.Lock()
	if caps := b.editorCaps; caps.Any() && b.opts.Host == "" { // a host's agent works on the host's files
		req.ClientCapabilities = &caps
	}
	b.mu.Unlock()
	th, err := b.hub.CreateThread(ctx, req)
	var he *client.Error
	if errors.As(err, &he) && he.Status == http.StatusBadRequest && strings.Contains(he.Message, "openSession") {
		// An older hub: create the thread without.
		th, err = b.hub.CreateThread(ctx, hub.CreateThreadRequest{Agent: b.opts.Agent, Cwd: p.Cwd, Host: b.opts.Host})
	}
	if err != nil {
		return nil, err
	}
	b.prompts(th.ID)
	res := withSessionState(map[string]any{"sessionId": th.ID}, th)
	if link := b.threadLink(ctx, th.ID); link != "" {
		res["_meta"] = map[string]any{"switchboard": map[string]string{"url": link, "threadId": th.ID}}
	}
	return res, nil
}

// threadLink asks the hub for a one-time login link that opens the
// thread in a browser (/#/t/<id>), and writes it to the bridge's log on
// stderr, where the editor keeps it: the user can follow the session in
// Switchboard. Never on stdout, which is the protocol. Best effort: ""
// when the hub cannot make one (an older hub).
func (b *server) threadLink(ctx context.Context, threadID string) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	link, err := b.hub.LoginLink(ctx, "/#/t/"+threadID)
	if err != nil {
		b.log.Warn("switchboard acp: no link to the thread", "thread", threadID, "err", err)
		return ""
	}
	if b.opts.Stderr != nil {
		fmt.Fprintf(b.opts.Stderr, "switchboard acp: thread %s: open it in Switchboard: %s (a one-time link, valid 30 s; `switchboard open %s` any time)\n", threadID, link, threadID)
	}
	return link
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
func (b *server) setMode(ctx context.Context, params json.RawMessage) (any, error) {
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
	if _, err := b.hub.SetMode(ctx, p.SessionID, p.ModeID); err != nil {
		return nil, err
	}
	return struct{}{}, nil
}

// setConfigOption serves session/set_config_option through POST
// /v1/threads/{id}/config-option; it answers the agent's updated options.
func (b *server) setConfigOption(ctx context.Context, params json.RawMessage) (any, error) {
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
	th, err := b.hub.SetConfigOption(ctx, p.SessionID, p.ConfigID, value)
	if err != nil {
		return nil, err
	}
	opts := th.ConfigOptions
	if len(opts) == 0 || opts[0] != '[' {
		opts = json.RawMessage(`[]`)
	}
	return map[string]any{"configOptions": opts}, nil
}

func (b *server) thread(ctx context.Context, id string) (hub.Thread, error) {
	if id == "" {
		return hub.Thread{}, acp.NewError(acp.CodeInvalidParams, "sessionId is required")
	}
	return b.hub.Thread(ctx, id)
}

// loadSession serves session/load (replay true) and session/resume: the
// thread must exist; load replays its history as session/update
// notifications before answering.
func (b *server) loadSession(ctx context.Context, params json.RawMessage, replay bool) (any, error) {
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
	if th.Agent != b.opts.Agent || th.Host != b.opts.Host {
		return nil, acp.NewError(acp.CodeResourceNotFound, "switchboard: session %s belongs to agent %q%s, not %q%s", th.ID, th.Agent, onHost(th.Host), b.opts.Agent, onHost(b.opts.Host))
	}
	b.prompts(th.ID)
	if !replay {
		return withSessionState(map[string]any{}, th), nil
	}
	// A page at a time: a long thread's whole history may be more than
	// the hub sends in one answer (64 MiB). Each turn's consecutive text
	// chunks go as one notification (coalesce.go).
	out := newCoalescer(func(u json.RawMessage) { b.notifyUpdate(th.ID, u) })
	out.child = b.notifyUpdate
	q := hub.HistoryQuery{IncludeEvents: true}
	for {
		page, err := b.hub.HistoryPage(ctx, th.ID, q)
		if err != nil {
			return nil, err
		}
		for _, t := range page.Turns {
			blocks := promptBlocks(t.Turn)
			switch {
			case blocks != nil:
			case t.Input == "":
				// Still one user chunk, where the turn begins.
				out.update(update(acp.UpdateUserMessageChunk, "content", acp.TextBlock("")))
			default:
				out.add(acp.UpdateUserMessageChunk, t.Input)
			}
			for _, c := range blocks {
				if text, ok := plainText(c); ok {
					out.add(acp.UpdateUserMessageChunk, text)
				} else {
					out.update(update(acp.UpdateUserMessageChunk, "content", c))
				}
			}
			for _, ev := range t.Events {
				out.event(ev)
			}
			out.flush() // never across turns
		}
		if page.NextCursor == "" {
			return withSessionState(map[string]any{}, th), nil
		}
		q.Cursor = page.NextCursor
	}
}

// promptBlocks is a turn's prompt as the content blocks it was sent as;
// nil when it was sent as text (hub.Turn.Input).
func promptBlocks(t hub.Turn) []json.RawMessage {
	var blocks []json.RawMessage
	if len(t.Content) > 0 && json.Unmarshal(t.Content, &blocks) == nil && len(blocks) > 0 {
		return blocks
	}
	return nil
}

func (b *server) listSessions(ctx context.Context, params json.RawMessage) (any, error) {
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
		page, err := b.hub.Threads(ctx, 100, cursor)
		if err != nil {
			return nil, err
		}
		for _, th := range page.Threads {
			if th.Agent != b.opts.Agent || th.Host != b.opts.Host || p.Cwd != "" && th.Cwd != p.Cwd {
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

// onHost names host in a message ("" for this machine).
func onHost(host string) string {
	if host == "" {
		return ""
	}
	return " on host " + host
}
