//go:build linux

package systest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/switchboard-hub/switchboard/acp/acptest"
	"github.com/switchboard-hub/switchboard/acp/acptest/fakemodel"
)

// editorWorkspace is the editor's side of fs/* and terminal/*: open
// buffers (which win over the disk, as in an editor) and terminals that
// run nothing. It records every request.
type editorWorkspace struct {
	mu      sync.Mutex
	buffers map[string]string // path → unsaved content
	calls   []string          // "<method> <path or command>", in order
	writes  map[string]string // path → content written
	session []string          // the sessionId of every request
}

func newEditorWorkspace() *editorWorkspace {
	return &editorWorkspace{buffers: map[string]string{}, writes: map[string]string{}}
}

func (w *editorWorkspace) note(sid sdk.SessionId, call string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls = append(w.calls, call)
	w.session = append(w.session, string(sid))
}

func (w *editorWorkspace) log() ([]string, []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.calls), slices.Clone(w.session)
}

func (w *editorWorkspace) written(path string) (string, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	c, ok := w.writes[path]
	return c, ok
}

func (w *editorWorkspace) ReadTextFile(p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	w.note(p.SessionId, "read "+p.Path)
	w.mu.Lock()
	c, ok := w.buffers[p.Path]
	w.mu.Unlock()
	if !ok {
		b, err := os.ReadFile(p.Path)
		if err != nil {
			return sdk.ReadTextFileResponse{}, &sdk.RequestError{Code: -32002, Message: "no such file: " + p.Path}
		}
		c = string(b)
	}
	return sdk.ReadTextFileResponse{Content: c}, nil
}

func (w *editorWorkspace) WriteTextFile(p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	w.note(p.SessionId, "write "+p.Path)
	w.mu.Lock()
	w.writes[p.Path], w.buffers[p.Path] = p.Content, p.Content
	w.mu.Unlock()
	return sdk.WriteTextFileResponse{}, nil
}

func (w *editorWorkspace) CreateTerminal(p sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	w.note(p.SessionId, "terminal/create "+strings.Join(append([]string{p.Command}, p.Args...), " "))
	return sdk.CreateTerminalResponse{TerminalId: "editor-term-1"}, nil
}

func (w *editorWorkspace) TerminalOutput(p sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	w.note(p.SessionId, "terminal/output "+p.TerminalId)
	zero := 0
	return sdk.TerminalOutputResponse{Output: "ran in the editor's terminal\n", ExitStatus: &sdk.TerminalExitStatus{ExitCode: &zero}}, nil
}

func (w *editorWorkspace) WaitForTerminalExit(p sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	w.note(p.SessionId, "terminal/wait_for_exit "+p.TerminalId)
	zero := 0
	return sdk.WaitForTerminalExitResponse{ExitCode: &zero}, nil
}

func (w *editorWorkspace) KillTerminal(p sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	w.note(p.SessionId, "terminal/kill "+p.TerminalId)
	return sdk.KillTerminalResponse{}, nil
}

func (w *editorWorkspace) ReleaseTerminal(p sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	w.note(p.SessionId, "terminal/release "+p.TerminalId)
	return sdk.ReleaseTerminalResponse{}, nil
}

// initializeWith initializes as an editor advertising caps, serving them
// from a new workspace.
func (b *bridgeProc) initializeWith(t *testing.T, caps sdk.ClientCapabilities) *editorWorkspace {
	t.Helper()
	b.ed.ws = newEditorWorkspace()
	_, err := b.conn.Initialize(bridgeCtx(t), sdk.InitializeRequest{
		ProtocolVersion:    sdk.ProtocolVersionNumber,
		ClientCapabilities: caps,
		ClientInfo:         &sdk.Implementation{Name: bridgeEditor, Version: "1.0"},
	})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return b.ed.ws
}

var everything = sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}, Terminal: true}

