//go:build linux

package systest

import (
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest"
)

// TestE2EHostQueue: the queue of a host's thread (<id>@box) over real
// OpenSSH (the sshHost harness) lives on box and is reached through the
// link (hub/client.Remote, issue 33): a limited thread's prompts are
// queued, listed, reordered and removed here under local ids, then moved
// to a new thread with box's other agent (ADR 0052), which box creates
// and runs: the other agent receives the first thread's context block,
// then the prompts once, in order, and the copies here are linked both
// ways.
func TestE2EHostQueue(t *testing.T) {
	s, h := connectedBox(t)

	fake, project := s.fakeAgentFiles(t)
	// Two agents of box, each recording the prompts it receives.
	recording := func(name, prompts string) map[string]any {
		env := maps.Clone(fake["env"].(map[string]string))
		env["FAKEAGENT_PROMPTS"] = prompts
		return map[string]any{"name": name, "command": fake["command"], "args": fake["args"], "env": env}
	}
	promptsOther := filepath.Join(s.home, "prompts-other.jsonl")
	h.call("PATCH", "/v1/hosts/box/settings", map[string]any{"agents": map[string]any{
		"fake":  recording("Fake on box", filepath.Join(s.home, "prompts-fake.jsonl")),
		"other": recording("Other on box", promptsOther),
	}}, 200, nil)

	var th hostThread
	if !waitFor(30*time.Second, func() bool {
		var created struct{ Thread hostThread }
		r := h.do("POST", "/v1/threads", map[string]string{"agent": "fake", "cwd": project, "host": "box"})
		if r.status != 201 {
			return false
		}
		r.decode(t, &created)
		th = created.Thread
		return true
	}) {
		t.Fatal("no thread on box")
	}
	if !strings.HasSuffix(th.ID, "@box") {
		t.Fatalf("box's thread here %+v", th)
	}
	for _, in := range []string{"echo the parser is in lexer.go", "rate-limit-error 600"} {
		turn := h.startTurn(th.ID, in)
		h.waitTurn(th.ID, turn.ID, 60*time.Second)
	}

	type queued struct {
		ID       string `json:"id"`
		ThreadID string `json:"threadId"`
		Position int    `json:"position"`
		Input    string `json:"input"`
	}
	var ids []string
	for _, in := range []string{"echo one", "echo two", "echo three"} {
		var ans struct{ Queued queued }
		h.call("POST", "/v1/threads/"+th.ID+"/queue", map[string]string{"input": in}, 201, &ans)
		if !strings.HasSuffix(ans.Queued.ID, "@box") || ans.Queued.ThreadID != th.ID {
			t.Fatalf("a prompt queued on box, here: %+v", ans.Queued)
		}
		ids = append(ids, ans.Queued.ID)
	}
	h.call("PATCH", "/v1/threads/"+th.ID+"/queue/"+ids[2], map[string]int{"position": 0}, 200, nil)
	h.call("DELETE", "/v1/threads/"+th.ID+"/queue/"+ids[1], nil, 204, nil)
	var list struct{ Queue []queued }
	h.call("GET", "/v1/threads/"+th.ID+"/queue", nil, 200, &list)
	var inputs []string
	for _, q := range list.Queue {
		inputs = append(inputs, q.Input)
	}
	want := []string{"echo three", "echo one"}
	if !slices.Equal(inputs, want) {
		t.Fatalf("box's queue here %q, want %q", inputs, want)
	}
	if got := h.history(th.ID, false); len(got) != 2 {
		t.Fatalf("the limited thread sent a queued prompt: %d turns", len(got))
	}

	var moved struct {
		Thread struct {
			ID            string `json:"id"`
			Agent         string `json:"agent"`
			Host          string `json:"host"`
			ContinuedFrom string `json:"continuedFrom"`
		}
	}
	h.call("POST", "/v1/threads/"+th.ID+"/queue/move", map[string]string{"agentId": "other"}, 201, &moved)
	nt := moved.Thread
	if !strings.HasSuffix(nt.ID, "@box") || nt.Host != "box" || nt.Agent != "other" || nt.ContinuedFrom != th.ID {
		t.Fatalf("the new thread here %+v, want box's, continued from %s", nt, th.ID)
	}
	if !waitFor(30*time.Second, func() bool { return h.do("GET", "/v1/threads/"+nt.ID, nil).status == 200 }) {
		t.Fatalf("box's new thread was never copied here")
	}
	var sent []string
	if !waitFor(60*time.Second, func() bool {
		sent = sent[:0]
		for _, tu := range h.history(nt.ID, false) {
			if tu.Status != "completed" {
				return false
			}
			sent = append(sent, tu.Input)
		}
		return len(sent) == len(want)
	}) || !slices.Equal(sent, want) {
		t.Fatalf("the new thread's turns here %q, want %q", sent, want)
	}
	if got := receivedPrompts(t, promptsOther); !slices.Equal(got, want) {
		t.Errorf("box's other agent received %q, want %q: each once, in order", got, want)
	}
	if first := acptest.PromptTexts(t, promptsOther)[0]; len(first) != 2 || !strings.Contains(first[0], "the parser is in lexer.go") {
		t.Errorf("box's other agent's first prompt %q: want the first thread's context block first", first)
	}
	var old struct {
		Thread struct {
			Queued      int    `json:"queued"`
			ContinuedIn string `json:"continuedIn"`
		}
	}
	if !waitFor(30*time.Second, func() bool {
		h.call("GET", "/v1/threads/"+th.ID, nil, 200, &old)
		return old.Thread.ContinuedIn == nt.ID
	}) || old.Thread.Queued != 0 {
		t.Errorf("the first thread's copy %+v, want linked to %s with no queue", old.Thread, nt.ID)
	}
	var q struct{ Queue []json.RawMessage }
	h.call("GET", "/v1/threads/"+th.ID+"/queue", nil, 200, &q)
	if len(q.Queue) != 0 {
		t.Errorf("the first thread's queue on box: %s", q.Queue)
	}
}
