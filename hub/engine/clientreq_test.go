//go:build unix

package engine_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/engine"
	"github.com/switchboard-hub/switchboard/store"
)

// newDelegatingHarness is newHarness with a client request timeout.
func newDelegatingHarness(t *testing.T, timeout time.Duration) *harness {
	t.Helper()
	h := &harness{t: t, dbPath: filepath.Join(t.TempDir(), "hub.db"), cwd: t.TempDir()}
	h.openDelegating(timeout)
	return h
}

// openDelegating opens an engine over h.dbPath with a client request
// timeout, closed at the end of the test.
func (h *harness) openDelegating(timeout time.Duration) {
	t := h.t
	db, err := store.Open(h.dbPath, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(context.Background(), engine.Options{Store: db, Agents: []acp.AgentSpec{fakeSpec(t, "fake")},
		ClientRequestTimeout: timeout, CancelWait: time.Second,
		AgentOptions: acp.AgentOptions{Process: acp.ProcessOptions{Grace: 300 * time.Millisecond}}})
	if err != nil {
		t.Fatal(err)
	}
	h.e, h.db = e, db
	t.Cleanup(h.close)
}

// delegated creates a thread of alice whose editor has caps.
func (h *harness) delegated(caps hub.ClientCapabilities) hub.Thread {
	h.t.Helper()
	th, err := h.e.CreateThread(context.Background(), alice, hub.CreateThreadRequest{Agent: "fake", Cwd: h.cwd, ClientCapabilities: &caps})
	if err != nil {
		h.t.Fatal(err)
	}
	return th
}

var allCaps = hub.ClientCapabilities{FS: hub.FSCapabilities{ReadTextFile: true, WriteTextFile: true}, Terminal: true}

// nextRequest reads sub until a client_request event, which must be for
// method.
func nextRequest(t *testing.T, sub *hub.Subscription, method string) (hub.Event, hub.ClientRequest) {
	t.Helper()
	ev := until(t, sub, hub.EventClientRequest)
	var r hub.ClientRequest
	if err := json.Unmarshal(ev.Payload, &r); err != nil {
		t.Fatal(err)
	}
	if r.Method != method || r.RequestID == "" {
		t.Fatalf("client request %+v, want %s", r, method)
	}
	return ev, r
}

func (h *harness) answer(th hub.Thread, c hub.Caller, id string, a hub.ClientAnswer) error {
	return h.e.AnswerClientRequest(context.Background(), c, th.ID, id, a)
}

func (h *harness) start(th hub.Thread, input string) hub.Turn {
	h.t.Helper()
	tu, err := h.e.StartTurn(context.Background(), alice, th.ID, hub.TurnInput{Input: input})
	if err != nil {
		h.t.Fatal(err)
	}
	return tu
}

func result(s string) hub.ClientAnswer { return hub.ClientAnswer{Result: json.RawMessage(s)} }

// The editor serves fs/* and terminal/*: the agent's requests reach it as
// client_request events with the agent's params, and its answers, results
// and errors, reach the agent verbatim. Nothing touches the disk.
func TestClientRequestsProxied(t *testing.T) {
	h := newDelegatingHarness(t, 0)
	th := h.delegated(allCaps)
	sub := h.watch(th)
	file := filepath.Join(h.cwd, "a.txt")

	tu := h.start(th, "fs-write "+file+" from the agent")
	ev, r := nextRequest(t, sub, "fs/write_text_file")
	var wp struct{ SessionID, Path, Content string }
	json.Unmarshal(r.Params, &wp)
	if ev.TurnID != tu.ID || wp.Path != file || wp.Content != "from the agent" || wp.SessionID == "" {
		t.Errorf("event turn %s (want %s), params %s", ev.TurnID, tu.ID, r.Params)
	}
	if err := h.answer(th, alice, r.RequestID, result(`{}`)); err != nil {
		t.Fatal(err)
	}
	if got := payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn"); got.Output != "fs-write ok" {
		t.Errorf("fs-write: %q", got.Output)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("the hub wrote %s (%v): the editor serves it", file, err)
	}

	h.start(th, "fs-read "+file)
	_, r = nextRequest(t, sub, "fs/read_text_file")
	if err := h.answer(th, alice, r.RequestID, result(`{"content":"the editor's buffer"}`)); err != nil {
		t.Fatal(err)
	}
	if got := payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn"); got.Output != "fs-read ok: the editor's buffer" {
		t.Errorf("fs-read: %q", got.Output)
	}

	h.start(th, "fs-read "+file)
	_, r = nextRequest(t, sub, "fs/read_text_file")
	if err := h.answer(th, alice, r.RequestID, hub.ClientAnswer{Error: &hub.ClientError{Code: -32002, Message: "no such buffer"}}); err != nil {
		t.Fatal(err)
	}
	if got := payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn"); got.Output != "fs-read error -32002: no such buffer" {
		t.Errorf("fs-read error: %q", got.Output)
	}

	marker := filepath.Join(h.cwd, "ran-on-the-hub")
	h.start(th, "terminal touch "+marker)
	for _, step := range []struct{ method, result string }{
		{"terminal/create", `{"terminalId":"ed-1"}`},
		{"terminal/wait_for_exit", `{"exitCode":0}`},
		{"terminal/output", `{"output":"ran in the editor\n","truncated":false,"exitStatus":{"exitCode":0}}`},
		{"terminal/release", `{}`},
	} {
		_, r := nextRequest(t, sub, step.method)
		if !strings.Contains(string(r.Params), `"sessionId"`) || step.method != "terminal/create" && !strings.Contains(string(r.Params), `"terminalId":"ed-1"`) {
			t.Errorf("%s params %s", step.method, r.Params)
		}
		if err := h.answer(th, alice, r.RequestID, result(step.result)); err != nil {
			t.Fatalf("%s: %v", step.method, err)
		}
	}
	if got := payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn"); got.Output != "terminal exit 0 signal null truncated false\nran in the editor\n" {
		t.Errorf("terminal: %q", got.Output)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("the command ran on the hub (%v)", err)
	}
}

