//go:build linux

package systest

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/switchboard-hub/switchboard/acp/acptest"
	"github.com/switchboard-hub/switchboard/acp/acptest/fakemodel"
)

// The bridge's scenarios against third-party agents behind the hub: the
// acp-go-sdk example agent and Qwen Code offline (against the fake model).
// Each scenario is one function taking a thirdParty, which says how to
// script the agent's turns; TestBridge runs every scenario for both.

// thirdParty is a third-party agent as the scenarios drive it.
type thirdParty struct {
	id  string    // the hub's agent id: the bridge's --agent
	hub hubConfig // the hub's config, with the agent
	// timeout bounds the waits for the agent (Qwen starts in seconds,
	// more under -race).
	timeout time.Duration
	// session opens a session in cwd, as the scenarios need it.
	session func(t *testing.T, b *bridgeProc, cwd string) string
	// turn runs one full turn of prompt (which must be new in the
	// thread), checks the agent's answer and returns the turn's updates.
	turn func(t *testing.T, b *bridgeProc, sid, prompt string) []sdk.SessionNotification
	// asking scripts a turn of prompt that asks a permission to write into
	// cwd; check checks the text of that turn and its effect once allowed.
	asking func(t *testing.T, prompt, cwd string) (check func(t *testing.T, text string))
	// hang scripts a turn of prompt that runs until cancelled; hanging
	// waits until that turn is under way in the agent.
	hang    func(t *testing.T, prompt string)
	hanging func(t *testing.T, b *bridgeProc)
	// remembers, if set, checks that the agent's last model request, for
	// the prompt latest, carried the thread's earlier turn of prompt earlier.
	remembers func(t *testing.T, earlier, latest string)
}

// withAgent runs scenario against the agent mk sets up.
func withAgent(mk func(*testing.T, e2eBins) thirdParty, scenario func(*testing.T, e2eBins, thirdParty)) func(*testing.T, e2eBins) {
	return func(t *testing.T, bins e2eBins) { scenario(t, bins, mk(t, bins)) }
}

// allowOnce answers a permission request with its allow_once option.
func allowOnce(_ context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	for _, o := range p.Options {
		if o.Kind == sdk.PermissionOptionKindAllowOnce {
			return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: o.OptionId}}}, nil
		}
	}
	return sdk.RequestPermissionResponse{}, errors.New("no allow_once option")
}

// text is the agent text of the updates received so far, which it keeps.
func (e *testEditor) text() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return agentText(e.updates)
}

// sdkExampleAgent is the acp-go-sdk example agent. Every turn streams text
// and tool calls with pauses (~1 s each), then asks a permission for an
// edit (of a file it only pretends to write) and ends after the answer:
// ~5 s a turn. It has no session/load.
func sdkExampleAgent(_ *testing.T, bins e2eBins) thirdParty {
	const allowed = "successfully updated the configuration"
	return thirdParty{
		id:      "sdk",
		hub:     hubConfig{"agents": map[string]agentConf{"sdk": {Name: "SDK example", Command: bins.sdkAgent}}},
		timeout: bridgeTimeout,
		session: func(t *testing.T, b *bridgeProc, cwd string) string { return b.newSession(t, cwd) },
		turn: func(t *testing.T, b *bridgeProc, sid, prompt string) []sdk.SessionNotification {
			t.Helper()
			b.ed.setPerm(allowOnce)
			ups := b.mustPrompt(t, sid, prompt, sdk.StopReasonEndTurn)
			if got := agentText(ups); !strings.Contains(got, allowed) {
				t.Errorf("turn %q: the agent said %q", prompt, got)
			}
			return ups
		},
		asking: func(*testing.T, string, string) func(*testing.T, string) {
			return func(t *testing.T, text string) {
				if !strings.Contains(text, allowed) {
					t.Errorf("the agent said %q, want it to go on with the edit", text)
				}
			}
		},
		hang: func(*testing.T, string) {},
		// Cancelled in the pause after its second message chunk.
		hanging: func(t *testing.T, b *bridgeProc) {
			t.Helper()
			if !waitFor(bridgeTimeout, func() bool { return strings.Contains(b.ed.text(), "I'll help you with that.") }) {
				t.Fatalf("the agent's turn did not start: the editor got %q", b.ed.text())
			}
		},
	}
}

