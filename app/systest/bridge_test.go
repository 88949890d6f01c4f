//go:build linux

package systest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
	"github.com/switchboard-hub/switchboard/hub"
)

// TestBridge drives `switchboard acp` (the headless binary, built once)
// with a third-party ACP client, github.com/coder/acp-go-sdk, as an editor
// would: against the real `switchboard serve` with the fake agent, the
// acp-go-sdk example agent and Qwen Code offline.
func TestBridge(t *testing.T) {
	bins := buildE2E(t)
	tests := []struct {
		name string
		run  func(*testing.T, e2eBins)
	}{
		{"Turn", bridgeTurn},
		{"PermissionEditor", bridgePermissionEditor},
		{"PermissionHub", bridgePermissionHub},
		{"Remember", bridgeRemember},
		{"Cancel", bridgeCancel},
		{"Load", bridgeLoad},
		{"LongOutput", bridgeLongOutput},                     // bridge_output_test.go
		{"Coalesce", bridgeCoalesce},                         // bridge_output_test.go
		{"MessagesAndSubagents", bridgeMessagesAndSubagents}, // bridge_output_test.go
		{"SignInRetry", bridgeSignInRetry},                   // bridge_output_test.go
		{"HubRestart", bridgeHubRestart},
		{"HubCrash", bridgeHubCrash},
		{"Errors", bridgeErrors},
		{"AutoStart", bridgeAutoStart},
		{"SDKAgent", bridgeSDKAgent},
		{"Modes", bridgeModes},
		{"EditorFS", bridgeEditorFS},
		{"HubFS", bridgeHubFS},
		{"CancelFirst", bridgeCancelFirst},
		{"Qwen", bridgeQwen},
		{"EditorsDoc", bridgeEditorsDoc},
		{"TokenRotate", bridgeTokenRotate},
		{"MCP", bridgeMCP}, // bridge_mcp_test.go
		// bridge_thirdparty_test.go: the scenarios above for third-party agents.
		{"SDKAgentPermissionHub", withAgent(sdkExampleAgent, thirdPartyPermissionHub)},
		{"SDKAgentCancel", withAgent(sdkExampleAgent, thirdPartyCancel)},
		{"SDKAgentLoad", withAgent(sdkExampleAgent, thirdPartyLoad)},
		{"SDKAgentHubRestart", withAgent(sdkExampleAgent, thirdPartyHubRestart)},
		{"QwenPermissionHub", withAgent(qwenOffline, thirdPartyPermissionHub)},
		{"QwenCancel", withAgent(qwenOffline, thirdPartyCancel)},
		{"QwenLoad", withAgent(qwenOffline, thirdPartyLoad)},
		{"QwenHubRestart", withAgent(qwenOffline, thirdPartyHubRestart)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.run(t, bins)
		})
	}
}

// The editor's name in clientInfo, and so the bridge's X-Client-ID.
const (
	bridgeEditor   = "bridge-test"
	bridgeClientID = "acp-bridge-test"
	bridgeTimeout  = 60 * time.Second
)

// asEditor are the headers that make a test request as the bridge's client.
var asEditor = []string{"X-Client-ID", bridgeClientID}

// ---- the editor --------------------------------------------------------------

// testEditor is the ACP client side: it records updates and answers
// permission requests with perm.
type testEditor struct {
	mu      sync.Mutex
	updates []sdk.SessionNotification
	perm    func(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error)
	// ws, when set, serves fs/* and terminal/* (bridge_fs_test.go);
	// otherwise they fail with errNoFS.
	ws *editorWorkspace
	// slow, when set, is how long each session/update takes the editor
	// (a slow editor: bridge_output_test.go).
	slow time.Duration
}

var _ sdk.Client = (*testEditor)(nil)

func (e *testEditor) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	e.mu.Lock()
	slow := e.slow
	e.mu.Unlock()
	time.Sleep(slow)
	e.mu.Lock()
	e.updates = append(e.updates, n)
	e.mu.Unlock()
	return nil
}

func (e *testEditor) RequestPermission(ctx context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	e.mu.Lock()
	f := e.perm
	e.mu.Unlock()
	if f == nil {
		return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{}}}, nil
	}
	return f(ctx, p)
}

func (e *testEditor) setSlow(d time.Duration) {
	e.mu.Lock()
	e.slow = d
	e.mu.Unlock()
}

func (e *testEditor) setPerm(f func(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error)) {
	e.mu.Lock()
	e.perm = f
	e.mu.Unlock()
}

// take returns the updates received so far and forgets them.
func (e *testEditor) take() []sdk.SessionNotification {
	e.mu.Lock()
	defer e.mu.Unlock()
	u := e.updates
	e.updates = nil
	return u
}

var errNoFS = errors.New("this editor serves no files or terminals")

