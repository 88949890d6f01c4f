//go:build unix

package engine_test

import (
	"context"
	"testing"
	"time"
)

// waitUntil checks cond every 10ms until it holds, and fails the test with
// what after 20s: a wait on state, never a fixed sleep.
func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(20 * time.Second)
	for !cond() {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// agentPIDs are the agent processes recorded for thread id: an agent's
// record is forgotten once its process has exited.
func (h *harness) agentPIDs(threadID string) []int {
	h.t.Helper()
	ps, err := h.db.AgentProcesses(context.Background())
	if err != nil {
		h.t.Fatal(err)
	}
	var out []int
	for _, p := range ps {
		if p.ThreadID == threadID {
			out = append(out, p.PID)
		}
	}
	return out
}