// qwenOffline is Qwen Code against a fake model server of its own, its
// sessions in the mode that asks before edits. A turn is one scripted
// model answer, picked by the prompt it carries.
func qwenOffline(t *testing.T, _ e2eBins) thirdParty {
	model := fakemodel.Start(t)
	ra := acptest.Qwen(t, acptest.ToolsDir(t), model.URL)
	forPrompt := func(prompt string) func(*fakemodel.Recorded) bool {
		return func(r *fakemodel.Recorded) bool { return r.HasTools() && r.Contains(prompt) }
	}
	return thirdParty{
		id:      "qwen-offline",
		hub:     hubConfig{"agents": map[string]agentConf{"qwen-offline": realAgentConf("Qwen (offline)", ra)}},
		timeout: 3 * time.Minute,
		session: func(t *testing.T, b *bridgeProc, cwd string) string {
			t.Helper()
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			ns, err := b.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: cwd, McpServers: []sdk.McpServer{}})
			if err != nil {
				t.Fatalf("session/new: %v", err)
			}
			if _, err := b.conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: ns.SessionId, ModeId: sdk.SessionModeId(ra.AskMode)}); err != nil {
				t.Fatalf("session/set_mode %s: %v", ra.AskMode, err)
			}
			return string(ns.SessionId)
		},
		turn: func(t *testing.T, b *bridgeProc, sid, prompt string) []sdk.SessionNotification {
			t.Helper()
			answer := "Answering: " + prompt
			model.Push(fakemodel.Text(answer).When(forPrompt(prompt)))
			ups := b.mustPrompt(t, sid, prompt, sdk.StopReasonEndTurn)
			if got := agentText(ups); got != answer {
				t.Errorf("turn %q: Qwen said %q, want %q", prompt, got, answer)
			}
			return ups
		},
		asking: func(t *testing.T, prompt, cwd string) func(*testing.T, string) {
			file := filepath.Join(cwd, "hello.txt")
			args, _ := json.Marshal(map[string]string{"file_path": file, "content": "hello from qwen\n"})
			model.Push(fakemodel.ToolCall("write_file", string(args)).When(forPrompt(prompt)), fakemodel.Text("Wrote hello.txt."))
			return func(t *testing.T, text string) {
				if !strings.Contains(text, "Wrote hello.txt.") {
					t.Errorf("Qwen said %q, want it to go on after the write", text)
				}
				// The editor serves no files: the hub wrote it.
				if c, err := os.ReadFile(file); err != nil || string(c) != "hello from qwen\n" {
					t.Errorf("on disk: %q, %v; want Qwen's write", c, err)
				}
			}
		},
		hang: func(_ *testing.T, prompt string) { model.Push(fakemodel.Hang().When(forPrompt(prompt))) },
		// Cancelled while its model request hangs.
		hanging: func(t *testing.T, _ *bridgeProc) {
			t.Helper()
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			if _, err := model.WaitFor(ctx, func(rs []fakemodel.Recorded) bool {
				return slices.ContainsFunc(rs, func(r fakemodel.Recorded) bool { return r.Reply == "Hang()" })
			}); err != nil {
				t.Fatalf("Qwen's model request did not come: %v", err)
			}
		},
		remembers: func(t *testing.T, earlier, latest string) {
			t.Helper()
			rs := model.ModelRequests(false)
			if len(rs) == 0 {
				t.Fatal("no model request")
			}
			var body struct {
				Messages []chatMessage `json:"messages"`
			}
			if err := json.Unmarshal(rs[len(rs)-1].Body, &body); err != nil || len(body.Messages) == 0 {
				t.Fatalf("Qwen's last model request: %v, %d messages", err, len(body.Messages))
			}
			// The prompt reaches the model as the user wrote it, after the
			// earlier exchange as messages of their own: Qwen's own session
			// carries it (the same process, or after a hub restart one
			// the new hub reopened with session/load: Qwen 0.24.4 has it),
			// not a context block the hub put before the prompt.
			msgs := body.Messages
			last := msgs[len(msgs)-1]
			if last.Role != "user" || contentText(last.Content) != latest {
				t.Errorf("the last message is %s %.200s, want the user's %q alone", last.Role, last.Content, latest)
			}
			if !slices.ContainsFunc(msgs, func(m chatMessage) bool {
				return m.Role == "assistant" && contentText(m.Content) == "Answering: "+earlier
			}) {
				t.Errorf("Qwen's model request lacks its earlier answer to %q", earlier)
			}
		},
	}
}

// chatMessage is a message of an OpenAI chat-completions request.
type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// contentText is the text of a chat message's content: a string, or
// the text parts of an array.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct{ Type, Text string }
	json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// realAgentConf is a real agent's recipe as a config entry.
