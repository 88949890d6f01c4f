//go:build unix

package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest"
	"github.com/switchboard-hub/switchboard/acp/acptest/fakemodel"
	"github.com/switchboard-hub/switchboard/acp/schema"
)

// Interop with real agents: Qwen Code and Claude Code (through
// claude-agent-acp), installed into .tools by `make tools`
// (acptest/install-agents.sh), each running offline against a scripted fake
// model server (acptest/fakemodel) and driven by this package's client as
// the hub drives agents: Launch, NewSession, SetMode, Prompt, Cancel, and a
// Client answering permission requests. A missing install fails the test
// with a message telling to run `make tools`.
//
// Each agent runs as one process serving all its scenarios, each in a
// session (and a cwd) of its own, one after the other: Qwen takes 3–10 s
// to start. The two agents run in parallel.

// realInteropSpec is one real agent and what it was observed to do at the
// version acptest pins.
type realInteropSpec struct {
	name  string
	start func(tb testing.TB, toolsDir, modelURL string) acptest.RealAgent
	// write is the tool writing a file, args {"file_path","content"}
	// (permission for a tool call of kind "edit"); shell runs a command,
	// args {"command","description"} (kind "execute").
	write, shell string
	// refusalContinues: after reject_once or a "cancelled" outcome the agent
	// sends the refusal to the model as an error tool result and goes on
	// (Claude); otherwise it ends the turn at once, end_turn, without
	// another model request (Qwen).
	refusalContinues bool
	// fsWrites: the write tool goes through our fs/write_text_file (we
	// advertise it) (Qwen); otherwise the agent writes the file itself.
	fsWrites bool
	// cancelsRequests: the agent honours $/cancel_request for its
	// session/prompt and withdraws its own pending requests with it
	// (Claude, through the official TypeScript SDK).
	cancelsRequests bool
}

var realInteropSpecs = []realInteropSpec{
	{name: "qwen", start: acptest.Qwen, write: "write_file", shell: "run_shell_command", fsWrites: true},
	{name: "claude", start: acptest.Claude, write: "Write", shell: "Bash", refusalContinues: true, cancelsRequests: true},
}

const (
	// realStartTimeout bounds start and initialize: Qwen answers initialize
	// after ~3 s on an idle machine, 10+ s on a loaded one with -race.
	realStartTimeout = 90 * time.Second
	// realTurnTimeout bounds one prompt turn (about 1 s when idle).
	realTurnTimeout = 60 * time.Second
	// realCancelWait is ClientOptions.CancelWait: how long Cancel waits for
	// the agent's stop reason. Both agents answer within well under a second.
	realCancelWait = 10 * time.Second
)

func TestInteropRealAgents(t *testing.T) {
	for _, sp := range realInteropSpecs {
		t.Run(sp.name, func(t *testing.T) {
			t.Parallel()
			h := startRealAgent(t, sp)
			t.Run("text", h.text)
			t.Run("allow_write", h.allowWrite)
			t.Run("allow_shell", h.allowShell)
			t.Run("reject_once", func(t *testing.T) { h.refuse(t, false) })
			t.Run("outcome_cancelled", func(t *testing.T) { h.refuse(t, true) })
			t.Run("cancel_pending_permission", h.cancelPendingPermission)
			t.Run("cancel_hanging_model", h.cancelHangingModel)
			if sp.cancelsRequests {
				t.Run("cancel_request_both_ways", h.cancelRequestBothWays)
			}
			t.Logf("%s sent update kinds %v and %s", sp.name, h.client.kindsSeen(), h.logs.notificationsIgnored())
		})
	}
}

// realHarness is one real agent process with its fake model.
type realHarness struct {
	sp     realInteropSpec
	ra     acptest.RealAgent
	model  *fakemodel.Server
	client *realClient
	agent  *Agent
	logs   *realLogs
}

// realCommand converts a RealAgent into the Command the hub would run.
func realCommand(ra acptest.RealAgent, dir string) Command {
	return Command{Path: ra.Path, Args: ra.Args, Env: ra.Env, PassEnv: ra.PassEnv, Dir: dir}
}

