//go:build unix

package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest"
	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
	"github.com/switchboard-hub/switchboard/acp/schema"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == SupervisorArg { // testSupervisor
		SuperviseMain(os.Args[2:])
	}
	acptest.RunFakeAgentIfRequested()
	dir, finish := schema.RecordSuite(RecordDirEnv)
	frameRec = openRecorder(dir)
	os.Exit(finish(m.Run()))
}

// recorder is a Client that keeps every update and answers permissions
// with decide (default: reject_once).
type recorder struct {
	mu      sync.Mutex
	updates []SessionUpdate
	perms   []RequestPermissionRequest
	permCtx []context.Context
	decide  func(ctx context.Context, req RequestPermissionRequest) (RequestPermissionResponse, error)
	asked   chan struct{}
}

func newRecorder() *recorder { return &recorder{asked: make(chan struct{}, 16)} }

func (r *recorder) SessionUpdate(ctx context.Context, n SessionNotification) {
	r.mu.Lock()
	r.updates = append(r.updates, n.Update)
	r.mu.Unlock()
}

func (r *recorder) RequestPermission(ctx context.Context, req RequestPermissionRequest) (RequestPermissionResponse, error) {
	r.mu.Lock()
	r.perms = append(r.perms, req)
	r.permCtx = append(r.permCtx, ctx)
	decide := r.decide
	r.mu.Unlock()
	r.asked <- struct{}{}
	if decide == nil {
		o, _ := req.OptionOfKind(RejectOnce)
		return Selected(o.OptionID), nil
	}
	return decide(ctx, req)
}

func (r *recorder) kinds() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var k []string
	for _, u := range r.updates {
		k = append(k, u.Kind)
	}
	return k
}

// messages returns the agent's message text, chunk by chunk.
func (r *recorder) messages() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, u := range r.updates {
		if u.Kind == UpdateAgentMessageChunk && u.Content != nil {
			out = append(out, u.Content.Text)
		}
	}
	return out
}

func (r *recorder) lastMessage() string {
	m := r.messages()
	if len(m) == 0 {
		return ""
	}
	return m[len(m)-1]
}

type fakeOpts struct {
	env    []string
	client ClientOptions
}