func (e *testEditor) ReadTextFile(_ context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	if e.ws == nil {
		return sdk.ReadTextFileResponse{}, errNoFS
	}
	return e.ws.ReadTextFile(p)
}
func (e *testEditor) WriteTextFile(_ context.Context, p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	if e.ws == nil {
		return sdk.WriteTextFileResponse{}, errNoFS
	}
	return e.ws.WriteTextFile(p)
}
func (e *testEditor) CreateTerminal(_ context.Context, p sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	if e.ws == nil {
		return sdk.CreateTerminalResponse{}, errNoFS
	}
	return e.ws.CreateTerminal(p)
}
func (e *testEditor) KillTerminal(_ context.Context, p sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	if e.ws == nil {
		return sdk.KillTerminalResponse{}, errNoFS
	}
	return e.ws.KillTerminal(p)
}
func (e *testEditor) TerminalOutput(_ context.Context, p sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	if e.ws == nil {
		return sdk.TerminalOutputResponse{}, errNoFS
	}
	return e.ws.TerminalOutput(p)
}
func (e *testEditor) ReleaseTerminal(_ context.Context, p sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	if e.ws == nil {
		return sdk.ReleaseTerminalResponse{}, errNoFS
	}
	return e.ws.ReleaseTerminal(p)
}
func (e *testEditor) WaitForTerminalExit(_ context.Context, p sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	if e.ws == nil {
		return sdk.WaitForTerminalExitResponse{}, errNoFS
	}
	return e.ws.WaitForTerminalExit(p)
}

// kinds names each update's kind, as the SDK parsed it.
func kinds(ns []sdk.SessionNotification) []string {
	var out []string
	for _, n := range ns {
		u := n.Update
		switch {
		case u.UserMessageChunk != nil:
			out = append(out, "user_message_chunk")
		case u.AgentMessageChunk != nil:
			out = append(out, "agent_message_chunk")
		case u.AgentThoughtChunk != nil:
			out = append(out, "agent_thought_chunk")
		case u.ToolCall != nil:
			out = append(out, "tool_call")
		case u.ToolCallUpdate != nil:
			out = append(out, "tool_call_update")
		case u.Plan != nil:
			out = append(out, "plan")
		case u.UsageUpdate != nil:
			out = append(out, "usage_update")
		default:
			out = append(out, "other")
		}
	}
	return out
}

// textRuns is kinds with each run of text chunks of one kind as one: the
// updates a session/load replays for what was streamed (the bridge
// coalesces text chunks).
func textRuns(kinds []string) []string {
	return slices.CompactFunc(slices.Clone(kinds), func(a, b string) bool {
		return a == b && strings.HasSuffix(a, "_chunk")
	})
}

// agentText is the text of the agent_message_chunks (userText: of the
// user_message_chunks).
func agentText(ns []sdk.SessionNotification) string {
	var b strings.Builder
	for _, n := range ns {
		if c := n.Update.AgentMessageChunk; c != nil && c.Content.Text != nil {
			b.WriteString(c.Content.Text.Text)
		}
	}
	return b.String()
}

func userText(ns []sdk.SessionNotification) string {
	var b strings.Builder
	for _, n := range ns {
		if c := n.Update.UserMessageChunk; c != nil && c.Content.Text != nil {
			b.WriteString(c.Content.Text.Text)
		}
	}
	return b.String()
}

// ---- the bridge process --------------------------------------------------------

// bridgeProc is one `switchboard acp` process with an acp-go-sdk client
// on its stdio.
type bridgeProc struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	conn   *sdk.ClientSideConnection
	ed     *testEditor
	stderr *testkit.Buffer
	raw    *testkit.Buffer // everything the bridge wrote on stdout
	exited chan struct{}
}

// startBridge starts `switchboard acp --agent agent` on the data dir and
// config of h (which need not be running).
func startBridge(t *testing.T, bins e2eBins, h *hubProc, agent string, extra ...string) *bridgeProc {
	t.Helper()
	args := append([]string{"acp", "--agent", agent, "--data-dir", h.dataDir, "--config", h.config}, extra...)
	return startBridgeCmd(t, exec.Command(bins.switchboard, args...), hubEnv())
}

// startBridgeCmd starts cmd, a bridge command line, with env.
func startBridgeCmd(t *testing.T, cmd *exec.Cmd, env []string) *bridgeProc {
	t.Helper()
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	b := &bridgeProc{t: t, cmd: cmd, ed: &testEditor{}, stderr: &testkit.Buffer{}, raw: &testkit.Buffer{}, exited: make(chan struct{})}
	cmd.Stderr = b.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { cmd.Wait(); close(b.exited) }()
	b.stdin = stdin
	b.conn = sdk.NewClientSideConnection(b.ed, stdin, io.TeeReader(stdout, b.raw))
	b.conn.SetLogger(slog.New(slog.DiscardHandler))
	t.Cleanup(func() {
		b.stop()
		if t.Failed() {
			t.Logf("bridge stderr:\n%s", tail(b.stderr.String(), 8192))
		}
	})
	return b
}