// startRealAgent starts a fake model and the agent, and launches it through
// Launch. Both are stopped at cleanup, the agent first.
func startRealAgent(t *testing.T, sp realInteropSpec) *realHarness {
	t.Helper()
	model := fakemodel.Start(t)
	// Claude asks for a session title as JSON on a side request (no tools).
	model.SetSide(fakemodel.NoTools, fakemodel.Text(`{"title":"Fake session"}`))
	ra := sp.start(t, acptest.ToolsDir(t), model.URL)
	cmd := realCommand(ra, t.TempDir())

	// BuildEnv keeps an allowlist of our environment (HOME, TMPDIR, XDG_*
	// among it); the agent's own HOME, TMPDIR, XDG_* and model settings
	// must win over them.
	base := os.Environ()
	env := map[string]string{}
	for _, kv := range BuildEnv(base, cmd) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	for _, kv := range ra.Env {
		k, v, _ := strings.Cut(kv, "=")
		if env[k] != v {
			t.Fatalf("%s: the agent would get %s=%q, want %q", sp.name, k, env[k], v)
		}
	}
	if env["HOME"] != ra.Home {
		t.Fatalf("%s: the agent would get HOME=%q, want its own %q", sp.name, env["HOME"], ra.Home)
	}

	h := &realHarness{sp: sp, ra: ra, model: model, client: newRealClient(), logs: &realLogs{}}
	logger := slog.New(h.logs)
	ctx, cancel := context.WithTimeout(context.Background(), realStartTimeout)
	defer cancel()
	start := time.Now()
	a, err := Launch(ctx, cmd, h.client, AgentOptions{
		// Qwen ignores stdin EOF: TERM comes after Grace.
		Process: ProcessOptions{Logger: logger, Grace: time.Second, BaseEnv: base},
		// The default ClientInfo, as the hub sends it.
		Client: ClientOptions{Logger: logger, CancelWait: realCancelWait},
	})
	if err != nil {
		t.Fatalf("%s: launch: %v", sp.name, err)
	}
	h.agent = a
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = a.Close(ctx)
		// SWITCHBOARD_AGENT_LOG=1 logs the agent's stderr and our client's log
		// (vendor methods it ignored, terminals, process lifecycle) of
		// passing tests too.
		if t.Failed() || os.Getenv("SWITCHBOARD_AGENT_LOG") != "" {
			t.Logf("%s stderr (tail):\n%s", sp.name, a.Proc.StderrTail())
			t.Logf("%s client log:\n%s", sp.name, h.logs.String())
		}
	})
	info := a.Init.AgentInfo
	if info == nil || info.Name == "" {
		t.Errorf("%s: initialize answered no agentInfo: %s", sp.name, a.Init.Raw)
	}
	t.Logf("%s (%+v) initialized in %v", sp.name, info, time.Since(start).Round(time.Millisecond))
	return h
}

// realSess is one session of a scenario.
type realSess struct {
	h   *realHarness
	t   *testing.T
	id  string
	cwd string
	// base is how many main model requests came before this session;
	// warnBase how many warnings our client had logged.
	base, warnBase int
}

// newSession opens a session in a fresh cwd and switches it to the agent's
// AskMode, in which it asks permission for edits and commands.
func (h *realHarness) newSession(t *testing.T) *realSess {
	t.Helper()
	// Scenarios share the model: one that left script entries would answer
	// the next one's requests.
	if n := h.model.Remaining(); n != 0 {
		t.Fatalf("%d model script entries left over by an earlier scenario", n)
	}
	s := &realSess{h: h, t: t, cwd: t.TempDir(), base: len(h.model.ModelRequests(false)), warnBase: len(h.logs.warnings())}
	ctx, cancel := context.WithTimeout(context.Background(), realTurnTimeout)
	defer cancel()
	setup, err := h.agent.NewSession(ctx, s.cwd, nil)
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	s.id = setup.SessionID
	if h.ra.AskMode != "" {
		if setup.Modes == nil || !slices.ContainsFunc(setup.Modes.AvailableModes, func(m SessionMode) bool { return m.ID == h.ra.AskMode }) {
			t.Fatalf("session/new offers no mode %q: %+v", h.ra.AskMode, setup.Modes)
		}
		if err := h.agent.SetMode(ctx, s.id, h.ra.AskMode); err != nil {
			t.Fatalf("session/set_mode %q: %v", h.ra.AskMode, err)
		}
	}
	t.Cleanup(func() { s.checkHealthy() })
	return s
}

// checkHealthy fails the test when an update of a known kind did not parse
// or our client logged a warning (a malformed line, for instance).
func (s *realSess) checkHealthy() {
	for _, u := range s.updates() {
		if u.ParseErr != nil {
			s.t.Errorf("update did not parse: %v: %s", u.ParseErr, u.Raw)
		}
	}
	if w := s.h.logs.warnings()[s.warnBase:]; len(w) > 0 {
		s.t.Errorf("our client logged warnings:\n%s", strings.Join(w, "\n"))
	}
	if s.t.Failed() {
		s.t.Logf("session updates:\n%s", realSummary(s.updates()))
	}
}

