//go:build linux

package systest

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest"
)

// TestE2EQueueMove, through the real binary with two fake agents: a
// thread limited with a reset time moves its queue to a new thread with
// the other agent (POST …/queue/move, ADR 0052). The other agent gets the
// first thread's context block, then the queued prompts, each once, in
// order; the first agent gets none of them; the first thread's queue is
// empty and the two threads are linked both ways, also after a restart.
func TestE2EQueueMove(t *testing.T) {
	bins := buildE2E(t)
	dir := t.TempDir()
	promptsA, promptsB := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	h := newHub(t, bins, hubConfig{"agents": map[string]agentConf{
		"fake":  fakeAgentConf(t, "FAKEAGENT_PROMPTS="+promptsA),
		"other": fakeAgentConf(t, "FAKEAGENT_PROMPTS="+promptsB),
	}})
	th := h.newThread("fake", t.TempDir())
	for _, in := range []string{"echo the parser is in lexer.go", "rate-limit-error 600"} {
		tu := h.startTurn(th.ID, in)
		h.waitTurn(th.ID, tu.ID, 30*time.Second)
	}
	for _, in := range []string{"echo one", "echo two"} {
		h.call("POST", "/v1/threads/"+th.ID+"/queue", map[string]string{"input": in}, 201, nil)
	}
	type linked struct {
		ID            string  `json:"id"`
		Agent         string  `json:"agent"`
		Cwd           string  `json:"cwd"`
		Queued        int     `json:"queued"`
		LimitedUntil  *string `json:"limitedUntil"`
		ContinuedFrom string  `json:"continuedFrom"`
		ContinuedIn   string  `json:"continuedIn"`
	}
	get := func(id string) linked {
		t.Helper()
		var r struct{ Thread linked }
		h.call("GET", "/v1/threads/"+id, nil, 200, &r)
		return r.Thread
	}
	if got := get(th.ID); got.LimitedUntil == nil || got.Queued != 2 {
		t.Fatalf("the limited thread %+v", got)
	}
	h.call("POST", "/v1/threads/"+th.ID+"/queue/move", map[string]string{"agentId": "fake"}, 400, nil)
	h.call("POST", "/v1/threads/"+th.ID+"/queue/move", map[string]string{}, 400, nil)
	var moved struct{ Thread linked }
	h.call("POST", "/v1/threads/"+th.ID+"/queue/move", map[string]string{"agentId": "other"}, 201, &moved)
	nt := moved.Thread
	if nt.Agent != "other" || nt.Cwd != th.Cwd || nt.ContinuedFrom != th.ID {
		t.Fatalf("the new thread %+v", nt)
	}
	want := []string{"echo one", "echo two"}
	var inputs []string
	settled := waitFor(60*time.Second, func() bool {
		inputs = inputs[:0]
		for _, tu := range h.history(nt.ID, false) {
			if tu.Status != "completed" {
				return false
			}
			inputs = append(inputs, tu.Input)
		}
		return len(inputs) == len(want) && h.thread(nt.ID).Status == "idle"
	})
	if !settled || !slices.Equal(inputs, want) {
		t.Fatalf("the new thread's turns %q, want %q", inputs, want)
	}
	if got := receivedPrompts(t, promptsB); !slices.Equal(got, want) {
		t.Errorf("the other agent received %q, want %q: each prompt once, in order", got, want)
	}
	if first := acptest.PromptTexts(t, promptsB)[0]; len(first) != 2 || !strings.Contains(first[0], "the parser is in lexer.go") || first[1] != "echo one" {
		t.Errorf("the other agent's first prompt %q: want the first thread's context block, then the prompt", first)
	}
	if got := receivedPrompts(t, promptsA); !slices.Equal(got, []string{"echo the parser is in lexer.go", "rate-limit-error 600"}) {
		t.Errorf("the first agent received %q: none of the moved prompts", got)
	}
	h.call("POST", "/v1/threads/"+th.ID+"/queue/move", map[string]string{"agentId": "other"}, 409, nil)

	if code := h.stop(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	h.start()
	var q struct {
		Queue []json.RawMessage `json:"queue"`
	}
	h.call("GET", "/v1/threads/"+th.ID+"/queue", nil, 200, &q)
	if old := get(th.ID); len(q.Queue) != 0 || old.Queued != 0 || old.ContinuedIn != nt.ID {
		t.Errorf("the first thread after a restart %+v, queue %s", old, q.Queue)
	}
	if got := get(nt.ID); got.ContinuedFrom != th.ID {
		t.Errorf("the new thread after a restart %+v", got)
	}
	if got := receivedPrompts(t, promptsB); !slices.Equal(got, want) {
		t.Errorf("after the restart the other agent received %q, want %q", got, want)
	}
	if code := h.stop(); code != 0 {
		t.Errorf("exit %d", code)
	}
}