// stop closes the bridge's stdin and waits for it to exit (killing it
// after 10 s).
func (b *bridgeProc) stop() {
	b.stdin.Close()
	select {
	case <-b.exited:
	case <-time.After(10 * time.Second):
		b.t.Errorf("the bridge did not exit within 10s of stdin EOF")
		syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
		<-b.exited
	}
}

func bridgeCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), bridgeTimeout)
	t.Cleanup(cancel)
	return ctx
}

func (b *bridgeProc) initialize(t *testing.T) (sdk.InitializeResponse, error) {
	t.Helper()
	return b.conn.Initialize(bridgeCtx(t), sdk.InitializeRequest{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientInfo:      &sdk.Implementation{Name: bridgeEditor, Version: "1.0"},
	})
}

func (b *bridgeProc) mustInitialize(t *testing.T) sdk.InitializeResponse {
	t.Helper()
	r, err := b.initialize(t)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return r
}

func (b *bridgeProc) newSession(t *testing.T, cwd string) string {
	t.Helper()
	r, err := b.conn.NewSession(bridgeCtx(t), sdk.NewSessionRequest{Cwd: cwd, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	if r.SessionId == "" {
		t.Fatal("session/new: no session id")
	}
	return string(r.SessionId)
}

// listAndLoad checks that session/list for cwd offers exactly sid, loads
// it, and returns the updates the load replayed.
func (b *bridgeProc) listAndLoad(t *testing.T, sid, cwd string) []sdk.SessionNotification {
	t.Helper()
	ctx := bridgeCtx(t)
	list, err := b.conn.ListSessions(ctx, sdk.ListSessionsRequest{Cwd: &cwd})
	if err != nil {
		t.Fatalf("session/list: %v", err)
	}
	if len(list.Sessions) != 1 || string(list.Sessions[0].SessionId) != sid || list.Sessions[0].Cwd != cwd {
		t.Fatalf("session/list %+v: want only %s", list.Sessions, sid)
	}
	if _, err := b.conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: sdk.SessionId(sid), Cwd: cwd, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	return b.ed.take()
}

func (b *bridgeProc) prompt(t *testing.T, sid, text string) (sdk.PromptResponse, error) {
	t.Helper()
	return b.conn.Prompt(bridgeCtx(t), sdk.PromptRequest{SessionId: sdk.SessionId(sid), Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
}

// mustPrompt prompts and wants the stop reason; it returns the updates of
// the turn.
func (b *bridgeProc) mustPrompt(t *testing.T, sid, text string, stop sdk.StopReason) []sdk.SessionNotification {
	t.Helper()
	b.ed.take()
	r, err := b.prompt(t, sid, text)
	if err != nil {
		t.Fatalf("session/prompt %q: %v", text, err)
	}
	if r.StopReason != stop {
		t.Fatalf("session/prompt %q: stop reason %q, want %q", text, r.StopReason, stop)
	}
	return b.ed.take()
}

// wantErr checks that err is a JSON-RPC error whose message has want.
func wantErr(t *testing.T, what string, err error, want string) {
	t.Helper()
	var re *sdk.RequestError
	if !errors.As(err, &re) {
		t.Fatalf("%s: got %v, want a JSON-RPC error saying %q", what, err, want)
	}
	if !strings.Contains(fmt.Sprint(re.Message, re.Data), want) {
		t.Fatalf("%s: error %d %q (%v), want it to say %q", what, re.Code, re.Message, re.Data, want)
	}
}

// ---- the tests -----------------------------------------------------------------

// A full turn: initialize, session/new as a hub thread of acp-<editor>,
// prompts whose hub events come back as the agent's updates.
func bridgeTurn(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	b := startBridge(t, bins, h, "fake")
	init := b.mustInitialize(t)
	if init.ProtocolVersion != 1 || !init.AgentCapabilities.LoadSession || init.AgentInfo == nil || init.AgentInfo.Name != "switchboard" {
		t.Errorf("initialize: %+v", init)
	}
	cwd := t.TempDir()
	sid := b.newSession(t, cwd)
	th := h.thread(sid, asEditor...)
	if th.ClientID != bridgeClientID || th.Cwd != cwd || th.Agent != "fake" {
		t.Errorf("thread %+v: want client %s, cwd %s, agent fake", th, bridgeClientID, cwd)
	}

	ups := b.mustPrompt(t, sid, "echo hello there", sdk.StopReasonEndTurn)
	if got := agentText(ups); got != "hello there" {
		t.Errorf("echo: text %q (updates %v)", got, kinds(ups))
	}

	ups = b.mustPrompt(t, sid, "tools", sdk.StopReasonEndTurn)
	if got, want := kinds(ups), []string{"tool_call", "tool_call_update", "tool_call_update", "plan"}; !slices.Equal(got, want) {
		t.Errorf("tools: updates %v, want %v", got, want)
	} else {
		if tc := ups[0].Update.ToolCall; tc.Title != "Write hello.txt" || tc.ToolCallId == "" {
			t.Errorf("tool_call %+v", tc)
		}
		if p := ups[3].Update.Plan; len(p.Entries) != 2 || p.Entries[0].Content != "Write hello.txt" {
			t.Errorf("plan %+v", p)
		}
	}

	ups = b.mustPrompt(t, sid, "think", sdk.StopReasonEndTurn)
	if got := kinds(ups); !slices.Equal(got, []string{"agent_thought_chunk", "agent_message_chunk"}) {
		t.Errorf("think: updates %v", got)
	}

	// Updates the hub does not type come back exactly as the agent sent
	// them (the SDK would relabel an unknown kind: read the raw lines).
	b.mustPrompt(t, sid, "unknown-update", sdk.StopReasonEndTurn)
	for _, want := range []string{
		`"update":{"sessionUpdate":"future_kind_xyz","futureField":{"nested":[1,2,3],"flag":true},"note":"from the future","_meta":{"fake":"yes"}}`,
		`"update":{"sessionUpdate":"usage_update","used":1234,"size":200000,"cost":{"amount":0.0123,"currency":"USD"}}`,
	} {
		if !strings.Contains(b.raw.String(), want) {
			t.Errorf("the bridge's output lacks %s", want)
		}
	}

	// A prompt on an unknown session: not found.
	_, err := b.prompt(t, "th_nonexistent", "echo x")
	wantErr(t, "prompt on an unknown session", err, "not found")
}

// A permission answered by the editor: the hub records decidedBy
// client:acp-<editor> (the bridge is a token holder like any).
func bridgePermissionEditor(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	b := startBridge(t, bins, h, "fake")
	b.mustInitialize(t)
	sid := b.newSession(t, t.TempDir())
	asked := make(chan sdk.RequestPermissionRequest, 1)
	b.ed.setPerm(func(_ context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		asked <- p
		// At this moment the permission is pending in the hub too.
		if ps := h.permissions("pending", asEditor...); len(ps) != 1 {
			t.Errorf("pending in the hub while the editor is asked: %+v", ps)
		}
		return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: "allow-once"}}}, nil
	})
	ups := b.mustPrompt(t, sid, "permission", sdk.StopReasonEndTurn)
	if got := agentText(ups); got != "outcome: selected allow-once" {
		t.Errorf("agent said %q", got)
	}
	p := <-asked
	// The agent's three options, then the bridge's two (bridgeRemember).
	if string(p.SessionId) != sid || len(p.Options) != 5 || p.Options[0].OptionId != "allow-once" || p.ToolCall.Title == nil || *p.ToolCall.Title != "Run make clean" {
		t.Errorf("request_permission %+v", p)
	}
	// The hub's description leads the tool call's content, in words any
	// ACP editor shows.
	if c := p.ToolCall.Content; len(c) == 0 || c[0].Content == nil || c[0].Content.Content.Text == nil ||
		!strings.HasPrefix(c[0].Content.Content.Text.Text, "Switchboard — what approving allows (Agent request: run a command):") ||
		!strings.Contains(c[0].Content.Content.Text.Text, "The agent says: “Run make clean”") {
		t.Errorf("request_permission content %+v: want the hub's description first", c)
	}
	ps := h.permissions("", asEditor...)
	if len(ps) != 1 || ps[0].Status != "approved" || ps[0].DecidedBy != "client:"+bridgeClientID || ps[0].OptionID != "allow-once" {
		t.Errorf("hub permissions %+v: want one approved by client:%s with allow-once", ps, bridgeClientID)
	}
}

// "Allow always in this thread (Switchboard)", chosen in the editor: the
// hub approves the request with remember "thread" (decidedBy and the
// rule's createdBy client:acp-<editor>); the same request again in that
// session is decided by the rule (remembered:<id>) without asking the
// editor; a new session in the same folder is asked again, and "Deny
// always in this thread" there refuses it and remembers that too.
func bridgeRemember(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	b := startBridge(t, bins, h, "fake")
	b.mustInitialize(t)
	cwd := t.TempDir()
	sid := b.newSession(t, cwd)
	asked := make(chan sdk.RequestPermissionRequest, 8)
	choose := func(id string) {
		b.ed.setPerm(func(_ context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
			asked <- p
			return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: sdk.PermissionOptionId(id)}}}, nil
		})
	}
	choose("switchboard.remember.thread.allow")
	if got := agentText(b.mustPrompt(t, sid, "permission", sdk.StopReasonEndTurn)); got != "outcome: selected allow-once" {
		t.Fatalf("agent said %q", got)
	}
	p := <-asked
	var got []string
	for _, o := range p.Options {
		got = append(got, fmt.Sprintf("%s|%s|%s", o.OptionId, o.Name, o.Kind))
	}
	if len(got) != 5 || !strings.HasPrefix(got[0], "allow-once|") ||
		got[3] != "switchboard.remember.thread.allow|Allow always in this thread (Switchboard)|allow_always" ||
		got[4] != "switchboard.remember.thread.deny|Deny always in this thread (Switchboard)|reject_always" {
		t.Errorf("options offered to the editor: %q", got)
	}
	ps := h.permissions("", asEditor...)
	if len(ps) != 1 || ps[0].Status != "approved" || ps[0].DecidedBy != "client:"+bridgeClientID || ps[0].OptionID != "allow-once" {
		t.Fatalf("hub permissions %+v: want one approved by client:%s with allow-once", ps, bridgeClientID)
	}
	first := ps[0].ID
	var rules struct{ Rules []hub.RememberedRule }
	h.call("GET", "/v1/rules", nil, 200, &rules, asEditor...)
	if len(rules.Rules) != 1 {
		t.Fatalf("rules %+v, want the one remembered", rules.Rules)
	}
	r := rules.Rules[0]
	if r.Scope != "thread" || r.ThreadID != sid || r.Decision != "allow" || r.Kind != "execute" ||
		r.CreatedBy != "client:"+bridgeClientID || r.PermissionID != first {
		t.Errorf("rule %+v", r)
	}

	// The same request in the same session: the rule decides, the editor
	// is not asked.
	if got := agentText(b.mustPrompt(t, sid, "permission", sdk.StopReasonEndTurn)); got != "outcome: selected allow-once" {
		t.Fatalf("second prompt: agent said %q", got)
	}
	select {
	case p := <-asked:
		t.Fatalf("the editor was asked again: %+v", p)
	default:
	}
	var second apiPermission
	for _, p := range h.permissions("", asEditor...) {
		if p.ID != first {
			second = p
		}
	}
	if second.Status != "approved" || second.DecidedBy != "remembered:"+r.ID {
		t.Errorf("second permission %+v, want approved by remembered:%s", second, r.ID)
	}

	// Another session in the same folder: asked; "Deny always in this
	// thread" refuses it and is remembered for that thread.
	sid2 := b.newSession(t, cwd)
	choose("switchboard.remember.thread.deny")
	if got := agentText(b.mustPrompt(t, sid2, "permission", sdk.StopReasonEndTurn)); got != "outcome: selected reject-once" {
		t.Fatalf("other session: agent said %q", got)
	}
	select {
	case <-asked:
	default:
		t.Fatal("the editor was not asked in another session")
	}
	h.call("GET", "/v1/rules", nil, 200, &rules, asEditor...)
	if len(rules.Rules) != 2 {
		t.Fatalf("rules %+v, want two", rules.Rules)
	}
	for _, r := range rules.Rules {
		if r.ThreadID == sid2 && (r.Decision != "deny" || r.CreatedBy != "client:"+bridgeClientID) {
			t.Errorf("the deny rule %+v", r)
		}
	}
}