type realPromptResult struct {
	stop string
	err  error
}

// prompt sends a prompt of text and more blocks in the background.
func (s *realSess) prompt(text string, more ...ContentBlock) <-chan realPromptResult {
	ch := make(chan realPromptResult, 1)
	blocks := append([]ContentBlock{TextBlock(text)}, more...)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), realTurnTimeout)
		defer cancel()
		stop, err := s.h.agent.Prompt(ctx, s.id, blocks)
		ch <- realPromptResult{stop, err}
	}()
	return ch
}

// wait waits for a prompt's result, failing on an error or after d.
func (s *realSess) wait(ch <-chan realPromptResult, d time.Duration) realPromptResult {
	s.t.Helper()
	select {
	case r := <-ch:
		if r.err != nil {
			s.t.Fatalf("session/prompt: %v", r.err)
		}
		return r
	case <-time.After(d):
		s.t.Fatalf("session/prompt: no answer within %v", d)
	}
	return realPromptResult{}
}

// nextPerm waits for the session's next permission request and checks the
// options every request must offer.
func (s *realSess) nextPerm() *realPermAsk {
	s.t.Helper()
	select {
	case p := <-s.h.client.session(s.id).perms:
		for _, o := range p.req.Options {
			if o.OptionID == "" || !slices.Contains([]string{AllowOnce, AllowAlways, RejectOnce, RejectAlways}, o.Kind) {
				s.t.Errorf("permission option %+v: want an id and a kind of the protocol", o)
			}
		}
		for _, kind := range []string{AllowOnce, RejectOnce} {
			if _, ok := p.req.OptionOfKind(kind); !ok {
				s.t.Errorf("permission request offers no %s option: %+v", kind, p.req.Options)
			}
		}
		if p.tc.ToolCallID == "" {
			s.t.Fatalf("permission request without a toolCallId: %s", p.req.ToolCall)
		}
		return p
	case <-time.After(realTurnTimeout):
		s.t.Fatalf("no session/request_permission within %v", realTurnTimeout)
	}
	return nil
}

// noPerm checks that no permission request is waiting.
func (s *realSess) noPerm() {
	s.t.Helper()
	select {
	case p := <-s.h.client.session(s.id).perms:
		s.t.Errorf("unexpected session/request_permission: %s", p.req.ToolCall)
		p.answer <- Cancelled()
	default:
	}
}

func (s *realSess) updates() []SessionUpdate { return s.h.client.updates(s.id) }

// models returns this session's main model requests.
func (s *realSess) models() []fakemodel.Recorded {
	return s.h.model.ModelRequests(false)[s.base:]
}

// wantEnded checks that the tool call id's last status is status, set by a
// tool_call_update.
func (s *realSess) wantEnded(id, status string) {
	s.t.Helper()
	var last *SessionUpdate
	ups := s.updates()
	for i, u := range ups {
		if u.ToolCall != nil && u.ToolCall.ToolCallID == id && u.ToolCall.Status != nil {
			last = &ups[i]
		}
	}
	if last == nil || last.Kind != UpdateToolCallUpdate || *last.ToolCall.Status != status {
		s.t.Errorf("tool call %s went through statuses %v, want a tool_call_update %s last", id, realToolStatuses(ups, id), status)
	}
}

func (s *realSess) toolArgs(v map[string]string) string {
	b, err := json.Marshal(v)
	if err != nil {
		s.t.Fatal(err)
	}
	return string(b)
}

// (a) a prompt is answered with streamed agent_message_chunk updates and
// end_turn. The prompt ends with an empty text block (an empty caption, say),
// which both agents refuse as invalid params unless it carries "text":"".
func (h *realHarness) text(t *testing.T) {
	s := h.newSession(t)
	const text = "Hello from the fake model, streamed in pieces."
	h.model.Push(fakemodel.Text(text))
	r := s.wait(s.prompt("Say hello.", TextBlock("")), realTurnTimeout)
	if r.stop != StopEndTurn {
		t.Errorf("stopReason %q, want end_turn", r.stop)
	}
	ups := s.updates()
	if got := realAgentText(ups); got != text {
		t.Errorf("agent text %q, want %q", got, text)
	}
	nonEmpty := 0
	for _, u := range ups {
		if u.Kind == UpdateAgentMessageChunk && u.Content != nil && u.Content.Type == "text" && u.Content.Text != "" {
			nonEmpty++
		}
	}
	if nonEmpty < 3 {
		t.Errorf("%d non-empty agent_message_chunk updates, want the 3 streamed deltas", nonEmpty)
	}
	models := s.models()
	if len(models) != 1 {
		t.Fatalf("%d model requests, want 1", len(models))
	}
	if m := models[0]; !m.Stream || !m.HasTool(h.sp.write) || !m.HasTool(h.sp.shell) || !m.Contains("Say hello.") {
		t.Errorf("model request stream=%v tools %v, want streamed, declaring %s and %s, with the prompt", m.Stream, m.Tools, h.sp.write, h.sp.shell)
	}
	s.noPerm()
}