// An editor that advertises fs and terminal serves the agent's requests
// (the fake agent's, through the hub): reads see its unsaved buffer, not
// the disk; writes land in it, not on disk; commands run in its
// terminals, not on the hub. Each request carries the editor's session id.
func bridgeEditorFS(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	b := startBridge(t, bins, h, "fake")
	ws := b.initializeWith(t, everything)
	cwd := t.TempDir()
	sid := b.newSession(t, cwd)

	file := filepath.Join(cwd, "main.go")
	if err := os.WriteFile(file, []byte("on disk"), 0o600); err != nil {
		t.Fatal(err)
	}
	ws.buffers[file] = "in the editor's buffer"
	if got := agentText(b.mustPrompt(t, sid, "fs-read "+file, sdk.StopReasonEndTurn)); got != "fs-read ok: in the editor's buffer" {
		t.Errorf("fs-read: %q", got)
	}

	out := filepath.Join(cwd, "new.txt")
	if got := agentText(b.mustPrompt(t, sid, "fs-write "+out+" written by the agent", sdk.StopReasonEndTurn)); got != "fs-write ok" {
		t.Errorf("fs-write: %q", got)
	}
	if c, ok := ws.written(out); !ok || c != "written by the agent" {
		t.Errorf("the editor got %q (%v), want the agent's write", c, ok)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the write reached the disk (%v): it belongs to the editor", err)
	}
	// A write holding a secret: the stored event is redacted, the editor
	// still writes the file as the agent sent it.
	secret := "ghp_" + strings.Repeat("aB3", 12)
	env := filepath.Join(cwd, ".env")
	if got := agentText(b.mustPrompt(t, sid, "fs-write "+env+" TOKEN="+secret, sdk.StopReasonEndTurn)); got != "fs-write ok" {
		t.Errorf("fs-write of a secret: %q", got)
	}
	if c, ok := ws.written(env); !ok || c != "TOKEN="+secret {
		t.Errorf("the editor got %q (%v), want the secret as the agent wrote it", c, ok)
	}

	marker := filepath.Join(cwd, "ran-on-the-hub")
	want := "terminal exit 0 signal null truncated false\nran in the editor's terminal\n"
	if got := agentText(b.mustPrompt(t, sid, "terminal touch "+marker, sdk.StopReasonEndTurn)); got != want {
		t.Errorf("terminal: %q, want %q", got, want)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("the command ran on the hub (%v)", err)
	}

	calls, sessions := ws.log()
	wantCalls := []string{"read " + file, "write " + out, "write " + env, "terminal/create touch " + marker,
		"terminal/wait_for_exit editor-term-1", "terminal/output editor-term-1", "terminal/release editor-term-1"}
	if !slices.Equal(calls, wantCalls) {
		t.Errorf("editor calls %q, want %q", calls, wantCalls)
	}
	for _, s := range sessions {
		if s != sid {
			t.Errorf("a request carried session %q, not the editor's %q", s, sid)
		}
	}
	// The requests are in the thread's history, as client_request events.
	n := 0
	for _, tu := range h.history(sid, true, asEditor...) {
		for _, ev := range tu.Events {
			if ev.Type == "client_request" {
				n++
			}
		}
	}
	if n != len(wantCalls) {
		t.Errorf("%d client_request events in the history, want %d", n, len(wantCalls))
	}
	var raw struct {
		Turns []struct{ Events []json.RawMessage }
	}
	h.call("GET", "/v1/threads/"+sid+"/history?includeEvents=true", nil, 200, &raw, asEditor...)
	for _, tu := range raw.Turns {
		for _, ev := range tu.Events {
			if strings.Contains(string(ev), secret) {
				t.Errorf("stored unredacted: %s", ev)
			}
		}
	}
}

// An editor that advertises nothing: the hub serves fs and terminals.
func bridgeHubFS(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	b := startBridge(t, bins, h, "fake")
	ws := b.initializeWith(t, sdk.ClientCapabilities{})
	cwd := t.TempDir()
	sid := b.newSession(t, cwd)
	out := filepath.Join(cwd, "by-hub.txt")
	if got := agentText(b.mustPrompt(t, sid, "fs-write "+out+" written by the hub", sdk.StopReasonEndTurn)); got != "fs-write ok" {
		t.Errorf("fs-write: %q", got)
	}
	if c, err := os.ReadFile(out); err != nil || string(c) != "written by the hub" {
		t.Errorf("on disk: %q, %v", c, err)
	}
	if got := agentText(b.mustPrompt(t, sid, "fs-read "+out, sdk.StopReasonEndTurn)); got != "fs-read ok: written by the hub" {
		t.Errorf("fs-read: %q", got)
	}
	if calls, _ := ws.log(); len(calls) != 0 {
		t.Errorf("the editor was asked %q", calls)
	}
}