// A permission answered in the hub while the editor waits: the editor's
// request is cancelled ($/cancel_request) and the turn goes on.
func bridgePermissionHub(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	b := startBridge(t, bins, h, "fake")
	b.mustInitialize(t)
	sid := b.newSession(t, t.TempDir())
	asked := make(chan struct{}, 1)
	released := make(chan struct{}, 1)
	b.ed.setPerm(func(ctx context.Context, _ sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		asked <- struct{}{}
		<-ctx.Done() // the editor's user never answers
		released <- struct{}{}
		return sdk.RequestPermissionResponse{}, ctx.Err()
	})
	type result struct {
		r   sdk.PromptResponse
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := b.prompt(t, sid, "permission")
		done <- result{r, err}
	}()
	select {
	case <-asked:
	case <-time.After(bridgeTimeout):
		t.Fatal("the editor was not asked")
	}
	ps := h.permissions("pending", asEditor...)
	if len(ps) != 1 {
		t.Fatalf("pending permissions %+v", ps)
	}
	h.call("POST", "/v1/permissions/"+ps[0].ID+"?scope=all", map[string]string{"optionId": "reject-once"}, 200, nil, "X-Client-ID", "script")
	select {
	case <-released:
	case <-time.After(10 * time.Second):
		t.Fatal("the editor's permission request was not cancelled after the hub decided")
	}
	res := <-done
	if res.err != nil || res.r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v, %v", res.r, res.err)
	}
	if got := agentText(b.ed.take()); got != "outcome: selected reject-once" {
		t.Errorf("agent said %q", got)
	}
	if got := h.permissions("", asEditor...); len(got) != 1 || got[0].DecidedBy != "client:script" || got[0].Status != "declined" {
		t.Errorf("permissions %+v: want one declined by client:script", got)
	}
}