// (b) a file write allowed once: the permission comes after the pending
// tool_call (our ordering guarantee), the file is written, the tool call
// completes and its result goes back to the model.
func (h *realHarness) allowWrite(t *testing.T) {
	s := h.newSession(t)
	file := filepath.Join(s.cwd, "hello.txt")
	h.model.Push(
		fakemodel.ToolCall(h.sp.write, s.toolArgs(map[string]string{"file_path": file, "content": "hello\n"})),
		fakemodel.Text("Wrote hello.txt."),
	)
	start := time.Now()
	ch := s.prompt("Write hello.txt.")
	p := s.nextPerm()
	id := p.tc.ToolCallID
	t.Logf("permission after %v: tool call %s kind %s title %q", time.Since(start).Round(time.Millisecond), id, realDeref(p.tc.Kind), realDeref(p.tc.Title))
	if k := realDeref(p.tc.Kind); k != "edit" {
		t.Errorf("permission tool call kind %q, want edit", k)
	}
	// What the hub shows the user: where, and the diff.
	if len(p.tc.Locations) != 1 || p.tc.Locations[0].Path != file {
		t.Errorf("permission tool call locations %+v, want %s", p.tc.Locations, file)
	}
	var content []struct {
		Type, Path, NewText string
	}
	if err := json.Unmarshal(p.tc.Content, &content); err != nil || len(content) != 1 ||
		content[0].Type != "diff" || content[0].Path != file || content[0].NewText != "hello\n" {
		t.Errorf("permission tool call content %s (%v), want the diff creating %s", p.tc.Content, err, file)
	}
	if st := realToolStatuses(s.updates(), id); len(st) == 0 || st[0] != "pending" {
		t.Errorf("when asked, tool call %s had statuses %v, want a pending tool_call delivered first", id, st)
	}
	if _, err := os.Stat(file); err == nil {
		t.Error("file written before permission was granted")
	}
	p.selectKind(t, AllowOnce)
	r := s.wait(ch, realTurnTimeout)
	if r.stop != StopEndTurn {
		t.Errorf("stopReason %q, want end_turn", r.stop)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "hello\n" {
		t.Errorf("file: %q, %v; want \"hello\\n\"", b, err)
	}
	s.wantEnded(id, "completed")
	models := s.models()
	if len(models) != 2 {
		t.Fatalf("%d model requests, want 2 (the tool call, then its result)", len(models))
	}
	res := models[1].ToolResults()
	if len(res) != 1 || res[0].ID != id || res[0].IsError || !strings.Contains(res[0].Content, file) {
		t.Errorf("tool results sent back: %+v, want one for %s mentioning %s", res, id, file)
	}
	if got := realAgentText(s.updates()); !strings.Contains(got, "Wrote hello.txt.") {
		t.Errorf("agent text %q lacks the final answer", got)
	}
	fsCalls := h.client.session(s.id).fsLog()
	if h.sp.fsWrites {
		if len(fsCalls) != 1 || fsCalls[0] != "write "+file {
			t.Errorf("fs calls %q, want one fs/write_text_file of %s", fsCalls, file)
		}
	} else if len(fsCalls) != 0 {
		t.Errorf("fs calls %q, want none", fsCalls)
	}
}

// (b) a shell command allowed once runs in the session's cwd, and its
// output reaches the model.
func (h *realHarness) allowShell(t *testing.T) {
	s := h.newSession(t)
	marker := fmt.Sprintf("shell-ran-%d", time.Now().UnixNano())
	h.model.Push(
		fakemodel.ToolCall(h.sp.shell, s.toolArgs(map[string]string{
			"command": "echo " + marker + " && pwd > ran.txt", "description": "Print a marker",
		})),
		fakemodel.Text("Ran it."),
	)
	ch := s.prompt("Run the command.")
	p := s.nextPerm()
	id := p.tc.ToolCallID
	if k := realDeref(p.tc.Kind); k != "execute" {
		t.Errorf("permission tool call kind %q, want execute", k)
	}
	if _, err := os.Stat(filepath.Join(s.cwd, "ran.txt")); err == nil {
		t.Error("command ran before permission was granted")
	}
	p.selectKind(t, AllowOnce)
	r := s.wait(ch, realTurnTimeout)
	if r.stop != StopEndTurn {
		t.Errorf("stopReason %q, want end_turn", r.stop)
	}
	if b, err := os.ReadFile(filepath.Join(s.cwd, "ran.txt")); err != nil || strings.TrimSpace(string(b)) != s.cwd {
		t.Errorf("ran.txt: %q, %v; want the command run in the session's cwd %s", b, err, s.cwd)
	}
	s.wantEnded(id, "completed")
	models := s.models()
	if len(models) != 2 {
		t.Fatalf("%d model requests, want 2", len(models))
	}
	if res := models[1].ToolResults(); len(res) != 1 || res[0].ID != id || res[0].IsError || !strings.Contains(res[0].Content, marker) {
		t.Errorf("tool results sent back: %+v, want %s's output %s", res, id, marker)
	}
}

// (c) reject_once, or (d) the outcome "cancelled": the tool does not run,
// the tool call fails and the turn ends normally.
func (h *realHarness) refuse(t *testing.T, outcomeCancelled bool) {
	s := h.newSession(t)
	file := filepath.Join(s.cwd, "hello.txt")
	h.model.Push(fakemodel.ToolCall(h.sp.write, s.toolArgs(map[string]string{"file_path": file, "content": "hello\n"})))
	if h.sp.refusalContinues {
		h.model.Push(fakemodel.Text("Not writing it then."))
	}
	ch := s.prompt("Write hello.txt.")
	p := s.nextPerm()
	id := p.tc.ToolCallID
	if outcomeCancelled {
		p.answer <- Cancelled()
	} else {
		p.selectKind(t, RejectOnce)
	}
	r := s.wait(ch, realTurnTimeout)
	if r.stop != StopEndTurn {
		t.Errorf("stopReason %q, want end_turn", r.stop)
	}
	if _, err := os.Stat(file); err == nil {
		t.Error("refused tool ran: the file exists")
	}
	s.wantEnded(id, "failed")
	if fs := h.client.session(s.id).fsLog(); len(fs) != 0 {
		t.Errorf("fs calls %q after a refusal, want none", fs)
	}
	models := s.models()
	if !h.sp.refusalContinues {
		if len(models) != 1 {
			t.Errorf("%d model requests, want the turn to end after the refusal", len(models))
		}
		return
	}
	if len(models) != 2 {
		t.Fatalf("%d model requests, want 2 (the refusal goes back to the model)", len(models))
	}
	res := models[1].ToolResults()
	if len(res) != 1 || res[0].ID != id || !res[0].IsError {
		t.Errorf("tool results sent back: %+v, want an error result for %s", res, id)
	}
	if got := realAgentText(s.updates()); !strings.Contains(got, "Not writing it then.") {
		t.Errorf("agent text %q lacks the final answer", got)
	}
}

// (e) Cancel while a permission is pending: our Client's ctx ends, Cancel
// and Prompt report "cancelled", the tool does not run, and the session
// takes the next prompt.
func (h *realHarness) cancelPendingPermission(t *testing.T) {
	s := h.newSession(t)
	file := filepath.Join(s.cwd, "hello.txt")
	h.model.Push(fakemodel.ToolCall(h.sp.write, s.toolArgs(map[string]string{"file_path": file, "content": "hello\n"})))
	ch := s.prompt("Write hello.txt.")
	p := s.nextPerm()
	id := p.tc.ToolCallID
	ctx, cancel := context.WithTimeout(context.Background(), realTurnTimeout)
	defer cancel()
	start := time.Now()
	stop, err := h.agent.Cancel(ctx, s.id)
	t.Logf("Cancel returned %q, %v after %v", stop, err, time.Since(start).Round(time.Millisecond))
	if err != nil || stop != StopCancelled {
		t.Errorf("Cancel: %q, %v; want cancelled", stop, err)
	}
	select {
	case <-p.ctx.Done():
	case <-time.After(5 * time.Second):
		t.Error("our RequestPermission ctx was not cancelled")
	}
	select {
	case <-p.returned:
	case <-time.After(5 * time.Second):
		t.Error("our RequestPermission did not return")
	}
	r := s.wait(ch, 5*time.Second)
	if r.stop != StopCancelled {
		t.Errorf("Prompt returned %q, want cancelled", r.stop)
	}
	if _, err := os.Stat(file); err == nil {
		t.Error("tool ran after cancel: the file exists")
	}
	s.wantEnded(id, "failed")
	// Cancel sends session/cancel, then answers the permission "cancelled"
	// as ACP requires. Claude may take that answer for a refusal before it
	// handles session/cancel, and send the refusal to the model (answered
	// from the exhausted script, or aborted) before ending the turn.
	switch models := s.models(); {
	case len(models) == 1:
	case len(models) == 2 && h.sp.refusalContinues:
		t.Logf("the agent sent the refusal to the model before ending the turn")
		if res := models[1].ToolResults(); len(res) != 1 || res[0].ID != id || !res[0].IsError {
			t.Errorf("after cancel, tool results sent to the model: %+v, want only the refusal of %s", res, id)
		}
	default:
		t.Errorf("%d model requests, want 1", len(models))
	}
	if fs := h.client.session(s.id).fsLog(); len(fs) != 0 {
		t.Errorf("fs calls %q after cancel, want none", fs)
	}

	// The next turn's answer goes to its request only, not to a late one
	// of the cancelled turn.
	h.model.Push(realAnswering("Are you there?", "Still here."))
	before := len(s.updates())
	r = s.wait(s.prompt("Are you there?"), realTurnTimeout)
	if got := realAgentText(s.updates()[before:]); r.stop != StopEndTurn || got != "Still here." {
		t.Errorf("next turn: %q, text %q; want end_turn, \"Still here.\"", r.stop, got)
	}
	s.noPerm()
}

// (f) Cancel while the model request hangs ends the turn "cancelled" at
// once; the session takes the next prompt.
func (h *realHarness) cancelHangingModel(t *testing.T) {
	s := h.newSession(t)
	h.model.Push(fakemodel.Hang())
	ch := s.prompt("Say hello.")
	ctx, cancel := context.WithTimeout(context.Background(), realTurnTimeout)
	defer cancel()
	// Only this scenario scripts a Hang (side requests may come after it).
	if _, err := h.model.WaitFor(ctx, func(rs []fakemodel.Recorded) bool {
		return slices.ContainsFunc(rs, func(r fakemodel.Recorded) bool { return r.Reply == "Hang()" })
	}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	stop, err := h.agent.Cancel(ctx, s.id)
	took := time.Since(start)
	t.Logf("Cancel returned %q, %v after %v", stop, err, took.Round(time.Millisecond))
	if err != nil || stop != StopCancelled {
		t.Errorf("Cancel: %q, %v; want cancelled", stop, err)
	}
	// Both agents take well under a second, even under -race.
	if took > 5*time.Second {
		t.Errorf("Cancel took %v, want the turn ended promptly", took)
	}
	r := s.wait(ch, 5*time.Second)
	if r.stop != StopCancelled {
		t.Errorf("Prompt returned %q, want cancelled", r.stop)
	}
	if got := realAgentText(s.updates()); got != "" {
		t.Errorf("agent text %q from a model that never answered", got)
	}

	h.model.Push(realAnswering("Are you there?", "Still here."))
	r = s.wait(s.prompt("Are you there?"), realTurnTimeout)
	if got := realAgentText(s.updates()); r.stop != StopEndTurn || got != "Still here." {
		t.Errorf("next turn: %q, text %q; want end_turn, \"Still here.\"", r.stop, got)
	}
}

// (g) $/cancel_request both ways, with an agent that sends it (Claude):
// the context of our session/prompt call ends, so our client withdraws
// the request with $/cancel_request (as for any call whose context ends
// first); Claude stops the turn and withdraws its own pending
// session/request_permission with $/cancel_request, which ends our
// handler's context. Both notifications are read from this process's
// ACP record (RecordDirEnv, set by TestMain); nothing was written.
func (h *realHarness) cancelRequestBothWays(t *testing.T) {
	s := h.newSession(t)
	file := filepath.Join(s.cwd, "withdrawn.txt")
	h.model.Push(fakemodel.ToolCall(h.sp.write, s.toolArgs(map[string]string{"file_path": file, "content": "no\n"})))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ended := make(chan error, 1)
	go func() {
		_, err := h.agent.Prompt(ctx, s.id, []ContentBlock{TextBlock("Write withdrawn.txt.")})
		ended <- err
	}()
	p := s.nextPerm()
	cancel()
	select {
	case <-p.ctx.Done():
	case <-time.After(realTurnTimeout):
		t.Fatal("our RequestPermission's context did not end")
	}
	select {
	case err := <-ended:
		if err == nil {
			t.Error("the withdrawn prompt answered no error")
		}
	case <-time.After(realTurnTimeout):
		t.Fatal("the withdrawn session/prompt did not return")
	}
	var promptID, permID json.RawMessage
	var sentCancel, gotCancel bool
	for _, fr := range recordedFrames(t) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				SessionID string          `json:"sessionId"`
				RequestID json.RawMessage `json:"requestId"`
				ToolCall  struct {
					ToolCallID string `json:"toolCallId"`
				} `json:"toolCall"`
			} `json:"params"`
		}
		if json.Unmarshal(fr.Msg, &m) != nil {
			continue
		}
		switch {
		case fr.Sent && m.Method == "session/prompt" && m.Params.SessionID == s.id:
			promptID = m.ID
		case !fr.Sent && m.Method == "session/request_permission" && m.Params.ToolCall.ToolCallID == p.tc.ToolCallID:
			permID = m.ID
		case fr.Sent && m.Method == "$/cancel_request" && promptID != nil && string(m.Params.RequestID) == string(promptID):
			sentCancel = true
		case !fr.Sent && m.Method == "$/cancel_request" && permID != nil && string(m.Params.RequestID) == string(permID):
			gotCancel = true
		}
	}
	if !sentCancel || !gotCancel {
		t.Errorf("$/cancel_request for our session/prompt %s sent: %v; Claude's for its session/request_permission %s received: %v", promptID, sentCancel, permID, gotCancel)
	}
	if _, err := os.Stat(file); err == nil {
		t.Error("the withdrawn write happened")
	}
}