func realAgentConf(name string, ra acptest.RealAgent) agentConf {
	env := map[string]string{}
	for _, kv := range ra.Env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return agentConf{Name: name, Command: ra.Path, Args: ra.Args, Env: env}
}

// startThirdParty starts a hub with the agent, a bridge for it, and a
// session in a new cwd.
func startThirdParty(t *testing.T, bins e2eBins, a thirdParty) (*hubProc, *bridgeProc, string, string) {
	t.Helper()
	h := newHub(t, bins, a.hub)
	b := startBridge(t, bins, h, a.id)
	b.mustInitialize(t)
	cwd := t.TempDir()
	return h, b, a.session(t, b, cwd), cwd
}

type promptResult struct {
	r   sdk.PromptResponse
	err error
}

// promptAsync sends session/prompt and answers on the channel.
func (b *bridgeProc) promptAsync(t *testing.T, sid, text string) <-chan promptResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	done := make(chan promptResult, 1)
	go func() {
		defer cancel()
		r, err := b.conn.Prompt(ctx, sdk.PromptRequest{SessionId: sdk.SessionId(sid), Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
		done <- promptResult{r, err}
	}()
	return done
}

// lastTurn is the last turn of the thread's history.
func lastTurn(t *testing.T, h *hubProc, sid string) apiTurn {
	t.Helper()
	ts := h.history(sid, false, asEditor...)
	if len(ts) == 0 {
		t.Fatalf("thread %s has no turns", sid)
	}
	return ts[len(ts)-1]
}

// ---- the scenarios -------------------------------------------------------------

// A permission answered in the hub (by the window, with scope=all) while
// the editor's session/request_permission waits: the bridge withdraws the
// editor's request ($/cancel_request: its context ends), the turn goes
// on with the hub's answer, and the hub records who decided.
func thirdPartyPermissionHub(t *testing.T, bins e2eBins, a thirdParty) {
	h, b, sid, cwd := startThirdParty(t, bins, a)
	asked := make(chan struct{}, 1)
	released := make(chan error, 1)
	b.ed.setPerm(func(ctx context.Context, _ sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		asked <- struct{}{}
		<-ctx.Done() // the editor's user never answers
		released <- ctx.Err()
		return sdk.RequestPermissionResponse{}, ctx.Err()
	})
	const prompt = "Write hello.txt, asking first."
	check := a.asking(t, prompt, cwd)
	b.ed.take()
	done := b.promptAsync(t, sid, prompt)
	select {
	case <-asked:
	case res := <-done:
		t.Fatalf("the prompt ended (%+v, %v) without asking the editor", res.r, res.err)
	case <-time.After(a.timeout):
		t.Fatal("the editor was not asked")
	}
	ps := h.permissions("pending", asEditor...)
	if len(ps) != 1 {
		t.Fatalf("pending permissions %+v, want one", ps)
	}
	var option string
	for _, o := range ps[0].Options {
		if o.Kind == string(sdk.PermissionOptionKindAllowOnce) {
			option = o.OptionID
		}
	}
	if option == "" {
		t.Fatalf("no allow_once option in %+v", ps[0].Options)
	}
	h.call("POST", "/v1/permissions/"+ps[0].ID+"?scope=all", map[string]string{"optionId": option}, 200, nil, "X-Client-ID", "window")
	select {
	case err := <-released:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the editor's request ended with %v, want it cancelled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the editor's permission request was not withdrawn after the hub decided")
	}
	var res promptResult
	select {
	case res = <-done:
	case <-time.After(a.timeout):
		t.Fatal("the turn did not end after the hub's decision")
	}
	if res.err != nil || res.r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v, %v; want end_turn", res.r, res.err)
	}
	check(t, agentText(b.ed.take()))
	got := h.permissions("", asEditor...)
	// Naming itself "window" makes a client no window.
	if len(got) != 1 || got[0].Status != "approved" || got[0].DecidedBy != "client:window" || got[0].OptionID != option {
		t.Errorf("permissions %+v: want one approved by client:window with %s", got, option)
	}
	if tu := lastTurn(t, h, sid); tu.Status != "completed" {
		t.Errorf("hub turn %+v, want completed", tu)
	}
}