// session/cancel cancels the hub turn: the prompt answers cancelled.
func bridgeCancel(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	b := startBridge(t, bins, h, "fake")
	b.mustInitialize(t)
	sid := b.newSession(t, t.TempDir())
	// Start the agent first: the hub itself loses a cancel that arrives
	// while it sets up the agent's session (see the report).
	b.mustPrompt(t, sid, "echo warm", sdk.StopReasonEndTurn)
	type result struct {
		r   sdk.PromptResponse
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := b.prompt(t, sid, "hang")
		done <- result{r, err}
	}()
	if !waitFor(bridgeTimeout, func() bool { return h.thread(sid, asEditor...).Status == "running" }) {
		t.Fatal("the turn did not start")
	}
	start := time.Now()
	if err := b.conn.Cancel(bridgeCtx(t), sdk.CancelNotification{SessionId: sdk.SessionId(sid)}); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-done:
		if res.err != nil || res.r.StopReason != sdk.StopReasonCancelled {
			t.Fatalf("prompt: %+v, %v: want cancelled", res.r, res.err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the prompt did not end within 15s of session/cancel")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("cancel took %v", d)
	}
	// The session is usable again.
	b.mustPrompt(t, sid, "echo after", sdk.StopReasonEndTurn)

	// A cancel at once, while the hub may still be starting the agent: the
	// prompt answers cancelled within the bridge's grace period even if
	// the hub loses the cancel.
	sid2 := b.newSession(t, t.TempDir())
	go func() {
		r, err := b.prompt(t, sid2, "hang")
		done <- result{r, err}
	}()
	if !waitFor(bridgeTimeout, func() bool { return h.thread(sid2, asEditor...).Status == "running" }) {
		t.Fatal("the turn did not start")
	}
	if err := b.conn.Cancel(bridgeCtx(t), sdk.CancelNotification{SessionId: sdk.SessionId(sid2)}); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-done:
		if res.err != nil || res.r.StopReason != sdk.StopReasonCancelled {
			t.Fatalf("prompt: %+v, %v: want cancelled", res.r, res.err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the prompt did not end within 20s of session/cancel")
	}
}

// session/list and session/load over the hub's stored threads, from a
// new bridge process.
func bridgeLoad(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	cwd, other := t.TempDir(), t.TempDir()
	b1 := startBridge(t, bins, h, "fake")
	b1.mustInitialize(t)
	sid := b1.newSession(t, cwd)
	b1.mustPrompt(t, sid, "echo first answer", sdk.StopReasonEndTurn)
	b1.mustPrompt(t, sid, "tools", sdk.StopReasonEndTurn)
	b1.newSession(t, other)
	b1.stop()

	b2 := startBridge(t, bins, h, "fake")
	b2.mustInitialize(t)
	ups := b2.listAndLoad(t, sid, cwd)
	// A message may be stored in more pieces than the agent sent
	// (redaction holds its last word back): the replay sends each run of
	// text chunks as one.
	if got, want := kinds(ups), []string{"user_message_chunk", "agent_message_chunk", "user_message_chunk", "tool_call", "tool_call_update", "tool_call_update", "plan"}; !slices.Equal(got, want) {
		t.Errorf("replay %v, want %v", got, want)
	}
	if got := userText(ups); got != "echo first answertools" {
		t.Errorf("replayed user text %q", got)
	}
	if got := agentText(ups); got != "first answer" {
		t.Errorf("replayed agent text %q", got)
	}
	// The loaded session goes on.
	if got := agentText(b2.mustPrompt(t, sid, "echo second", sdk.StopReasonEndTurn)); got != "second" {
		t.Errorf("after load: %q", got)
	}
	_, err := b2.conn.LoadSession(bridgeCtx(t), sdk.LoadSessionRequest{SessionId: "th_nonexistent", Cwd: cwd, McpServers: []sdk.McpServer{}})
	wantErr(t, "loading an unknown session", err, "not found")
}

// The hub going away and coming back (on another port) under the bridge:
// clear errors, never a hang, then the same session works again.
func bridgeHubRestart(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	// fakeload: the restarted hub's new agent process reopens the session
	// (without it, the hub prefixes the prompt with the thread's context,
	// which the fake agent would take for its script).
	b := startBridge(t, bins, h, "fakeload")
	b.mustInitialize(t)
	sid := b.newSession(t, t.TempDir())
	b.mustPrompt(t, sid, "echo one", sdk.StopReasonEndTurn)

	// Mid-turn.
	done := make(chan error, 1)
	go func() {
		_, err := b.prompt(t, sid, "hang")
		done <- err
	}()
	if !waitFor(bridgeTimeout, func() bool { return h.thread(sid, asEditor...).Status == "running" }) {
		t.Fatal("the turn did not start")
	}
	h.stop()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("prompt succeeded while the hub stopped")
		}
		wantErr(t, "prompt while the hub stops", err, "hub")
	case <-time.After(40 * time.Second):
		t.Fatal("the prompt hangs after the hub stopped")
	}

	// Between hubs.
	start := time.Now()
	_, err := b.prompt(t, sid, "echo nobody")
	wantErr(t, "prompt with no hub", err, "hub")
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the error took %v", d)
	}

	h.start()
	if got := agentText(b.mustPrompt(t, sid, "echo back again", sdk.StopReasonEndTurn)); got != "back again" {
		t.Errorf("after the restart: %q", got)
	}
}