// session/prompt immediately followed by session/cancel, in one write:
// whichever the bridge handles first, the prompt ends cancelled.
func bridgeCancelFirst(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	b := startBridge(t, bins, h, "fake")
	b.mustInitialize(t)
	sid := b.newSession(t, t.TempDir())
	for i := range 5 {
		id := 90001 + i
		lines := `{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[{"type":"text","text":"hang"}]}}` + "\n" +
			`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"` + sid + `"}}` + "\n"
		if _, err := b.stdin.Write([]byte(lines)); err != nil {
			t.Fatal(err)
		}
		want := `{"jsonrpc":"2.0","id":` + itoa(id) + `,"result":{"stopReason":"cancelled"}}`
		if !waitFor(20*time.Second, func() bool { return strings.Contains(b.raw.String(), want) }) {
			t.Fatalf("prompt %d: no cancelled answer; the bridge wrote:\n%s", id, tail(b.raw.String(), 2000))
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// Qwen Code, offline against the fake model, behind the hub and the
// bridge, for an editor that advertises fs: a write tool call asks the
// editor's permission, and once approved Qwen writes through
// fs/write_text_file — which reaches the editor, not the disk.
func bridgeQwen(t *testing.T, bins e2eBins) {
	model := fakemodel.Start(t)
	ra := acptest.Qwen(t, acptest.ToolsDir(t), model.URL)
	h := newHub(t, bins, hubConfig{"agents": map[string]agentConf{"qwen-offline": realAgentConf("Qwen (offline)", ra)}})
	b := startBridge(t, bins, h, "qwen-offline")
	ws := b.initializeWith(t, sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}})
	cwd := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // Qwen starts in seconds, more under -race
	defer cancel()
	ns, err := b.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: cwd, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	sid := ns.SessionId
	if _, err := b.conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: sid, ModeId: sdk.SessionModeId(ra.AskMode)}); err != nil {
		t.Fatalf("session/set_mode %s: %v", ra.AskMode, err)
	}

	file := filepath.Join(cwd, "hello.txt")
	args, _ := json.Marshal(map[string]string{"file_path": file, "content": "hello from qwen\n"})
	model.Push(fakemodel.ToolCall("write_file", string(args)), fakemodel.Text("Wrote hello.txt."))
	var asked []string
	b.ed.setPerm(func(_ context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		asked = append(asked, string(p.SessionId))
		if _, err := os.Stat(file); err == nil {
			t.Error("the file exists before the permission was granted")
		}
		if _, ok := ws.written(file); ok {
			t.Error("the editor got the write before the permission was granted")
		}
		for _, o := range p.Options {
			if o.Kind == sdk.PermissionOptionKindAllowOnce {
				return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: o.OptionId}}}, nil
			}
		}
		t.Errorf("no allow_once option in %+v", p.Options)
		return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{}}}, nil
	})
	b.ed.take()
	r, err := b.conn.Prompt(ctx, sdk.PromptRequest{SessionId: sid, Prompt: []sdk.ContentBlock{sdk.TextBlock("Write hello.txt.")}})
	if err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	ups := b.ed.take()
	if r.StopReason != sdk.StopReasonEndTurn || !strings.Contains(agentText(ups), "Wrote hello.txt.") {
		t.Errorf("stop %q, text %q (updates %v)", r.StopReason, agentText(ups), kinds(ups))
	}
	if len(asked) != 1 || asked[0] != string(sid) {
		t.Errorf("permission requests for sessions %q, want one for %s", asked, sid)
	}
	calls, sessions := ws.log()
	t.Logf("Qwen's fs requests, as the editor saw them: %q", calls)
	// Qwen 0.24.4 writes with one fs/write_text_file, no read first.
	if want := []string{"write " + file}; !slices.Equal(calls, want) {
		t.Errorf("the editor was asked %q, want %q", calls, want)
	}
	if c, ok := ws.written(file); !ok || c != "hello from qwen\n" {
		t.Errorf("the editor got %q (%v), want Qwen's write; calls %q", c, ok, calls)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("Qwen's write reached the disk (%v): it belongs to the editor", err)
	}
	for _, s := range sessions {
		if s != string(sid) {
			t.Errorf("a request carried session %q, not the editor's %q", s, sid)
		}
	}
	ps := h.permissions("", asEditor...)
	if len(ps) != 1 || ps[0].DecidedBy != "client:"+bridgeClientID || ps[0].Status != "approved" {
		t.Errorf("permissions %+v", ps)
	}
}
