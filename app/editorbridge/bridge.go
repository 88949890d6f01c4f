// Package editorbridge is `switchboard acp`: an ACP agent on stdio that
// relays an editor (Zed, Neovim, Emacs, JetBrains) to the hub, which it
// reaches over the HTTP/SSE API through hub/client like any other client.
//
// An ACP session is a hub thread (the session id is the thread id), owned
// by the client "acp-<editor name>". session/prompt is a streamed hub turn
// whose events go back as session/update notifications (prompt.go);
// permissions are asked of the editor while they are pending in the hub
// too, and the first decision wins (permissions.go); the agent's fs and
// terminal requests go to the editor when it offers them
// (clientrequests.go). session/load, list and resume are served from the
// hub's history (threads.go). Consecutive text chunks may go to the
// editor as one notification (coalesce.go). With no hub running, the bridge starts
// `switchboard serve` (launch.go).
package editorbridge

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

// Options are what `switchboard acp` was told.
type Options struct {
	DataDir string // the hub's data dir: hub.json and the token
	Config  string // the config file, for a hub the bridge starts ("": the default)
	Agent   string // the hub's agent id every session uses
	// Host, when set, is the host (issue 30) the sessions run on: the
	// agent is that host's and so are the files it works on (the
	// editor's file and terminal capabilities are not offered to it).
	Host string
	// StartHub starts `switchboard serve` in the background when no hub
	// runs on DataDir.
	StartHub bool
	// Executable is the switchboard binary a started hub runs ("": this
	// process's own).
	Executable string
	Version    string // this build's version, in agentInfo

	Stdin          io.Reader
	Stdout, Stderr io.Writer // Stdout is the protocol; Stderr the log

	// MaxEventBytes caps one line of the hub's event streams (0:
	// client.DefaultMaxEventBytes); a longer event fails the prompt with
	// a clear error.
	MaxEventBytes int
}

// Run serves the editor until ctx is done or stdin closes. Decisions and
// cancels on their way to the hub get up to 5 s more.
func Run(ctx context.Context, o Options) error {
	log := slog.New(slog.NewTextHandler(o.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	b := newServer(o, log)
	conn := acp.NewConn(o.Stdin, o.Stdout, b, acp.ConnOptions{Logger: log})
	b.conn = conn
	select {
	case <-conn.Done():
	case <-ctx.Done():
		conn.Close()
	}
	b.bg.wait(5 * time.Second)
	return nil
}

// server is the ACP agent side of the bridge.
type server struct {
	opts Options
	hub  *client.Client
	conn *acp.Conn
	log  *slog.Logger
	bg   background // cancels and decisions on their way to the hub

	mu      sync.Mutex
	threads map[string]*threadPrompts // by thread id
	// editorCaps are the editor's fs and terminal capabilities from
	// initialize, given to the threads the bridge creates
	// (clientrequests.go).
	editorCaps hub.ClientCapabilities
	// editorElicit are the elicitation modes the editor serves
	// (elicitations.go).
	editorElicit elicitModes
}

func newServer(o Options, log *slog.Logger) *server {
	return &server{
		opts: o,
		hub: client.New(o.DataDir, client.Options{
			ClientID:      clientID(""),
			MaxEventBytes: o.MaxEventBytes,
		}),
		log:     log,
		threads: map[string]*threadPrompts{},
	}
}

// clientID is "acp-<editor>" with every character outside [A-Za-z0-9._-]
// replaced by '-', at most 64 characters ("acp-editor" for no name).
func clientID(editor string) string {
	if editor == "" {
		editor = "editor"
	}
	b := []byte("acp-" + editor)
	for i, ch := range b {
		ok := ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '.' || ch == '_' || ch == '-'
		if !ok {
			b[i] = '-'
		}
	}
	return string(b[:min(len(b), 64)])
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

// threadPrompts is what the bridge knows of one thread's prompts (an
// editor's ACP session is a thread: the session id is the thread id).
type threadPrompts struct {
	mu           sync.Mutex
	running      bool
	turnID       string // the running hub turn, once the hub named it
	cancelWanted bool   // session/cancel came before the turn id
	// queued counts the session's prompts dispatched whose handlers have
	// not begun; cancelQueued is set by a session/cancel that came while
	// one was queued and none ran (cancel.go).
	queued       int
	cancelQueued bool
	// onCancel is called (with mu held) on session/cancel while a prompt
	// runs.
	onCancel func()
}

func (b *server) prompts(id string) *threadPrompts {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.threads[id]
	if s == nil {
		s = &threadPrompts{}
		b.threads[id] = s
	}
	return s
}

// HandleRequest serves the editor's requests.
func (b *server) HandleRequest(ctx context.Context, method string, params json.RawMessage) (any, error) {
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
		return nil, b.rpcError(err)
	}
	return res, nil
}

// HandleNotification serves session/cancel; others are ignored.
func (b *server) HandleNotification(_ context.Context, method string, params json.RawMessage) {
	if method != "session/cancel" {
		return
	}
	var p struct {
		SessionID string `json:"sessionId"`
	}
	if json.Unmarshal(params, &p) != nil || p.SessionID == "" {
		return
	}
	s := b.prompts(p.SessionID)
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
func (b *server) cancelTurn(turnID string) {
	b.bg.Go(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := b.hub.CancelTurn(ctx, turnID); err != nil {
			b.log.Warn("switchboard acp: cancelling the turn failed", "turn", turnID, "err", err)
		}
	})
}

// rpcError turns a hub or bridge failure into the JSON-RPC error the
// editor gets.
func (b *server) rpcError(err error) error {
	var re *acp.Error
	if errors.As(err, &re) {
		return re
	}
	var he *client.Error
	if errors.As(err, &he) {
		msg := he.Message
		if msg == "" {
			msg = he.Error()
		}
		switch he.Status {
		case http.StatusNotFound:
			return acp.NewError(acp.CodeResourceNotFound, "switchboard: %s", msg)
		case http.StatusBadRequest:
			return acp.NewError(acp.CodeInvalidParams, "switchboard: %s", msg)
		case http.StatusUnauthorized:
			return acp.NewError(acp.CodeInternalError, "switchboard: the hub refused the token in %s (%s): was the token file replaced while the hub ran?",
				filepath.Join(b.opts.DataDir, hub.TokenFile), msg)
		}
		return acp.NewError(acp.CodeInternalError, "switchboard: %s", msg)
	}
	if errors.Is(err, context.Canceled) {
		return acp.NewError(acp.CodeRequestCancelled, "request cancelled")
	}
	return acp.NewError(acp.CodeInternalError, "switchboard: %v", err)
}

// notifyUpdate sends one session/update to the editor.
func (b *server) notifyUpdate(sessionID string, u json.RawMessage) {
	params := struct {
		SessionID string          `json:"sessionId"`
		Update    json.RawMessage `json:"update"`
	}{sessionID, u}
	b.conn.Notify("session/update", params)
}