// What the editor does not advertise the hub serves itself: no event.
func TestClientRequestsNotAdvertised(t *testing.T) {
	h := newDelegatingHarness(t, 0)
	th := h.delegated(hub.ClientCapabilities{FS: hub.FSCapabilities{ReadTextFile: true}})
	sub := h.watch(th)
	file := filepath.Join(h.cwd, "b.txt")
	h.start(th, "fs-write "+file+" by the hub")
	for timeout := time.After(20 * time.Second); ; {
		var ev hub.Event
		select {
		case ev = <-sub.Events():
		case <-timeout:
			t.Fatal("the turn did not complete")
		}
		if ev.Type == hub.EventClientRequest {
			t.Fatalf("a client request for an fs method not advertised: %s", ev.Payload)
		}
		if ev.Type == hub.EventTurnCompleted {
			if got := payload[hub.Turn](t, ev, "turn"); got.Output != "fs-write ok" {
				t.Errorf("fs-write: %q", got.Output)
			}
			break
		}
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "by the hub" {
		t.Errorf("file %q, %v", b, err)
	}
}

// Only the owner answers, once; a late answer after a timeout or a
// cancel is a conflict, and the agent was told.
func TestClientRequestAnswers(t *testing.T) {
	h := newDelegatingHarness(t, 500*time.Millisecond)
	th := h.delegated(allCaps)
	sub := h.watch(th)
	file := filepath.Join(h.cwd, "c.txt")

	h.start(th, "fs-read "+file)
	_, r := nextRequest(t, sub, "fs/read_text_file")
	for _, c := range []hub.Caller{{ClientID: "bob"}, {ClientID: "window", All: true}} {
		if err := h.answer(th, c, r.RequestID, result(`{"content":"x"}`)); hub.ErrorCode(err) != hub.CodeNotFound {
			t.Errorf("answer by %+v: %v, want NOT_FOUND", c, err)
		}
	}
	if err := h.answer(th, alice, "cr_unknown", result(`{"content":"x"}`)); hub.ErrorCode(err) != hub.CodeNotFound {
		t.Errorf("unknown request: %v", err)
	}
	if err := h.answer(th, alice, r.RequestID, hub.ClientAnswer{}); hub.ErrorCode(err) != hub.CodeInvalidArgument {
		t.Errorf("empty answer: %v", err)
	}
	if err := h.answer(th, alice, r.RequestID, result(`{"content":"first"}`)); err != nil {
		t.Fatal(err)
	}
	if err := h.answer(th, alice, r.RequestID, result(`{"content":"second"}`)); hub.ErrorCode(err) != hub.CodeConflict {
		t.Errorf("second answer: %v, want CONFLICT", err)
	}
	if got := payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn"); got.Output != "fs-read ok: first" {
		t.Errorf("fs-read: %q", got.Output)
	}

	t.Run("timeout", func(t *testing.T) {
		start := time.Now()
		h.start(th, "fs-read "+file)
		_, r := nextRequest(t, sub, "fs/read_text_file")
		got := payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn")
		if !strings.HasPrefix(got.Output, "fs-read error -32603: switchboard: the editor did not answer fs/read_text_file") || time.Since(start) > 10*time.Second {
			t.Errorf("after %v: %q", time.Since(start), got.Output)
		}
		err := h.answer(th, alice, r.RequestID, result(`{"content":"late"}`))
		if e, ok := err.(*hub.Error); !ok || e.Code != hub.CodeConflict || e.Details["status"] != "expired" {
			t.Errorf("late answer: %v", err)
		}
	})

	t.Run("cancel", func(t *testing.T) {
		h := newDelegatingHarness(t, time.Minute)
		th := h.delegated(allCaps)
		sub := h.watch(th)
		tu := h.start(th, "fs-read "+file)
		_, r := nextRequest(t, sub, "fs/read_text_file")
		start := time.Now()
		if _, err := h.e.CancelTurn(context.Background(), alice, tu.ID); err != nil {
			t.Fatal(err)
		}
		if got := payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn"); got.Status != hub.TurnCancelled || time.Since(start) > 5*time.Second {
			t.Errorf("turn %+v after %v", got, time.Since(start))
		}
		err := h.answer(th, alice, r.RequestID, result(`{"content":"late"}`))
		if e, ok := err.(*hub.Error); !ok || e.Code != hub.CodeConflict || e.Details["status"] != "cancelled" {
			t.Errorf("answer after the cancel: %v", err)
		}
	})
}

