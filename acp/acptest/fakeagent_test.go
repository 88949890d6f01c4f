package acptest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
)

func TestMain(m *testing.M) {
	RunFakeAgentIfRequested()
	os.Exit(m.Run())
}

const watchdogTimeout = 20 * time.Second

// peer is a raw JSON-RPC client speaking to a fake agent process. It reads
// synchronously; a watchdog kills the agent if a test runs too long, which
// ends any read.
type peer struct {
	t        *testing.T
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	stdout   *bufio.Reader
	stderr   *testkit.Buffer
	nextID   int
	watchdog *time.Timer
	timedOut atomic.Bool
	waited   bool
	err      error // from cmd.Wait, valid once waited
}

func startAgent(t *testing.T, opts ...string) *peer {
	t.Helper()
	path, args, env := FakeAgentArgv(t, opts...)
	cmd := exec.Command(path, args...)
	cmd.Env = append(os.Environ(), env...)
	p := &peer{t: t, cmd: cmd, stderr: &testkit.Buffer{}}
	cmd.Stderr = p.stderr
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.stdout = bufio.NewReaderSize(stdout, 1<<20)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.watchdog = time.AfterFunc(watchdogTimeout, func() {
		p.timedOut.Store(true)
		cmd.Process.Kill()
	})
	t.Cleanup(func() {
		p.stdin.Close()
		p.watchdog.Reset(5 * time.Second)
		p.wait()
		p.watchdog.Stop()
		if strings.Contains(p.stderr.String(), "DATA RACE") {
			t.Errorf("race in the fake agent:\n%s", p.stderr)
		}
	})
	return p
}

// wait reads stdout to EOF and waits for the process.
func (p *peer) wait() {
	if p.waited {
		return
	}
	io.Copy(io.Discard, p.stdout)
	p.err = p.cmd.Wait()
	p.waited = true
}

func (p *peer) send(v any) {
	p.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		p.t.Fatal(err)
	}
	if _, err := p.stdin.Write(append(b, '\n')); err != nil {
		p.t.Fatalf("write to agent: %v", err)
	}
}

// request sends a request and returns its id.
func (p *peer) request(method string, params any) int {
	p.t.Helper()
	p.nextID++
	p.send(map[string]any{"jsonrpc": "2.0", "id": p.nextID, "method": method, "params": params})
	return p.nextID
}

func (p *peer) notify(method string, params any) {
	p.t.Helper()
	p.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// rawLine returns the next raw line, with its newline if it has one, or nil
// at EOF.
func (p *peer) rawLine() []byte {
	p.t.Helper()
	l, err := p.stdout.ReadBytes('\n')
	if p.timedOut.Load() {
		p.t.Fatalf("watchdog: agent killed after %v", watchdogTimeout)
	}
	if len(l) == 0 && err != nil {
		return nil
	}
	return l
}

type msg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code int `json:"code"`
	} `json:"error"`
	raw []byte
}

func (p *peer) next() msg {
	p.t.Helper()
	l := p.rawLine()
	if l == nil {
		p.t.Fatalf("agent closed stdout; stderr: %s", p.stderr)
	}
	return parseMsg(p.t, l)
}

func parseMsg(t *testing.T, l []byte) msg {
	t.Helper()
	var m msg
	if err := json.Unmarshal(l, &m); err != nil {
		t.Fatalf("bad line from agent: %q: %v", l, err)
	}
	m.raw = bytes.TrimSuffix(l, []byte("\n"))
	return m
}

// update is a decoded session/update.
type update struct {
	SessionUpdate string `json:"sessionUpdate"`
	Content       struct {
		Text string // set when content is a text block
	} `json:"-"`
	raw json.RawMessage
}

