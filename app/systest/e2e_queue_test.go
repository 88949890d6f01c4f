//go:build linux

package systest

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest"
)

// TestE2EQueue (issue 33): through the real `switchboard serve` with the
// fake agent, prompts queued while a turn runs keep their order (after a
// move) across a hub restart, and each reaches the agent once: the fake
// agent records every session/prompt it receives (FAKEAGENT_PROMPTS).
func TestE2EQueue(t *testing.T) {
	bins := buildE2E(t)
	prompts := filepath.Join(t.TempDir(), "prompts.jsonl")
	h := newHub(t, bins, hubConfig{"agents": map[string]agentConf{"fake": fakeAgentConf(t, "FAKEAGENT_PROMPTS="+prompts)}})
	th := h.newThread("fake", t.TempDir())
	running := h.startTurn(th.ID, "permission")
	h.waitPermission(running.ID, 30*time.Second)
	var ids []string
	for _, in := range []string{"echo one", "echo two", "echo three"} {
		var ans struct {
			Queued struct {
				ID       string `json:"id"`
				Position int    `json:"position"`
			} `json:"queued"`
		}
		h.call("POST", "/v1/threads/"+th.ID+"/queue", map[string]string{"input": in}, 201, &ans)
		ids = append(ids, ans.Queued.ID)
	}
	h.call("POST", "/v1/threads/"+th.ID+"/turns", map[string]string{"input": "echo now"}, 409, nil)
	h.call("PATCH", "/v1/threads/"+th.ID+"/queue/"+ids[2], map[string]int{"position": 0}, 200, nil)
	h.call("PATCH", "/v1/threads/"+th.ID+"/queue/"+ids[2], map[string]any{}, 400, nil)

	if code := h.stop(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	h.start()
	want := []string{"permission", "echo three", "echo one", "echo two"}
	var inputs []string
	settled := waitFor(60*time.Second, func() bool {
		turns := h.history(th.ID, false)
		inputs = inputs[:0]
		for _, tu := range turns {
			if tu.Status == "running" {
				return false
			}
			inputs = append(inputs, tu.Input)
		}
		return len(inputs) == len(want) && h.thread(th.ID).Status == "idle"
	})
	if !settled || !slices.Equal(inputs, want) {
		t.Fatalf("turns after the restart %q, want %q", inputs, want)
	}
	var q struct {
		Queue []json.RawMessage `json:"queue"`
	}
	h.call("GET", "/v1/threads/"+th.ID+"/queue", nil, 200, &q)
	if len(q.Queue) != 0 {
		t.Errorf("queue after it was sent: %s", q.Queue)
	}
	if got := receivedPrompts(t, prompts); !slices.Equal(got, want) {
		t.Errorf("the agent received %q, want %q: each prompt once, in order", got, want)
	}
	if code := h.stop(); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// receivedPrompts reads FAKEAGENT_PROMPTS' file: each prompt's last text
// block (the user's message, after any context block), in order.
func receivedPrompts(t *testing.T, file string) []string {
	t.Helper()
	var out []string
	for _, texts := range acptest.PromptTexts(t, file) {
		last := ""
		if len(texts) > 0 {
			last = texts[len(texts)-1]
		}
		out = append(out, last)
	}
	return out
}