// The hub killed (-9) mid-turn: hub.json stays behind naming a dead
// address; the prompt fails after the bridge's reconnection attempts,
// never hangs, and the restarted hub serves the session again.
func bridgeHubCrash(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	b := startBridge(t, bins, h, "fakeload")
	b.mustInitialize(t)
	sid := b.newSession(t, t.TempDir())
	done := make(chan error, 1)
	go func() {
		_, err := b.prompt(t, sid, "hang")
		done <- err
	}()
	if !waitFor(bridgeTimeout, func() bool { return h.thread(sid, asEditor...).Status == "running" }) {
		t.Fatal("the turn did not start")
	}
	h.kill9()
	select {
	case err := <-done:
		wantErr(t, "prompt while the hub dies", err, "the hub went away")
	case <-time.After(40 * time.Second):
		t.Fatal("the prompt hangs after the hub died")
	}
	_, err := b.prompt(t, sid, "echo nobody")
	wantErr(t, "prompt with a dead hub", err, "does not answer")

	h.start()
	if got := agentText(b.mustPrompt(t, sid, "echo recovered", sdk.StopReasonEndTurn)); got != "recovered" {
		t.Errorf("after the restart: %q", got)
	}
	// The interrupted turn is in the history.
	ts := h.history(sid, false, asEditor...)
	if len(ts) != 2 || ts[0].Status != "interrupted" || ts[1].Status != "completed" {
		t.Errorf("history %+v", ts)
	}
}