// session/cancel while the turn runs in the agent: the prompt answers
// cancelled, the hub turn ends cancelled, and the session takes the next
// prompt.
func thirdPartyCancel(t *testing.T, bins e2eBins, a thirdParty) {
	h, b, sid, _ := startThirdParty(t, bins, a)
	const prompt = "Take your time."
	a.hang(t, prompt)
	b.ed.take()
	done := b.promptAsync(t, sid, prompt)
	a.hanging(t, b)
	start := time.Now()
	if err := b.conn.Cancel(bridgeCtx(t), sdk.CancelNotification{SessionId: sdk.SessionId(sid)}); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-done:
		if res.err != nil || res.r.StopReason != sdk.StopReasonCancelled {
			t.Fatalf("prompt: %+v, %v; want cancelled", res.r, res.err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the prompt did not end within 15s of session/cancel")
	}
	took := time.Since(start)
	t.Logf("cancelled after %v", took.Round(time.Millisecond))
	// Both agents end the turn at once (the bridge would answer on its own
	// after cancelGrace, 10 s).
	if took > 5*time.Second {
		t.Errorf("cancel took %v", took)
	}
	// Both agents answer session/prompt cancelled here (the sdk example
	// agent: its pause ends with the cancelled context; Qwen: its model
	// request aborted). The sdk example agent answers end_turn should the
	// cancel find it waiting on its permission (the hub answers that
	// "cancelled", which it takes for a normal end). The hub records the
	// turn cancelled whatever the agent's stop reason, and the bridge
	// answers from that status.
	tu := lastTurn(t, h, sid)
	t.Logf("hub turn: status %s, stopReason %s", tu.Status, tu.StopReason)
	if tu.Status != "cancelled" || tu.StopReason != "cancelled" && tu.StopReason != "end_turn" {
		t.Errorf("hub turn %+v, want cancelled", tu)
	}
	for _, p := range h.permissions("", asEditor...) {
		if p.Status == "approved" {
			t.Errorf("permission %+v approved: the cancelled turn went on", p)
		}
	}
	a.turn(t, b, sid, "Are you there?")
}

// session/list and session/load, from a new bridge process of the same
// editor: the thread made by the first is listed, its history is replayed
// as the updates the first turn streamed, and the loaded session goes on.
// (The sdk example agent has no session/load; Qwen has, but the bridge
// replays from the hub either way.)
func thirdPartyLoad(t *testing.T, bins e2eBins, a thirdParty) {
	h, b1, sid, cwd := startThirdParty(t, bins, a)
	const first = "Tell me about this project."
	streamed := a.turn(t, b1, sid, first)
	b1.stop()

	b2 := startBridge(t, bins, h, a.id)
	b2.mustInitialize(t)
	replay := b2.listAndLoad(t, sid, cwd)
	if got := userText(replay); got != first {
		t.Errorf("replayed user text %q, want %q", got, first)
	}
	if got, want := agentText(replay), agentText(streamed); got != want || want == "" {
		t.Errorf("replayed agent text %q, want what the turn streamed: %q", got, want)
	}
	if got, want := kinds(replay), textRuns(append([]string{"user_message_chunk"}, kinds(streamed)...)); !slices.Equal(got, want) {
		t.Errorf("replayed updates %v, want the user's prompt then what the turn streamed (each run of text chunks as one), %v", got, want)
	}
	const second = "And what next?"
	a.turn(t, b2, sid, second)
	if a.remembers != nil {
		a.remembers(t, first, second)
	}
	if ts := h.history(sid, false, asEditor...); len(ts) != 2 || ts[1].Input != second || ts[1].Status != "completed" {
		t.Errorf("history %+v: want the loaded session's turn after the first", ts)
	}
}

// The hub killed (-9) under the bridge, between turns, and a new one
// started on the same data dir: the new hub stops the agent the old one
// left running, the bridge finds the new hub, and the thread's next turn
// runs on a new agent process.
func thirdPartyHubRestart(t *testing.T, bins e2eBins, a thirdParty) {
	h, b, sid, _ := startThirdParty(t, bins, a)
	const first = "Remember the number 42."
	a.turn(t, b, sid, first)
	h.kill9()
	old := h.seenAgents()
	if len(old) == 0 {
		t.Fatal("no agent process ran under the killed hub")
	}
	h.start()
	if !waitFor(20*time.Second, func() bool {
		for pid, start := range old {
			if _, state, ok := procStat(pid); ok && state != "Z" && procStartTime(pid) == start {
				return false
			}
		}
		return true
	}) {
		t.Errorf("the agent processes %v of the killed hub still run", old)
	}
	const second = "Which number?"
	a.turn(t, b, sid, second)
	if a.remembers != nil {
		a.remembers(t, first, second)
	}
	if ts := h.history(sid, false, asEditor...); len(ts) != 2 || ts[0].Status != "completed" || ts[1].Status != "completed" {
		t.Errorf("history %+v: want both turns completed", ts)
	}
}