// recordedFrames is what this process's ACP connections recorded so far.
func recordedFrames(t *testing.T) []schema.Frame {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(os.Getenv(RecordDirEnv), fmt.Sprintf("%d.jsonl", os.Getpid())))
	if err != nil {
		t.Fatalf("the ACP record (%s, set by TestMain): %v", RecordDirEnv, err)
	}
	var out []schema.Frame
	for _, line := range strings.Split(string(b), "\n") {
		var fr schema.Frame
		if json.Unmarshal([]byte(line), &fr) == nil {
			out = append(out, fr)
		}
	}
	return out
}

// realAnswering is a scripted model answer for the request carrying prompt.
func realAnswering(prompt, text string) fakemodel.Reply {
	return fakemodel.Text(text).When(func(r *fakemodel.Recorded) bool { return r.HasTools() && r.Contains(prompt) })
}

// realClient is the Client for one agent. It keeps updates, permission
// requests and fs calls per session; fs/* are served by LocalFS (it
// implements FileSystem only to see which writes come through
// fs/write_text_file); terminals are the built-in ones.
type realClient struct {
	mu       sync.Mutex
	sessions map[string]*realSessionLog
	kinds    map[string]int
}

type realSessionLog struct {
	perms chan *realPermAsk

	mu      sync.Mutex
	updates []SessionUpdate
	fs      []string
}