// An unknown agent, no hub, a refused token: clear JSON-RPC errors.
func bridgeErrors(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)

	b := startBridge(t, bins, h, "nope")
	_, err := b.initialize(t)
	wantErr(t, "unknown agent", err, `unknown agent "nope"`)

	none := prepareHub(t, bins, nil)
	b = startBridge(t, bins, none, "fake", "--start-hub=false")
	_, err = b.initialize(t)
	wantErr(t, "no hub", err, "no Switchboard hub is running")

	b = startBridge(t, bins, h, "fake")
	b.mustInitialize(t)
	sid := b.newSession(t, t.TempDir())
	tokPath := filepath.Join(h.dataDir, "token")
	good, err := os.ReadFile(tokPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tokPath, []byte(strings.Repeat("ab", 32)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The running bridge keeps the token it read (the hub still takes it);
	// a new bridge reads the one the hub refuses.
	b2 := startBridge(t, bins, h, "fake")
	_, err = b2.initialize(t)
	// Its hub cannot prove it knows that token: the bridge does not send it.
	wantErr(t, "bad token", err, "did not prove it knows the token")
	os.WriteFile(tokPath, good, 0o600)

	// A config option the agent does not have: its refusal, passed on.
	_, err = b.conn.SetSessionConfigOption(bridgeCtx(t), sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
		SessionId: sdk.SessionId(sid), ConfigId: "temperature", Value: "hot"}})
	wantErr(t, "set_config_option", err, "refused session/set_config_option")
}

// No hub running: the bridge starts `switchboard serve` in the background,
// says so on stderr, and relays to it.
func bridgeAutoStart(t *testing.T, bins e2eBins) {
	h := prepareHub(t, bins, hubConfig{"listen": "127.0.0.1:0"})
	t.Cleanup(func() {
		d, err := h.discovery()
		if err != nil || d.PID <= 0 {
			return
		}
		syscall.Kill(d.PID, syscall.SIGTERM)
		if !waitFor(20*time.Second, func() bool { return !alive(d.PID) }) {
			syscall.Kill(d.PID, syscall.SIGKILL)
		}
	})
	b := startBridge(t, bins, h, "fake")
	b.mustInitialize(t)
	if !strings.Contains(b.stderr.String(), "starting `switchboard serve") {
		t.Errorf("stderr %q: want it to say it starts the hub", b.stderr.String())
	}
	d, err := h.discovery()
	if err != nil || !alive(d.PID) {
		t.Fatalf("hub.json %+v, %v: want a running hub", d, err)
	}
	sid := b.newSession(t, t.TempDir())
	if got := agentText(b.mustPrompt(t, sid, "echo started", sdk.StopReasonEndTurn)); got != "started" {
		t.Errorf("text %q", got)
	}
	// The hub outlives the bridge.
	b.stop()
	if !alive(d.PID) {
		t.Error("the hub exited with the bridge")
	}
}