func (m msg) update(t *testing.T) update {
	t.Helper()
	if m.Method != "session/update" {
		t.Fatalf("want session/update, got %s", m.raw)
	}
	var p struct {
		Update json.RawMessage `json:"update"`
	}
	var u update
	if err := json.Unmarshal(m.Params, &p); err != nil || json.Unmarshal(p.Update, &u) != nil {
		t.Fatalf("bad session/update: %s", m.raw)
	}
	var c struct {
		Content struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(p.Update, &c) == nil {
		u.Content.Text = c.Content.Text
	}
	u.raw = p.Update
	return u
}

// result waits for the response to id, returning it and the messages before.
func (p *peer) result(id int) (msg, []msg) {
	p.t.Helper()
	var before []msg
	for {
		m := p.next()
		if m.Method == "" && string(m.ID) == jsonString(id) {
			return m, before
		}
		before = append(before, m)
	}
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// session initializes the agent and opens a session.
func (p *peer) session() string {
	p.t.Helper()
	p.result(p.request("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}))
	r, _ := p.result(p.request("session/new", map[string]any{"cwd": p.t.TempDir(), "mcpServers": []any{}}))
	var res struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil || res.SessionID == "" {
		p.t.Fatalf("bad session/new answer: %s", r.raw)
	}
	return res.SessionID
}

func (p *peer) prompt(sid, text string) int {
	p.t.Helper()
	return p.request("session/prompt", map[string]any{
		"sessionId": sid, "prompt": []any{map[string]string{"type": "text", "text": text}}})
}

func stopReason(t *testing.T, m msg) string {
	t.Helper()
	var r struct {
		StopReason string `json:"stopReason"`
	}
	if err := json.Unmarshal(m.Result, &r); err != nil || r.StopReason == "" {
		t.Fatalf("not a prompt answer: %s", m.raw)
	}
	return r.StopReason
}

// exit closes stdin and returns the process's exit code.
func (p *peer) exit() int {
	p.t.Helper()
	p.stdin.Close()
	p.wait()
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode()
	}
	if p.err != nil {
		p.t.Fatal(p.err)
	}
	return 0
}

func TestInitialize(t *testing.T) {
	p := startAgent(t)
	r, before := p.result(p.request("initialize", map[string]any{
		"protocolVersion":    1,
		"clientCapabilities": map[string]any{"fs": map[string]bool{"readTextFile": true, "writeTextFile": true}, "terminal": true},
		"clientInfo":         map[string]string{"name": "test", "version": "0"},
	}))
	if len(before) != 0 {
		t.Fatalf("unexpected messages before the answer: %v", before)
	}
	var got any
	if err := json.Unmarshal(r.Result, &got); err != nil {
		t.Fatal(err)
	}
	var want any
	json.Unmarshal([]byte(`{"protocolVersion":1,"agentCapabilities":{"loadSession":false,
		"promptCapabilities":{"image":true,"audio":true,"embeddedContext":true},"sessionCapabilities":{},
		"mcpCapabilities":{"http":false,"sse":false},"auth":{}},
		"agentInfo":{"name":"fakeagent","version":"1.0.0"},"authMethods":[]}`), &want)
	if jsonString(got) != jsonString(want) {
		t.Errorf("initialize answer\n got %s\nwant %s", jsonString(got), jsonString(want))
	}
	if !strings.HasPrefix(string(r.raw), `{"jsonrpc":"2.0","id":1,"result":`) {
		t.Errorf("envelope: %s", r.raw)
	}
	if code := p.exit(); code != 0 {
		t.Errorf("exit code %d after stdin EOF", code)
	}

	p = startAgent(t, "FAKEAGENT_PROTOCOL_VERSION=2", "FAKEAGENT_LOAD_SESSION=1", "FAKEAGENT_SESSION_CAPS=1")
	r, _ = p.result(p.request("initialize", map[string]any{"protocolVersion": 1}))
	var res struct {
		ProtocolVersion   int `json:"protocolVersion"`
		AgentCapabilities struct {
			LoadSession         bool                       `json:"loadSession"`
			SessionCapabilities map[string]json.RawMessage `json:"sessionCapabilities"`
		} `json:"agentCapabilities"`
	}
	json.Unmarshal(r.Result, &res)
	if res.ProtocolVersion != 2 || !res.AgentCapabilities.LoadSession || len(res.AgentCapabilities.SessionCapabilities) != 4 {
		t.Errorf("options not honoured: %s", r.raw)
	}
}

func TestSessionAndEcho(t *testing.T) {
	p := startAgent(t)
	p.result(p.request("initialize", map[string]any{"protocolVersion": 1}))
	r, _ := p.result(p.request("session/new", map[string]any{"cwd": "relative/dir", "mcpServers": []any{}}))
	if r.Error == nil || r.Error.Code != -32602 {
		t.Errorf("relative cwd: %s", r.raw)
	}
	r, _ = p.result(p.request("no/such_method", map[string]any{}))
	if r.Error == nil || r.Error.Code != -32601 {
		t.Errorf("unknown method: %s", r.raw)
	}
	p.notify("$/cancel_request", map[string]any{"requestId": 99})
	p.notify("_vendor/whatever", nil)

	r, _ = p.result(p.request("session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{}}))
	var res struct {
		SessionID string `json:"sessionId"`
		Modes     struct {
			CurrentModeID  string `json:"currentModeId"`
			AvailableModes []struct {
				ID, Name string
			} `json:"availableModes"`
		} `json:"modes"`
	}
	json.Unmarshal(r.Result, &res)
	if res.SessionID != "fake-1" || res.Modes.CurrentModeID != "default" || len(res.Modes.AvailableModes) != 2 {
		t.Fatalf("session/new: %s", r.raw)
	}
	r, before := p.result(p.prompt(res.SessionID, "echo hello  world"))
	if len(before) != 1 {
		t.Fatalf("want 1 update before the answer, got %d", len(before))
	}
	if u := before[0].update(t); u.SessionUpdate != "agent_message_chunk" || u.Content.Text != "hello  world" {
		t.Errorf("echo update: %s", before[0].raw)
	}
	if sr := stopReason(t, r); sr != "end_turn" {
		t.Errorf("stopReason %q", sr)
	}
}

func TestCrash(t *testing.T) {
	p := startAgent(t)
	sid := p.session()
	p.prompt(sid, "crash 7")
	if u := p.next().update(t); u.Content.Text != "about to crash" {
		t.Errorf("crash chunk: %+v", u)
	}
	if l := p.rawLine(); l != nil {
		t.Errorf("unexpected output after the crash chunk: %q", l)
	}
	if code := p.exit(); code != 7 {
		t.Errorf("exit code %d, want 7", code)
	}
	if !p.stderrContains("fatal: simulated crash\n") {
		t.Errorf("stderr %q", p.stderr)
	}
}

func TestNoEOL(t *testing.T) {
	p := startAgent(t)
	sid := p.session()
	p.prompt(sid, "noeol")
	l := p.rawLine()
	if bytes.HasSuffix(l, []byte("\n")) || !json.Valid(l) {
		t.Fatalf("want one JSON line without newline, got %q", l)
	}
	if !bytes.Contains(l, []byte(`"no newline at end"`)) {
		t.Errorf("noeol line: %s", l)
	}
	if next := p.rawLine(); next != nil {
		t.Errorf("unexpected output: %q", next)
	}
	p.wait()
	if p.err != nil {
		t.Errorf("exit: %v", p.err)
	}
}

// permissionRequest reads the tool_call and the permission request.
func permissionRequest(t *testing.T, p *peer) msg {
	t.Helper()
	if u := p.next().update(t); u.SessionUpdate != "tool_call" {
		t.Fatalf("want tool_call, got %s", u.raw)
	}
	m := p.next()
	if m.Method != "session/request_permission" || len(m.ID) == 0 {
		t.Fatalf("want a permission request, got %s", m.raw)
	}
	var req struct {
		SessionID string `json:"sessionId"`
		ToolCall  struct {
			ToolCallID string `json:"toolCallId"`
		} `json:"toolCall"`
		Options []struct {
			OptionID, Name, Kind string
		} `json:"options"`
	}
	json.Unmarshal(m.Params, &req)
	if req.SessionID == "" || req.ToolCall.ToolCallID == "" || len(req.Options) != 3 ||
		req.Options[0].OptionID != "allow-once" || req.Options[0].Kind != "allow_once" ||
		req.Options[2].Kind != "reject_once" {
		t.Fatalf("permission request: %s", m.raw)
	}
	return m
}

func TestPermission(t *testing.T) {
	p := startAgent(t)
	sid := p.session()

	id := p.prompt(sid, "permission")
	req := permissionRequest(t, p)
	p.send(map[string]any{"jsonrpc": "2.0", "id": req.ID,
		"result": map[string]any{"outcome": map[string]string{"outcome": "selected", "optionId": "allow-once"}}})
	r, before := p.result(id)
	if len(before) != 2 || before[0].update(t).SessionUpdate != "tool_call_update" ||
		before[1].update(t).Content.Text != "outcome: selected allow-once" {
		t.Errorf("after selection: %v", before)
	}
	if sr := stopReason(t, r); sr != "end_turn" {
		t.Errorf("stopReason %q", sr)
	}

	id = p.prompt(sid, "permission")
	req = permissionRequest(t, p)
	p.notify("session/cancel", map[string]string{"sessionId": sid})
	p.send(map[string]any{"jsonrpc": "2.0", "id": req.ID,
		"result": map[string]any{"outcome": map[string]string{"outcome": "cancelled"}}})
	r, before = p.result(id)
	if len(before) != 2 || before[1].update(t).Content.Text != "outcome: cancelled" {
		t.Errorf("after cancel: %v", before)
	}
	if sr := stopReason(t, r); sr != "cancelled" {
		t.Errorf("stopReason %q", sr)
	}
}

func TestUnknownUpdate(t *testing.T) {
	p := startAgent(t)
	sid := p.session()
	r, before := p.result(p.prompt(sid, "unknown-update"))
	if len(before) != 2 {
		t.Fatalf("want 2 updates, got %d", len(before))
	}
	want := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"` + sid +
		`","update":{"sessionUpdate":"future_kind_xyz","futureField":{"nested":[1,2,3],"flag":true},"note":"from the future","_meta":{"fake":"yes"}}}}`
	if string(before[0].raw) != want {
		t.Errorf("unknown update\n got %s\nwant %s", before[0].raw, want)
	}
	if u := before[1].update(t); u.SessionUpdate != "usage_update" ||
		string(u.raw) != `{"sessionUpdate":"usage_update","used":1234,"size":200000,"cost":{"amount":0.0123,"currency":"USD"}}` {
		t.Errorf("usage update: %s", before[1].raw)
	}
	if sr := stopReason(t, r); sr != "end_turn" {
		t.Errorf("stopReason %q", sr)
	}
}

func TestHangCancel(t *testing.T) {
	p := startAgent(t)
	sid := p.session()
	id := p.prompt(sid, "hang")
	busy, _ := p.result(p.prompt(sid, "echo second"))
	if busy.Error == nil {
		t.Errorf("second prompt during hang: %s", busy.raw)
	}
	p.notify("session/cancel", map[string]string{"sessionId": sid})
	r, _ := p.result(id)
	if sr := stopReason(t, r); sr != "cancelled" {
		t.Errorf("stopReason %q", sr)
	}
}

func TestGarbageAndIDs(t *testing.T) {
	p := startAgent(t)
	sid := p.session()
	p.prompt(sid, "garbage")
	for _, want := range []string{"this is not JSON", "", `{"jsonrpc":"2.0","method":`, `[1,2,3]`,
		`{"hello":"world"}`, `{"jsonrpc":"2.0","id":987654321,"result":{}}`} {
		if l := string(p.rawLine()); l != want+"\n" {
			t.Fatalf("garbage line %q, want %q", l, want)
		}
	}
	if u := p.next().update(t); u.Content.Text != "after garbage" {
		t.Errorf("after garbage: %+v", u)
	}
	p.next() // the answer

	id := p.prompt(sid, "ids")
	for _, wantID := range []string{`0`, `"abc"`} {
		m := p.next()
		if m.Method != "fs/read_text_file" || string(m.ID) != wantID {
			t.Fatalf("want fs/read_text_file with id %s, got %s", wantID, m.raw)
		}
		p.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32002, "message": "not found"}})
	}
	_, before := p.result(id)
	if len(before) != 1 || before[0].update(t).Content.Text != "ids 0=-32002 abc=-32002" {
		t.Errorf("ids: %v", before)
	}
}

func TestFlood(t *testing.T) {
	count := 1_000_000
	if testing.Short() {
		count = 100_000
	}
	p := startAgent(t)
	sid := p.session()
	start := time.Now()
	id := p.prompt(sid, "flood "+jsonString(count)+" 64")
	// The chunks are identical lines: check the first, then the rest in
	// blocks (line by line is too slow under -race).
	first := p.rawLine()
	if u := parseMsg(t, first).update(t); u.Content.Text != FakeText(63)+" " {
		t.Fatalf("first chunk: %q", first)
	}
	const perBlock = 4096
	block := bytes.Repeat(first, perBlock)
	buf := make([]byte, len(block))
	for left := count - 1; left > 0; left -= perBlock {
		n := min(left, perBlock) * len(first)
		if _, err := io.ReadFull(p.stdout, buf[:n]); err != nil || !bytes.Equal(buf[:n], block[:n]) {
			t.Fatalf("chunks differ from the first after %d: %v", count-left, err)
		}
	}
	r, before := p.result(id)
	if len(before) != 0 || stopReason(t, r) != "end_turn" {
		t.Errorf("flood end: %s", r.raw)
	}
	t.Logf("%d chunks in %v", count, time.Since(start))
}

// stderrContains waits a little for s to reach the agent's stderr, which
// os/exec copies asynchronously.
func (p *peer) stderrContains(s string) bool {
	return p.stderr.WaitFor(5*time.Second, s)
}

// expect reads the next message and checks its method.
func (p *peer) expect(method string) msg {
	p.t.Helper()
	m := p.next()
	if m.Method != method {
		p.t.Fatalf("want %s, got %s", method, m.raw)
	}
	return m
}

func (p *peer) answer(m msg, result any) {
	p.t.Helper()
	p.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
}

func (p *peer) answerError(m msg, code int) {
	p.t.Helper()
	p.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": code, "message": "test"}})
}

// says checks that m is an agent_message_chunk with text want.
func says(t *testing.T, m msg, want string) {
	t.Helper()
	if u := m.update(t); u.SessionUpdate != "agent_message_chunk" || u.Content.Text != want {
		t.Errorf("want agent_message_chunk %q, got %s", want, m.raw)
	}
}

func (m msg) params(t *testing.T) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(m.Params, &v); err != nil {
		t.Fatalf("params of %s: %v", m.raw, err)
	}
	return v
}

func TestScriptCommands(t *testing.T) {
	t.Run("think+tools", func(t *testing.T) {
		p := startAgent(t)
		sid := p.session()
		_, before := p.result(p.prompt(sid, "think"))
		if len(before) != 2 || before[0].update(t).SessionUpdate != "agent_thought_chunk" {
			t.Errorf("think: %v", before)
		}
		r, before := p.result(p.prompt(sid, "tools"))
		var kinds []string
		for _, m := range before {
			kinds = append(kinds, m.update(t).SessionUpdate)
		}
		if strings.Join(kinds, ",") != "tool_call,tool_call_update,tool_call_update,plan" || stopReason(t, r) != "end_turn" {
			t.Fatalf("tools: %v", kinds)
		}
		var tc struct {
			Update struct {
				Kind, Status string
				Content      []map[string]any
			}
		}
		json.Unmarshal(before[0].Params, &tc)
		c := tc.Update.Content
		if tc.Update.Kind != "edit" || tc.Update.Status != "pending" || len(c) != 1 || c[0]["type"] != "diff" ||
			c[0]["oldText"] != nil || c[0]["newText"] != "hello\n" || !strings.HasSuffix(c[0]["path"].(string), "hello.txt") {
			t.Errorf("tool_call: %s", before[0].raw)
		}
	})
	t.Run("mixed", func(t *testing.T) {
		p := startAgent(t)
		sid := p.session()
		r, before := p.result(p.prompt(sid, "mixed 2"))
		var got []string
		for _, m := range before {
			u := m.update(t)
			got = append(got, u.SessionUpdate+":"+u.Content.Text)
			if strings.Contains(string(u.raw), `"image"`) && !strings.Contains(string(u.raw), `"data":"`+MixedImage+`"`) {
				t.Errorf("image chunk: %s", u.raw)
			}
		}
		var want []string
		for i := range 2 {
			want = append(want,
				fmt.Sprintf("agent_message_chunk:m%d.a é ", i), fmt.Sprintf("agent_message_chunk:m%d.b 😀 ", i),
				fmt.Sprintf("agent_thought_chunk:t%d.a ", i), fmt.Sprintf("agent_thought_chunk:t%d.b ", i),
				"agent_message_chunk:", fmt.Sprintf("agent_message_chunk:m%d.c ", i),
				"tool_call:", fmt.Sprintf("agent_message_chunk:m%d.d ", i))
		}
		if strings.Join(got, "|") != strings.Join(want, "|") || stopReason(t, r) != "end_turn" {
			t.Fatalf("mixed 2: %q\nwant %q", got, want)
		}
	})
	t.Run("fs", func(t *testing.T) {
		p := startAgent(t)
		sid := p.session()
		id := p.prompt(sid, "fs-read /some/file")
		m := p.expect("fs/read_text_file")
		if v := m.params(t); v["path"] != "/some/file" || v["sessionId"] != sid {
			t.Errorf("fs/read_text_file params: %s", m.raw)
		}
		p.answer(m, map[string]string{"content": "hi there"})
		_, before := p.result(id)
		says(t, before[0], "fs-read ok: hi there")

		id = p.prompt(sid, "fs-write /some/file")
		m = p.expect("fs/write_text_file")
		if v := m.params(t); v["content"] != "" {
			t.Errorf("empty fs-write: %s", m.raw)
		}
		p.answerError(m, -32002)
		_, before = p.result(id)
		says(t, before[0], "fs-write error -32002: test")

		id = p.prompt(sid, "fs-write /some/file  two  spaces ")
		m = p.expect("fs/write_text_file")
		if v := m.params(t); v["content"] != " two  spaces " {
			t.Errorf("fs-write content: %s", m.raw)
		}
		p.answer(m, nil)
		_, before = p.result(id)
		says(t, before[0], "fs-write ok")

		id = p.prompt(sid, "cancel-request")
		m = p.expect("fs/read_text_file")
		c := p.expect("$/cancel_request")
		if jsonString(c.params(t)["requestId"]) != string(m.ID) {
			t.Errorf("$/cancel_request %s for request %s", c.raw, m.raw)
		}
		p.answerError(m, -32800)
		_, before = p.result(id)
		says(t, before[0], "cancel-request error -32800")
	})
	t.Run("terminal", func(t *testing.T) {
		p := startAgent(t)
		sid := p.session()
		id := p.prompt(sid, "terminal ls -l /")
		m := p.expect("terminal/create")
		if v := m.params(t); v["command"] != "ls" || jsonString(v["args"]) != `["-l","/"]` || v["cwd"] == nil {
			t.Errorf("terminal/create: %s", m.raw)
		}
		p.answer(m, map[string]string{"terminalId": "term-1"})
		if u := p.next().update(t); u.SessionUpdate != "tool_call" || !strings.Contains(string(u.raw), `{"terminalId":"term-1","type":"terminal"}`) {
			t.Errorf("terminal tool_call: %s", u.raw)
		}
		p.answer(p.expect("terminal/wait_for_exit"), map[string]any{"exitCode": 0, "signal": nil})
		p.answer(p.expect("terminal/output"), map[string]any{"output": "out\n", "truncated": false})
		p.answer(p.expect("terminal/release"), nil)
		r, before := p.result(id)
		if len(before) != 2 || stopReason(t, r) != "end_turn" {
			t.Fatalf("terminal end: %v", before)
		}
		says(t, before[1], "terminal exit 0 signal null truncated false\nout\n")

		id = p.prompt(sid, "terminal sleep 100")
		p.answer(p.expect("terminal/create"), map[string]string{"terminalId": "term-2"})
		p.next() // tool_call
		wait := p.expect("terminal/wait_for_exit")
		p.notify("session/cancel", map[string]string{"sessionId": sid})
		p.answer(p.expect("terminal/kill"), nil)
		p.answer(wait, map[string]any{"exitCode": nil, "signal": "SIGKILL"})
		p.answer(p.expect("terminal/output"), map[string]any{"output": "", "truncated": false})
		p.answer(p.expect("terminal/release"), nil)
		r, before = p.result(id)
		if stopReason(t, r) != "cancelled" {
			t.Errorf("cancelled terminal: %s", r.raw)
		}
		says(t, before[1], "terminal exit null signal SIGKILL truncated false\n")
	})
	t.Run("slow-permission+vendor+misc", func(t *testing.T) {
		p := startAgent(t)
		sid := p.session()
		id := p.prompt(sid, "slow-permission 10000")
		p.expect("session/update") // tool_call
		p.notify("session/cancel", map[string]string{"sessionId": sid})
		r, before := p.result(id)
		if len(before) != 2 || stopReason(t, r) != "cancelled" {
			t.Fatalf("slow-permission: %s %v", r.raw, before)
		}
		says(t, before[1], "outcome: cancelled")

		id = p.prompt(sid, "vendor")
		p.expect("_fakeagent/status")
		p.expect("fakeagent/notice")
		p.answerError(p.expect("_fakeagent/query"), -32601)
		_, before = p.result(id)
		says(t, before[0], "vendor -32601")

		_, before = p.result(p.prompt(sid, "stderr 1000"))
		if len(before) != 0 || !p.stderrContains(FakeText(1000)) {
			t.Errorf("stderr: %v %q", before, p.stderr)
		}
		_, before = p.result(p.prompt(sid, "what now"))
		says(t, before[0], "unknown command: what now")
		_, before = p.result(p.prompt(sid, "flood x"))
		says(t, before[0], "bad arguments: flood x")

		if _, err := p.stdin.Write([]byte("not json\n")); err != nil {
			t.Fatal(err)
		}
		if m := p.next(); string(m.ID) != "null" || m.Error == nil || m.Error.Code != -32700 {
			t.Errorf("parse error answer: %s", m.raw)
		}
		// bigline: compare bytes, as decoding 20 MiB is slow under -race.
		const bigline = 20 << 20
		p.prompt(sid, "bigline "+jsonString(bigline))
		l := p.rawLine()
		want := []byte(`"text":"` + FakeText(bigline) + `"`)
		if len(l) > 2*len(want) || !bytes.Contains(l, want) || !bytes.HasSuffix(l, []byte("}\n")) {
			t.Errorf("bigline: got a %d-byte line", len(l))
		}
		if r = p.next(); stopReason(t, r) != "end_turn" {
			t.Errorf("after bigline: %s", r.raw)
		}
	})
	t.Run("sessions", func(t *testing.T) {
		p := startAgent(t, "FAKEAGENT_LOAD_SESSION=1", "FAKEAGENT_SESSION_CAPS=1", "FAKEAGENT_AUTH_REQUIRED=1")
		p.result(p.request("initialize", map[string]any{"protocolVersion": 1}))
		cwd := t.TempDir()
		r, _ := p.result(p.request("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}}))
		if r.Error == nil || r.Error.Code != -32000 {
			t.Fatalf("unauthenticated session/new: %s", r.raw)
		}
		p.result(p.request("authenticate", map[string]any{"methodId": "fake-login"}))
		r, _ = p.result(p.request("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}}))
		if r.Error != nil {
			t.Fatalf("session/new: %s", r.raw)
		}
		p.result(p.prompt("fake-1", "echo hi"))
		r, before := p.result(p.request("session/load", map[string]any{"sessionId": "fake-1", "cwd": cwd, "mcpServers": []any{}}))
		if len(before) != 2 || before[0].update(t).Content.Text != "echo hi" || before[1].update(t).Content.Text != "hi" || r.Error != nil {
			t.Errorf("session/load: %s %v", r.raw, before)
		}
		_, before = p.result(p.request("session/load", map[string]any{"sessionId": "old", "cwd": cwd, "mcpServers": []any{}}))
		if len(before) != 2 || before[0].update(t).SessionUpdate != "user_message_chunk" || before[1].update(t).Content.Text != "previous answer" {
			t.Errorf("session/load of an unknown session: %v", before)
		}
		r, before = p.result(p.request("session/set_mode", map[string]any{"sessionId": "fake-1", "modeId": "plan"}))
		if len(before) != 1 || before[0].update(t).SessionUpdate != "current_mode_update" || string(r.Result) != "{}" {
			t.Errorf("set_mode: %s %v", r.raw, before)
		}
		r, _ = p.result(p.request("session/set_config_option", map[string]any{"sessionId": "fake-1", "configId": "model", "value": "fake-large"}))
		if !strings.Contains(string(r.Result), `"currentValue":"fake-large"`) {
			t.Errorf("set_config_option: %s", r.raw)
		}
		r, _ = p.result(p.request("session/close", map[string]any{"sessionId": "old"}))
		r, _ = p.result(p.request("session/list", map[string]any{}))
		var list struct {
			Sessions []struct{ SessionID string }
		}
		json.Unmarshal(r.Result, &list)
		if len(list.Sessions) != 1 || list.Sessions[0].SessionID != "fake-1" {
			t.Errorf("session/list: %s", r.raw)
		}
		r, _ = p.result(p.request("session/prompt", map[string]any{"sessionId": "old", "prompt": []any{}}))
		if r.Error == nil || r.Error.Code != -32002 {
			t.Errorf("prompt on a closed session: %s", r.raw)
		}
	})
}

func TestHangHard(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs SIGTERM")
	}
	p := startAgent(t)
	sid := p.session()
	p.prompt(sid, "hang-hard")
	r, _ := p.result(p.request("session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{}}))
	if r.Error != nil {
		t.Fatal(r.raw)
	}
	p.notify("session/cancel", map[string]string{"sessionId": sid})
	p.stdin.Close()
	p.cmd.Process.Signal(syscall.SIGTERM)
	exited := make(chan struct{})
	go func() { p.wait(); close(exited) }()
	select {
	case <-exited:
		t.Fatalf("hang-hard agent exited: %v; stderr %s", p.err, p.stderr)
	case <-time.After(300 * time.Millisecond):
	}
	p.cmd.Process.Kill()
	<-exited
}

func TestGrandchild(t *testing.T) {
	p := startAgent(t)
	sid := p.session()
	p.prompt(sid, "grandchild 20")
	m := p.next()
	var pid int
	if _, err := fmt.Sscanf(m.update(t).Content.Text, "grandchild %d", &pid); err != nil {
		t.Fatalf("grandchild chunk: %s", m.raw)
	}
	gc, err := os.FindProcess(pid)
	if err != nil {
		t.Fatal(err)
	}
	// The agent has exited but the grandchild holds stdout open.
	eof := make(chan struct{})
	go func() { p.stdout.ReadByte(); close(eof) }()
	select {
	case <-eof:
		t.Fatal("stdout closed while the grandchild runs")
	case <-time.After(300 * time.Millisecond):
	}
	gc.Kill()
	<-eof
	if code := p.exit(); code != 0 {
		t.Errorf("agent exit code %d", code)
	}
}

func TestRawUpdate(t *testing.T) {
	p := startAgent(t)
	sid := p.session()
	update := `{"sessionUpdate":"tool_call","toolCallId":"x","status":5,"content":{"a":1},"locations":"nowhere"}`
	r, before := p.result(p.prompt(sid, "raw-update "+update))
	want := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"` + sid + `","update":` + update + `}}`
	if len(before) != 1 || string(before[0].raw) != want {
		t.Fatalf("updates %d, first %s\nwant %s", len(before), before[0].raw, want)
	}
	if sr := stopReason(t, r); sr != "end_turn" {
		t.Errorf("stopReason %q", sr)
	}
	_, before = p.result(p.prompt(sid, "raw-update {not json"))
	if len(before) != 1 || !strings.Contains(string(before[0].raw), "bad arguments") {
		t.Errorf("bad JSON: %d updates, %s", len(before), before[0].raw)
	}
}

// FAKEAGENT_KEY_VAR: the agent offers an env_var method for the variable,
// and is signed in when started with it set.
func TestKeyVarSignIn(t *testing.T) {
	newSession := func(p *peer) msg {
		r, _ := p.result(p.request("session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{}}))
		return r
	}
	p := startAgent(t, "FAKEAGENT_AUTH_REQUIRED=1", "FAKEAGENT_KEY_VAR=FAKEAGENT_TEST_KEY", "FAKEAGENT_TEST_KEY=")
	r, _ := p.result(p.request("initialize", map[string]any{"protocolVersion": 1}))
	if !strings.Contains(string(r.Result), `{"description":"A key for the fake agent","id":"fake-key","name":"Fake API key","type":"env_var","varName":"FAKEAGENT_TEST_KEY"}`) {
		t.Errorf("initialize: %s", r.raw)
	}
	if r := newSession(p); r.Error == nil || r.Error.Code != -32000 {
		t.Errorf("without the key (empty): %s", r.raw)
	}
	p = startAgent(t, "FAKEAGENT_AUTH_REQUIRED=1", "FAKEAGENT_KEY_VAR=FAKEAGENT_TEST_KEY", "FAKEAGENT_TEST_KEY=sk-1")
	p.result(p.request("initialize", map[string]any{"protocolVersion": 1}))
	if r := newSession(p); r.Error != nil {
		t.Errorf("with the key: %s", r.raw)
	}
}