func (l *realSessionLog) fsLog() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.fs...)
}

// realPermAsk is one permission request waiting for the test's answer.
type realPermAsk struct {
	req      RequestPermissionRequest
	tc       ToolCall // req.ToolCall parsed
	ctx      context.Context
	answer   chan RequestPermissionResponse
	returned chan struct{} // closed when RequestPermission returned
}

func (p *realPermAsk) selectKind(t *testing.T, kind string) {
	t.Helper()
	o, ok := p.req.OptionOfKind(kind)
	if !ok {
		t.Fatalf("permission request has no option of kind %s: %+v", kind, p.req.Options)
	}
	p.answer <- Selected(o.OptionID)
}

func newRealClient() *realClient {
	return &realClient{sessions: map[string]*realSessionLog{}, kinds: map[string]int{}}
}

func (c *realClient) session(id string) *realSessionLog {
	c.mu.Lock()
	defer c.mu.Unlock()
	l := c.sessions[id]
	if l == nil {
		l = &realSessionLog{perms: make(chan *realPermAsk, 8)}
		c.sessions[id] = l
	}
	return l
}

func (c *realClient) updates(id string) []SessionUpdate {
	l := c.session(id)
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]SessionUpdate(nil), l.updates...)
}

func (c *realClient) kindsSeen() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for k := range c.kinds {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func (c *realClient) SessionUpdate(_ context.Context, n SessionNotification) {
	c.mu.Lock()
	c.kinds[n.Update.Kind]++
	c.mu.Unlock()
	l := c.session(n.SessionID)
	l.mu.Lock()
	l.updates = append(l.updates, n.Update)
	l.mu.Unlock()
}

func (c *realClient) RequestPermission(ctx context.Context, req RequestPermissionRequest) (RequestPermissionResponse, error) {
	p := &realPermAsk{req: req, ctx: ctx, answer: make(chan RequestPermissionResponse, 1), returned: make(chan struct{})}
	defer close(p.returned)
	if err := json.Unmarshal(req.ToolCall, &p.tc); err != nil {
		return RequestPermissionResponse{}, fmt.Errorf("tool call: %w", err)
	}
	c.session(req.SessionID).perms <- p
	select {
	case r := <-p.answer:
		return r, nil
	case <-ctx.Done():
		return RequestPermissionResponse{}, ctx.Err()
	}
}

func (c *realClient) ReadTextFile(ctx context.Context, req ReadTextFileRequest) (ReadTextFileResponse, error) {
	c.noteFS(req.SessionID, "read "+req.Path)
	return LocalFS{}.ReadTextFile(ctx, req)
}

func (c *realClient) WriteTextFile(ctx context.Context, req WriteTextFileRequest) (WriteTextFileResponse, error) {
	c.noteFS(req.SessionID, "write "+req.Path)
	return LocalFS{}.WriteTextFile(ctx, req)
}

func (c *realClient) noteFS(sid, call string) {
	l := c.session(sid)
	l.mu.Lock()
	l.fs = append(l.fs, call)
	l.mu.Unlock()
}

// realLogs is a slog.Handler keeping every record of our client and
// process supervision.
type realLogs struct {
	mu     sync.Mutex
	lines  []string
	warns  []string
	vendor map[string]bool
}

func (l *realLogs) Enabled(context.Context, slog.Level) bool { return true }
func (l *realLogs) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *realLogs) WithGroup(string) slog.Handler            { return l }