// With no subscriber of the owner (the bridge went away) the agent is told
// at once, not after the timeout; a window watching with scope=all is not
// the owner.
func TestClientRequestNobodyAttached(t *testing.T) {
	h := newDelegatingHarness(t, time.Minute)
	th := h.delegated(allCaps)
	sub, err := h.e.Subscribe(context.Background(), hub.Caller{ClientID: "window", All: true}, th.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sub.Close)
	file := filepath.Join(h.cwd, "d.txt")
	if err := os.WriteFile(file, []byte("on disk"), 0o600); err != nil {
		t.Fatal(err)
	}

	// The editor is away (the user drives the thread from the window): the
	// hub serves the files, and says so for terminals, which live on one side.
	h.start(th, "fs-read "+file)
	if got := payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn"); !strings.Contains(got.Output, "on disk") {
		t.Errorf("fs-read with the editor away: %q", got.Output)
	}
	start := time.Now()
	h.start(th, "terminal true")
	got := payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn")
	if !strings.Contains(got.Output, "is not connected") || time.Since(start) > 10*time.Second {
		t.Errorf("terminal with the editor away, after %v: %q", time.Since(start), got.Output)
	}

	// The owner leaves while a request waits: the agent is told within
	// seconds.
	owner := h.watch(th)
	h.start(th, "fs-read "+file)
	nextRequest(t, owner, "fs/read_text_file")
	owner.Close()
	start = time.Now()
	got = payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn")
	if !strings.Contains(got.Output, "went away") || time.Since(start) > 10*time.Second {
		t.Errorf("after %v: %q", time.Since(start), got.Output)
	}
}

// The delegation is part of the thread: it is on the resource and survives
// a hub restart, so an editor reconnecting to a new hub still gets its
// files.
func TestClientRequestsSurviveRestart(t *testing.T) {
	h := newDelegatingHarness(t, 0)
	th := h.delegated(hub.ClientCapabilities{FS: hub.FSCapabilities{WriteTextFile: true}})
	if got, err := h.e.GetThread(context.Background(), alice, th.ID); err != nil || got.ClientCapabilities == nil || !got.ClientCapabilities.FS.WriteTextFile {
		t.Fatalf("thread %+v, %v: no clientCapabilities", got, err)
	}
	h.close()
	h.openDelegating(0)

	sub := h.watch(th)
	file := filepath.Join(h.cwd, "r.txt")
	h.start(th, "fs-write "+file+" after a restart")
	_, r := nextRequest(t, sub, "fs/write_text_file")
	if err := h.answer(th, alice, r.RequestID, result(`{}`)); err != nil {
		t.Fatal(err)
	}
	if got := payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn"); got.Output != "fs-write ok" {
		t.Errorf("fs-write: %q", got.Output)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("the hub wrote %s (%v): the editor serves it", file, err)
	}

	// A thread of an editor that serves nothing has no clientCapabilities.
	plain := h.delegated(hub.ClientCapabilities{})
	if plain.ClientCapabilities != nil {
		t.Errorf("empty capabilities kept: %+v", plain.ClientCapabilities)
	}
}