// The acp-go-sdk example agent behind the hub, its permission answered by
// the editor.
func bridgeSDKAgent(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, hubConfig{"agents": map[string]agentConf{"sdk": {Name: "SDK example", Command: bins.sdkAgent}}})
	b := startBridge(t, bins, h, "sdk")
	b.mustInitialize(t)
	sid := b.newSession(t, t.TempDir())
	b.ed.setPerm(allowOnce)
	ups := b.mustPrompt(t, sid, "please fix the config", sdk.StopReasonEndTurn)
	ks := kinds(ups)
	for _, want := range []string{"agent_message_chunk", "tool_call", "tool_call_update"} {
		if !slices.Contains(ks, want) {
			t.Errorf("updates %v lack %s", ks, want)
		}
	}
	if got := agentText(ups); !strings.Contains(got, "successfully updated the configuration") {
		t.Errorf("agent said %q", got)
	}
	ps := h.permissions("", asEditor...)
	if len(ps) != 1 || ps[0].DecidedBy != "client:"+bridgeClientID || ps[0].Status != "approved" {
		t.Errorf("permissions %+v", ps)
	}
}

// The agent's capabilities, modes and config options reach the editor:
// initialize reports the agent's prompt capabilities (the hub probed it),
// session/new its modes and options, and session/set_mode and
// session/set_config_option go through the hub to the agent.
func bridgeModes(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	b := startBridge(t, bins, h, "fake")
	init := b.mustInitialize(t)
	pc := init.AgentCapabilities.PromptCapabilities
	if !init.AgentCapabilities.LoadSession || !pc.Image || !pc.Audio || !pc.EmbeddedContext {
		t.Errorf("initialize: the agent's capabilities are not passed on: %+v", init.AgentCapabilities)
	}
	ctx := bridgeCtx(t)
	cwd := t.TempDir()
	ns, err := b.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: cwd, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	sid := ns.SessionId
	if ns.Modes == nil || ns.Modes.CurrentModeId != "default" || len(ns.Modes.AvailableModes) != 2 {
		t.Fatalf("session/new modes: %+v", ns.Modes)
	}
	if len(ns.ConfigOptions) != 1 || ns.ConfigOptions[0].Select == nil || ns.ConfigOptions[0].Select.CurrentValue != "fake-small" {
		t.Fatalf("session/new configOptions: %+v", ns.ConfigOptions)
	}

	if _, err := b.conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: sid, ModeId: "plan"}); err != nil {
		t.Fatalf("session/set_mode: %v", err)
	}
	var th struct {
		Thread struct {
			Modes struct {
				CurrentModeID string `json:"currentModeId"`
			} `json:"modes"`
			ConfigOptions []struct {
				CurrentValue string `json:"currentValue"`
			} `json:"configOptions"`
		} `json:"thread"`
	}
	h.call("GET", "/v1/threads/"+string(sid), nil, 200, &th, asEditor...)
	if th.Thread.Modes.CurrentModeID != "plan" {
		t.Errorf("hub thread after set_mode: %+v", th.Thread)
	}
	co, err := b.conn.SetSessionConfigOption(ctx, sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
		SessionId: sid, ConfigId: "model", Value: "fake-large"}})
	if err != nil {
		t.Fatalf("session/set_config_option: %v", err)
	}
	if len(co.ConfigOptions) != 1 || co.ConfigOptions[0].Select == nil || co.ConfigOptions[0].Select.CurrentValue != "fake-large" {
		t.Fatalf("session/set_config_option answer: %+v", co.ConfigOptions)
	}

	// What the agent refuses comes back as invalid params.
	_, err = b.conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: sid, ModeId: "yolo"})
	wantErr(t, "an unknown mode", err, "refused")
	_, err = b.conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: "th_nonexistent", ModeId: "plan"})
	wantErr(t, "set_mode on an unknown session", err, "not found")

	// The session goes on, on the agent session the set calls opened.
	if got := agentText(b.mustPrompt(t, string(sid), "echo still here", sdk.StopReasonEndTurn)); got != "still here" {
		t.Errorf("prompt after the set calls: %q", got)
	}

	// A reloaded session reports the state the hub kept.
	b.stop()
	b2 := startBridge(t, bins, h, "fake")
	b2.mustInitialize(t)
	ls, err := b2.conn.LoadSession(bridgeCtx(t), sdk.LoadSessionRequest{SessionId: sid, Cwd: cwd, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/load: %v", err)
	}
	if ls.Modes == nil || ls.Modes.CurrentModeId != "plan" || len(ls.ConfigOptions) != 1 || ls.ConfigOptions[0].Select.CurrentValue != "fake-large" {
		t.Errorf("session/load: modes %+v, options %+v", ls.Modes, ls.ConfigOptions)
	}
}