func (l *realLogs) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", r.Level, r.Message)
	method := ""
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		if a.Key == "method" {
			method = a.Value.String()
		}
		return true
	})
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, b.String())
	if r.Level >= slog.LevelWarn {
		l.warns = append(l.warns, b.String())
	}
	if r.Message == "acp: ignoring notification" {
		if l.vendor == nil {
			l.vendor = map[string]bool{}
		}
		l.vendor[method] = true
	}
	return nil
}

func (l *realLogs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

func (l *realLogs) warnings() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.warns...)
}

func (l *realLogs) notificationsIgnored() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var m []string
	for k := range l.vendor {
		m = append(m, k)
	}
	slices.Sort(m)
	return fmt.Sprintf("other notifications %v", m)
}

// realAgentText joins the text of the agent_message_chunk updates.
func realAgentText(ups []SessionUpdate) string {
	var b strings.Builder
	for _, u := range ups {
		if u.Kind == UpdateAgentMessageChunk && u.Content != nil && u.Content.Type == "text" {
			b.WriteString(u.Content.Text)
		}
	}
	return b.String()
}

// realToolStatuses returns the statuses the tool call id went through.
func realToolStatuses(ups []SessionUpdate, id string) []string {
	var out []string
	for _, u := range ups {
		if tc := u.ToolCall; tc != nil && tc.ToolCallID == id && tc.Status != nil {
			out = append(out, *tc.Status)
		}
	}
	return out
}

// realSummary describes updates one a line, for failure logs.
func realSummary(ups []SessionUpdate) string {
	var b strings.Builder
	for _, u := range ups {
		switch {
		case u.Content != nil:
			fmt.Fprintf(&b, "  %s %q\n", u.Kind, u.Content.Text)
		case u.ToolCall != nil:
			tc := u.ToolCall
			fmt.Fprintf(&b, "  %s id=%s status=%s kind=%s title=%q\n", u.Kind, tc.ToolCallID, realDeref(tc.Status), realDeref(tc.Kind), realDeref(tc.Title))
		default:
			raw := string(u.Raw)
			if len(raw) > 300 {
				raw = raw[:300] + "…"
			}
			fmt.Fprintf(&b, "  %s %s\n", u.Kind, raw)
		}
	}
	return b.String()
}

func realDeref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