func launchFake(t *testing.T, c Client, o fakeOpts) *Agent {
	t.Helper()
	path, args, env := acptest.FakeAgentArgv(t, o.env...)
	if o.client.CancelWait == 0 {
		o.client.CancelWait = 2 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	a, err := Launch(ctx, Command{Path: path, Args: args, Env: env}, c, AgentOptions{
		Process: ProcessOptions{Grace: 300 * time.Millisecond},
		Client:  o.client,
	})
	if err != nil {
		t.Fatalf("launch fake agent: %v", err)
	}
	t.Cleanup(func() { a.Close(context.Background()) })
	return a
}

func newSession(t *testing.T, a *Agent) (string, string) {
	t.Helper()
	cwd := t.TempDir()
	s, err := a.NewSession(context.Background(), cwd, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s.SessionID, cwd
}

func prompt(t *testing.T, a *Agent, sid, text string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return a.Prompt(ctx, sid, []ContentBlock{TextBlock(text)})
}

func TestClientInitializeAndEcho(t *testing.T) {
	rec := newRecorder()
	a := launchFake(t, rec, fakeOpts{})
	if a.Init.AgentInfo == nil || a.Init.AgentInfo.Name != "fakeagent" || !a.Capabilities().PromptCapabilities.Image {
		t.Fatalf("init = %+v", a.Init)
	}
	sid, _ := newSession(t, a)
	stop, err := prompt(t, a, sid, "echo hello  world")
	if err != nil || stop != StopEndTurn {
		t.Fatalf("stop %q err %v", stop, err)
	}
	if got := rec.messages(); len(got) != 1 || got[0] != "hello  world" {
		t.Fatalf("messages %q", got)
	}
}

// clientInfo must carry a version whatever the caller set: the schema
// requires it, and Qwen Code answers initialize with -32603 without one
// (found by TestInteropRealAgents).
func TestClientInitializeClientInfo(t *testing.T) {
	tests := []struct {
		in            Implementation
		name, version string // version "" means: any non-empty one
	}{
		{Implementation{}, "switchboard", ""},
		{Implementation{Name: "hub", Title: "The Hub"}, "hub", ""},
		{Implementation{Name: "hub", Version: "1.2.3"}, "hub", "1.2.3"},
	}
	for _, tt := range tests {
		fromAgentR, fromAgentW := io.Pipe()
		toAgentR, toAgentW := io.Pipe()
		c := NewClientConn(fromAgentR, toAgentW, newRecorder(), ClientOptions{ClientInfo: tt.in})
		done := make(chan error, 1)
		go func() { _, err := c.Initialize(context.Background()); done <- err }()
		line, err := bufio.NewReader(toAgentR).ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Params struct {
				ClientInfo map[string]any `json:"clientInfo"`
			} `json:"params"`
		}
		if err := json.Unmarshal(line, &req); err != nil {
			t.Fatal(err)
		}
		ci := req.Params.ClientInfo
		if v, _ := ci["version"].(string); ci["name"] != tt.name || v == "" || tt.version != "" && v != tt.version {
			t.Errorf("ClientInfo %+v sent clientInfo %v; want name %q and a version", tt.in, ci, tt.name)
		}
		if _, err := io.WriteString(fromAgentW, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"protocolVersion":1}}`+"\n"); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Errorf("initialize: %v", err)
		}
		c.Close()
		fromAgentW.Close()
		toAgentR.Close()
	}
}

func TestClientRefusesOtherProtocolVersion(t *testing.T) {
	path, args, env := acptest.FakeAgentArgv(t, "FAKEAGENT_PROTOCOL_VERSION=2")
	_, err := Launch(context.Background(), Command{Path: path, Args: args, Env: env}, newRecorder(), AgentOptions{Process: ProcessOptions{Grace: 200 * time.Millisecond}})
	if err == nil || !strings.Contains(err.Error(), "protocol version 2") || !strings.Contains(err.Error(), "ACP v2 is not supported yet") {
		t.Fatalf("want a protocol version error, got %v", err)
	}
}

func TestClientUpdatesParsedAndRaw(t *testing.T) {
	rec := newRecorder()
	a := launchFake(t, rec, fakeOpts{})
	sid, cwd := newSession(t, a)
	if _, err := prompt(t, a, sid, "tools"); err != nil {
		t.Fatal(err)
	}
	if _, err := prompt(t, a, sid, "unknown-update"); err != nil {
		t.Fatal(err)
	}
	want := []string{UpdateToolCall, UpdateToolCallUpdate, UpdateToolCallUpdate, UpdatePlan, "future_kind_xyz", UpdateUsage}
	if got := rec.kinds(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("kinds %v, want %v", got, want)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	tc := rec.updates[0].ToolCall
	if tc == nil || *tc.Kind != "edit" || *tc.Status != "pending" || len(tc.Locations) != 1 || tc.Locations[0].Path != filepath.Join(cwd, "hello.txt") {
		t.Fatalf("tool call %+v", tc)
	}
	if !strings.Contains(string(tc.Content), `"type":"diff"`) {
		t.Fatalf("tool call content %s", tc.Content)
	}
	if len(rec.updates[3].Plan) != 2 || rec.updates[3].Plan[0].Status != "completed" {
		t.Fatalf("plan %+v", rec.updates[3].Plan)
	}
	const future = `{"sessionUpdate":"future_kind_xyz","futureField":{"nested":[1,2,3],"flag":true},"note":"from the future","_meta":{"fake":"yes"}}`
	if string(rec.updates[4].Raw) != future {
		t.Fatalf("unknown update not kept raw: %s", rec.updates[4].Raw)
	}
}

func TestClientPermissionOutcomes(t *testing.T) {
	tests := []struct {
		name     string
		decide   func(ctx context.Context, req RequestPermissionRequest) (RequestPermissionResponse, error)
		wantMsg  string
		wantStop string
	}{
		{"allow once", func(_ context.Context, req RequestPermissionRequest) (RequestPermissionResponse, error) {
			o, _ := req.OptionOfKind(AllowOnce)
			return Selected(o.OptionID), nil
		}, "outcome: selected allow-once", StopEndTurn},
		{"reject once", nil, "outcome: selected reject-once", StopEndTurn},
		{"cancelled", func(context.Context, RequestPermissionRequest) (RequestPermissionResponse, error) {
			return Cancelled(), nil
		}, "outcome: cancelled", StopCancelled},
		{"client error is never approval", func(context.Context, RequestPermissionRequest) (RequestPermissionResponse, error) {
			return RequestPermissionResponse{}, errors.New("store unavailable")
		}, "outcome: error -32603", StopEndTurn},
		{"option the agent did not offer is refused", func(context.Context, RequestPermissionRequest) (RequestPermissionResponse, error) {
			return Selected("made-up"), nil
		}, "outcome: error -32603", StopEndTurn},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := newRecorder()
			rec.decide = tt.decide
			a := launchFake(t, rec, fakeOpts{})
			sid, _ := newSession(t, a)
			stop, err := prompt(t, a, sid, "permission")
			if err != nil || stop != tt.wantStop {
				t.Fatalf("stop %q err %v", stop, err)
			}
			if got := rec.lastMessage(); got != tt.wantMsg {
				t.Fatalf("agent said %q, want %q", got, tt.wantMsg)
			}
			if len(rec.perms) != 1 || len(rec.perms[0].Options) != 3 || !strings.Contains(string(rec.perms[0].ToolCall), "Run make clean") {
				t.Fatalf("permission request %+v", rec.perms)
			}
		})
	}
}

// Cancel while a permission is pending: the agent is told "cancelled" at
// once, the Client's ctx ends, the turn stops with "cancelled".
func TestClientCancelWhilePermissionPending(t *testing.T) {
	rec := newRecorder()
	rec.decide = func(ctx context.Context, req RequestPermissionRequest) (RequestPermissionResponse, error) {
		<-ctx.Done() // the user never answers
		return RequestPermissionResponse{}, ctx.Err()
	}
	a := launchFake(t, rec, fakeOpts{})
	sid, _ := newSession(t, a)
	done := make(chan string, 1)
	go func() { stop, _ := prompt(t, a, sid, "permission"); done <- stop }()
	<-rec.asked
	stop, err := a.Cancel(context.Background(), sid)
	if err != nil || stop != StopCancelled {
		t.Fatalf("cancel: stop %q err %v", stop, err)
	}
	if s := <-done; s != StopCancelled {
		t.Fatalf("prompt stop %q", s)
	}
	if got := rec.lastMessage(); got != "outcome: cancelled" {
		t.Fatalf("agent said %q", got)
	}
	rec.mu.Lock()
	ctx := rec.permCtx[0]
	rec.mu.Unlock()
	select {
	case <-ctx.Done():
	case <-time.After(2 * time.Second):
		t.Fatal("the client's permission ctx was not cancelled")
	}
}

// waitPromptSent waits until a's prompt is on the agent's stdin: a call
// awaits its answer and nothing is left to write (a cancel sent next
// reaches the agent after it).
func waitPromptSent(t *testing.T, a *Agent) {
	t.Helper()
	testkit.Eventually(t, 5*time.Second, "the prompt on the agent's stdin", func() bool {
		a.conn.mu.Lock()
		n := len(a.conn.calls)
		a.conn.mu.Unlock()
		return n > 0 && a.conn.out.queued() == 0
	})
}

func TestClientCancel(t *testing.T) {
	t.Run("agent honours cancel", func(t *testing.T) {
		a := launchFake(t, newRecorder(), fakeOpts{})
		sid, _ := newSession(t, a)
		done := make(chan error, 1)
		go func() { _, err := prompt(t, a, sid, "hang"); done <- err }()
		waitPromptSent(t, a)
		stop, err := a.Cancel(context.Background(), sid)
		if err != nil || stop != StopCancelled {
			t.Fatalf("stop %q err %v", stop, err)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
	t.Run("agent ignores cancel", func(t *testing.T) {
		a := launchFake(t, newRecorder(), fakeOpts{client: ClientOptions{CancelWait: 300 * time.Millisecond}})
		sid, _ := newSession(t, a)
		done := make(chan error, 1)
		go func() { _, err := prompt(t, a, sid, "hang-hard"); done <- err }()
		waitPromptSent(t, a)
		if _, err := a.Cancel(context.Background(), sid); !errors.Is(err, ErrCancelTimeout) {
			t.Fatalf("want ErrCancelTimeout, got %v", err)
		}
		start := time.Now()
		a.Close(context.Background()) // stdin EOF, TERM ignored, KILL
		if err := <-done; !errors.Is(err, ErrConnClosed) {
			t.Fatalf("prompt after kill: %v", err)
		}
		if a.Proc.Exit().Signal != "SIGKILL" || time.Since(start) > 5*time.Second {
			t.Fatalf("exit %+v after %v", a.Proc.Exit(), time.Since(start))
		}
	})
	t.Run("nothing running", func(t *testing.T) {
		a := launchFake(t, newRecorder(), fakeOpts{})
		sid, _ := newSession(t, a)
		if stop, err := a.Cancel(context.Background(), sid); stop != "" || err != nil {
			t.Fatalf("stop %q err %v", stop, err)
		}
	})
}

func TestClientAgentCrashMidTurn(t *testing.T) {
	rec := newRecorder()
	a := launchFake(t, rec, fakeOpts{})
	sid, _ := newSession(t, a)
	_, err := prompt(t, a, sid, "crash 7")
	var exit *ExitError
	if !errors.As(err, &exit) || exit.Exit.ExitCode != 7 || !strings.Contains(exit.Exit.StderrTail, "fatal: simulated crash") {
		t.Fatalf("want exit 7 with stderr tail, got %v", err)
	}
	if got := rec.messages(); len(got) != 1 || got[0] != "about to crash" {
		t.Fatalf("chunk before the crash lost: %q", got)
	}
}

func TestClientGarbageSkipped(t *testing.T) {
	rec := newRecorder()
	a := launchFake(t, rec, fakeOpts{})
	sid, _ := newSession(t, a)
	stop, err := prompt(t, a, sid, "garbage")
	if err != nil || stop != StopEndTurn || rec.lastMessage() != "after garbage" {
		t.Fatalf("stop %q err %v messages %q", stop, err, rec.messages())
	}
}

func TestClientHugeLines(t *testing.T) {
	t.Run("20 MiB under the default cap", func(t *testing.T) {
		rec := newRecorder()
		a := launchFake(t, rec, fakeOpts{})
		sid, _ := newSession(t, a)
		if _, err := prompt(t, a, sid, "bigline 20971520"); err != nil {
			t.Fatal(err)
		}
		if got := rec.lastMessage(); got != acptest.FakeText(20<<20) {
			t.Fatalf("got %d bytes", len(got))
		}
	})
	t.Run("over a 1 MiB cap", func(t *testing.T) {
		a := launchFake(t, newRecorder(), fakeOpts{client: ClientOptions{MaxLineBytes: 1 << 20}})
		sid, _ := newSession(t, a)
		_, err := prompt(t, a, sid, "bigline 2097152")
		if !errors.Is(err, ErrLineTooLong) {
			t.Fatalf("want ErrLineTooLong, got %v", err)
		}
	})
}

func TestClientNoFinalNewline(t *testing.T) {
	rec := newRecorder()
	a := launchFake(t, rec, fakeOpts{})
	sid, _ := newSession(t, a)
	_, err := prompt(t, a, sid, "noeol")
	var exit *ExitError
	if !errors.As(err, &exit) || exit.Exit.ExitCode != 0 {
		t.Fatalf("want clean exit error, got %v", err)
	}
	if rec.lastMessage() != "no newline at end" {
		t.Fatalf("last line lost: %q", rec.messages())
	}
}

func TestClientGrandchildHoldingStdout(t *testing.T) {
	rec := newRecorder()
	a := launchFake(t, rec, fakeOpts{})
	sid, _ := newSession(t, a)
	start := time.Now()
	_, err := prompt(t, a, sid, "grandchild 60")
	if !errors.Is(err, ErrConnClosed) {
		t.Fatalf("want the connection closed once the agent exited, got %v", err)
	}
	pid, perr := strconv.Atoi(strings.TrimPrefix(rec.lastMessage(), "grandchild "))
	if perr != nil {
		t.Fatalf("no grandchild pid in %q", rec.messages())
	}
	a.Close(context.Background())
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("took %v", d)
	}
	if !testkit.Until(3*time.Second, func() bool { return syscall.Kill(pid, 0) != nil }) {
		t.Fatalf("grandchild %d survived the agent", pid)
	}
}

func TestClientFlood(t *testing.T) {
	var mu sync.Mutex
	var n, bytes int
	c := &countingClient{fn: func(u SessionUpdate) {
		mu.Lock()
		n++
		bytes += len(u.Content.Text)
		mu.Unlock()
	}}
	a := launchFake(t, c, fakeOpts{})
	sid, _ := newSession(t, a)
	if _, err := prompt(t, a, sid, "flood 20000 64"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if n != 20000 || bytes != 64*20000 {
		t.Fatalf("got %d chunks, %d bytes", n, bytes)
	}
}

type countingClient struct{ fn func(SessionUpdate) }

func (c *countingClient) SessionUpdate(_ context.Context, n SessionNotification) { c.fn(n.Update) }
func (c *countingClient) RequestPermission(context.Context, RequestPermissionRequest) (RequestPermissionResponse, error) {
	return Cancelled(), nil
}

func TestClientServesFSAndTerminals(t *testing.T) {
	rec := newRecorder()
	a := launchFake(t, rec, fakeOpts{})
	sid, cwd := newSession(t, a)
	file := filepath.Join(cwd, "sub", "note.txt")
	steps := []struct{ script, want string }{
		{"fs-write " + file + " hello there", "fs-write ok"},
		{"fs-read " + file, "fs-read ok: hello there"},
		{"fs-write " + file, "fs-write ok"}, // empty content is allowed
		{"fs-read " + file, "fs-read ok: "},
		{"fs-read " + filepath.Join(cwd, "missing"), "fs-read error -32002"},
		{"terminal sh -c pwd", "terminal exit 0 signal null truncated false\n" + cwd + "\n"},
		{"ids", "ids 0=-32002 abc=-32002"},
		{"vendor", "vendor -32601"},
	}
	for _, s := range steps {
		if _, err := prompt(t, a, sid, s.script); err != nil {
			t.Fatalf("%s: %v", s.script, err)
		}
		if got := rec.lastMessage(); !strings.HasPrefix(got, s.want) {
			t.Fatalf("%s: agent said %q, want prefix %q", s.script, got, s.want)
		}
	}
}

// blockingFS is a Client that serves fs/* itself (as the editor bridge
// does) and never finishes a read until its ctx ends.
type blockingFS struct {
	*recorder
	readCtx chan context.Context
}

func (b blockingFS) ReadTextFile(ctx context.Context, req ReadTextFileRequest) (ReadTextFileResponse, error) {
	b.readCtx <- ctx
	<-ctx.Done()
	return ReadTextFileResponse{}, ctx.Err()
}

func (b blockingFS) WriteTextFile(ctx context.Context, req WriteTextFileRequest) (WriteTextFileResponse, error) {
	return WriteTextFileResponse{}, NewError(CodeInvalidParams, "read-only")
}

// $/cancel_request from the agent cancels the handler's ctx, and the agent
// gets -32800; a Client's own FileSystem replaces LocalFS.
func TestClientIncomingCancelRequest(t *testing.T) {
	c := blockingFS{recorder: newRecorder(), readCtx: make(chan context.Context, 1)}
	a := launchFake(t, c, fakeOpts{})
	sid, cwd := newSession(t, a)
	if _, err := prompt(t, a, sid, "cancel-request"); err != nil {
		t.Fatal(err)
	}
	if got := c.lastMessage(); got != "cancel-request error -32800" {
		t.Fatalf("agent said %q", got)
	}
	select { // a handler that ran sent its ctx before the agent got its answer
	case ctx := <-c.readCtx:
		if ctx.Err() == nil {
			t.Fatal("handler ctx not cancelled")
		}
	default:
		t.Fatal("the read handler never ran")
	}
	if _, err := prompt(t, a, sid, "fs-write "+filepath.Join(cwd, "x")+" y"); err != nil {
		t.Fatal(err)
	}
	if got := c.lastMessage(); got != "fs-write error -32602: read-only" {
		t.Fatalf("agent said %q", got)
	}
}

func TestClientSessionCapabilities(t *testing.T) {
	t.Run("not advertised", func(t *testing.T) {
		a := launchFake(t, newRecorder(), fakeOpts{})
		sid, cwd := newSession(t, a)
		ctx := context.Background()
		if _, err := a.LoadSession(ctx, sid, cwd, nil); !errors.Is(err, ErrUnsupported) {
			t.Fatalf("load: %v", err)
		}
		if _, err := a.ResumeSession(ctx, sid, cwd, nil); !errors.Is(err, ErrUnsupported) {
			t.Fatalf("resume: %v", err)
		}
		if _, err := a.ListSessions(ctx, "", ""); !errors.Is(err, ErrUnsupported) {
			t.Fatalf("list: %v", err)
		}
		if err := a.CloseSession(ctx, sid); !errors.Is(err, ErrUnsupported) {
			t.Fatalf("close: %v", err)
		}
	})
	t.Run("advertised", func(t *testing.T) {
		rec := newRecorder()
		a := launchFake(t, rec, fakeOpts{env: []string{"FAKEAGENT_LOAD_SESSION=1", "FAKEAGENT_SESSION_CAPS=1"}})
		sid, cwd := newSession(t, a)
		ctx := context.Background()
		if _, err := prompt(t, a, sid, "echo first answer"); err != nil {
			t.Fatal(err)
		}
		list, err := a.ListSessions(ctx, cwd, "")
		if err != nil || len(list.Sessions) != 1 || list.Sessions[0].SessionID != sid {
			t.Fatalf("list %+v %v", list, err)
		}
		rec.mu.Lock()
		rec.updates = nil
		rec.mu.Unlock()
		setup, err := a.LoadSession(ctx, sid, cwd, nil)
		if err != nil || setup.Modes == nil || setup.Modes.CurrentModeID == "" {
			t.Fatalf("load %+v %v", setup, err)
		}
		if k := rec.kinds(); strings.Join(k, ",") != "user_message_chunk,agent_message_chunk" || rec.lastMessage() != "first answer" {
			t.Fatalf("replay %v %q", k, rec.messages())
		}
		if _, err := a.ResumeSession(ctx, sid, cwd, nil); err != nil {
			t.Fatal(err)
		}
		if err := a.SetMode(ctx, sid, "plan"); err != nil {
			t.Fatal(err)
		}
		if opts, err := a.SetConfigOption(ctx, sid, "model", "fake-large"); err != nil || !strings.Contains(string(opts), "fake-large") {
			t.Fatalf("config %s %v", opts, err)
		}
		if err := a.SetMode(ctx, sid, "nonsense"); err == nil {
			t.Fatal("an unknown mode must fail")
		} else if code, ok := ErrorCode(err); !ok || code != CodeInvalidParams {
			t.Fatalf("want the agent's -32602, got %v", err)
		}
		if err := a.CloseSession(ctx, sid); err != nil {
			t.Fatal(err)
		}
	})
}

func TestClientPromptContentChecked(t *testing.T) {
	caps := PromptCapabilities{Image: true}
	tests := []struct {
		blocks []ContentBlock
		ok     bool
	}{
		{[]ContentBlock{TextBlock("hi"), {Type: "resource_link", URI: "file:///a", Name: "a"}}, true},
		{[]ContentBlock{{Type: "image", Data: "AA==", MimeType: "image/png"}}, true},
		{[]ContentBlock{{Type: "audio", Data: "AA==", MimeType: "audio/wav"}}, false},
		{[]ContentBlock{{Type: "resource", Resource: []byte(`{"uri":"file:///a","text":"x"}`)}}, false},
		{[]ContentBlock{{Type: "video"}}, false},
		{nil, false},
	}
	for i, tt := range tests {
		if err := checkPrompt(caps, tt.blocks); (err == nil) != tt.ok {
			t.Errorf("case %d: err %v", i, err)
		}
	}
}

func TestProbe(t *testing.T) {
	path, args, env := acptest.FakeAgentArgv(t, "FAKEAGENT_LOAD_SESSION=1")
	r, err := Probe(context.Background(), Command{Path: path, Args: args, Env: env}, AgentOptions{}, 10*time.Second)
	if err != nil || r.Name != "fakeagent" || r.Version != "1.0.0" || !r.Capabilities.LoadSession {
		t.Fatalf("probe %+v %v", r, err)
	}
	if _, err := Probe(context.Background(), Command{Path: "/nonexistent/agent"}, AgentOptions{}, time.Second); err == nil {
		t.Fatal("probe of a missing program must fail")
	}
}
