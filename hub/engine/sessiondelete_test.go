//go:build unix

package engine_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/engine"
)

// recordedCalls is the methods and session ids the fake agent received,
// from its FAKEAGENT_RECORD file.
func recordedCalls(t *testing.T, record string) []string {
	t.Helper()
	b, err := os.ReadFile(record)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r struct {
			Method string `json:"method"`
			Params struct {
				SessionID string `json:"sessionId"`
			} `json:"params"`
		}
		if json.Unmarshal([]byte(line), &r) == nil && r.Method != "" {
			out = append(out, r.Method+" "+r.Params.SessionID)
		}
	}
	return out
}

// Deleting a thread the hub opened sends session/delete for its agent
// session (and no session/close after it); deleting an imported thread
// never does: that session is the user's own history in the agent's CLI.
func TestDeleteThreadDeletesTheAgentSession(t *testing.T) {
	cwd := t.TempDir()
	record := filepath.Join(t.TempDir(), "record.jsonl")
	seed := seedSessions(t, []map[string]any{{"sessionId": "mine-in-the-cli", "cwd": cwd, "title": "CLI work", "history": [][2]string{{"q", "a"}}}})
	h := newHarness(t, nil, fakeSpec(t, "deleter", "FAKEAGENT_SESSION_CAPS=1", "FAKEAGENT_LOAD_SESSION=1", "FAKEAGENT_RECORD="+record, seed))
	ctx := context.Background()

	th := h.thread("deleter")
	h.run(th, h.watch(th), "echo hi")
	got, err := h.e.GetThread(ctx, alice, th.ID)
	if err != nil || got.AgentSessionID == "" {
		t.Fatalf("thread %+v, %v: want an agent session", got, err)
	}
	if err := h.e.DeleteThread(ctx, alice, th.ID); err != nil {
		t.Fatal(err)
	}
	calls := strings.Join(recordedCalls(t, record), "\n")
	if !strings.Contains(calls, "session/delete "+got.AgentSessionID) {
		t.Fatalf("the agent received:\n%s\nwant session/delete %s", calls, got.AgentSessionID)
	}
	if strings.Contains(calls, "session/close "+got.AgentSessionID) {
		t.Errorf("session/close after session/delete:\n%s", calls)
	}

	imp, _, err := importSession(h.e, ctx, alice, hub.ImportSessionRequest{Agent: "deleter", SessionID: "mine-in-the-cli", Cwd: cwd})
	if err != nil {
		t.Fatal(err)
	}
	h.run(imp, h.watch(imp), "echo more")
	if err := h.e.DeleteThread(ctx, alice, imp.ID); err != nil {
		t.Fatal(err)
	}
	if calls := strings.Join(recordedCalls(t, record), "\n"); strings.Contains(calls, "session/delete mine-in-the-cli") {
		t.Fatalf("an imported session was deleted at the agent:\n%s", calls)
	}
}

// An agent evicted for idleness and an agent stopped at shutdown are each
// sent session/close for their session first, where they advertise it.
func TestSessionCloseOnEvictionAndShutdown(t *testing.T) {
	record := filepath.Join(t.TempDir(), "record.jsonl")
	h := newHarness(t, func(c *engine.Config) { c.AgentIdleTimeout = 200 * time.Millisecond },
		fakeSpec(t, "closer", "FAKEAGENT_SESSION_CAPS=1", "FAKEAGENT_RECORD="+record))
	ctx := context.Background()

	idle := h.thread("closer")
	h.run(idle, h.watch(idle), "echo hi")
	first, _ := h.e.GetThread(ctx, alice, idle.ID)
	waitUntil(t, "session/close of the idle agent's session", func() bool {
		return slices.Contains(recordedCalls(t, record), "session/close "+first.AgentSessionID)
	})

	record = filepath.Join(t.TempDir(), "record2.jsonl")
	h2 := newHarness(t, nil, fakeSpec(t, "closer", "FAKEAGENT_SESSION_CAPS=1", "FAKEAGENT_RECORD="+record))
	busy := h2.thread("closer")
	h2.run(busy, h2.watch(busy), "echo hi")
	second, _ := h2.e.GetThread(ctx, alice, busy.ID)
	if slices.Contains(recordedCalls(t, record), "session/close "+second.AgentSessionID) {
		t.Fatal("session/close before shutdown")
	}
	if err := h2.e.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(recordedCalls(t, record), "session/close "+second.AgentSessionID) {
		t.Fatalf("after shutdown the agent received %v: want session/close %s", recordedCalls(t, record), second.AgentSessionID)
	}
}
