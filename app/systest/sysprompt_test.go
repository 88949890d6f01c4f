//go:build linux

package systest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/fakemodel"
)

// TestE2ESystemPrompt sets instructions through PATCH /v1/settings (what
// Settings → Agents → Instructions and Settings → Folders send) on the real
// `switchboard serve`, then creates threads: the fake agent that advertises
// the system prompt receives exactly the agent's text then the folder's, in
// the mode asked (override when the folder asks for it), and the thread
// says "sent"; an agent that does not advertise it gets no systemPrompt
// and its thread says "not_sent"; an agent that takes only append is
// refused instructions in override mode (409, never sent as append). The
// thread keeps its instructions after Settings change. Bad input is 400
// naming the field.
func TestE2ESystemPrompt(t *testing.T) {
	bins := buildE2E(t)
	recSP, recPlain := filepath.Join(t.TempDir(), "sp.jsonl"), filepath.Join(t.TempDir(), "plain.jsonl")
	h := newHub(t, bins, hubConfig{"agents": map[string]agentConf{
		"sp":     fakeAgentConf(t, "FAKEAGENT_SYSTEM_PROMPT=override", "FAKEAGENT_RECORD="+recSP),
		"append": fakeAgentConf(t, "FAKEAGENT_SYSTEM_PROMPT=append"),
		"plain":  fakeAgentConf(t, "FAKEAGENT_RECORD="+recPlain),
	}})
	dirA, dirB := t.TempDir(), t.TempDir()
	h.call("PATCH", "/v1/settings", map[string]any{
		"agents": map[string]any{
			"sp":     map[string]any{"instructions": map[string]any{"mode": "append", "text": "Answer in French."}},
			"plain":  map[string]any{"instructions": map[string]any{"text": "Answer in French."}},
			"append": map[string]any{"instructions": map[string]any{"mode": "override", "text": "You are terse."}},
		},
		"folders": map[string]any{
			dirA: map[string]any{"instructions": map[string]any{"mode": "append", "text": "This repo uses tabs.\nRun make test."}},
			dirB: map[string]any{"instructions": map[string]any{"mode": "override", "text": "Only review, never edit."}},
		},
	}, 200, nil)
	var st struct {
		Settings struct {
			Agents []struct {
				ID           string
				Instructions *struct{ Mode, Text string }
			}
			Folders []struct {
				Glob         string
				Instructions *struct{ Mode, Text string }
			}
		}
	}
	h.call("GET", "/v1/settings", nil, 200, &st)
	found := false
	for _, a := range st.Settings.Agents {
		found = found || a.ID == "sp"
		if a.ID == "sp" && (a.Instructions == nil || a.Instructions.Text != "Answer in French." || a.Instructions.Mode != "append") {
			t.Errorf("settings: sp's instructions %+v", a.Instructions)
		}
	}
	if !found {
		t.Error("settings: no agent sp")
	}
	if len(st.Settings.Folders) != 2 || st.Settings.Folders[0].Instructions == nil {
		t.Errorf("settings: folders %+v, want two with instructions", st.Settings.Folders)
	}

	type instr struct {
		Mode, Text, Delivery string
		From                 []string
	}
	type thread struct {
		ID           string
		Instructions *instr
	}
	create := func(agent, cwd string) thread {
		var r struct{ Thread thread }
		h.call("POST", "/v1/threads", map[string]any{"agent": agent, "cwd": cwd}, 201, &r)
		return r.Thread
	}
	get := func(id string) thread {
		var r struct{ Thread thread }
		h.call("GET", "/v1/threads/"+id, nil, 200, &r)
		return r.Thread
	}
	run := func(id string) {
		tu := h.startTurn(id, "hello")
		if got := h.waitTurn(id, tu.ID, 60*time.Second); got.Status != "completed" {
			t.Fatalf("thread %s: turn %+v", id, got)
		}
	}
	sentTo := func(rec, cwd string) string { // the systemPrompt of session/new in cwd, raw
		b, err := os.ReadFile(rec)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var r struct {
				Method string
				Params struct {
					Cwd          string
					SystemPrompt json.RawMessage
				}
			}
			if json.Unmarshal([]byte(l), &r) == nil && r.Method == "session/new" && r.Params.Cwd == cwd {
				return string(r.Params.SystemPrompt)
			}
		}
		t.Fatalf("no session/new in %s recorded", cwd)
		return ""
	}

	// Agent then folder, append.
	a := create("sp", dirA)
	want := instr{Mode: "append", Text: "Answer in French.\n\nThis repo uses tabs.\nRun make test.", From: []string{"agent", "folder"}}
	if a.Instructions == nil || a.Instructions.Mode != want.Mode || a.Instructions.Text != want.Text || strings.Join(a.Instructions.From, ",") != "agent,folder" || a.Instructions.Delivery != "" {
		t.Fatalf("new thread's instructions %+v, want %+v before any session", a.Instructions, want)
	}
	run(a.ID)
	if got, w := sentTo(recSP, dirA), `{"content":[{"type":"text","text":"Answer in French.\n\nThis repo uses tabs.\nRun make test."}],"mode":"append"}`; got != w {
		t.Errorf("sp in dirA was sent systemPrompt %s, want %s", got, w)
	}
	if got := get(a.ID).Instructions; got == nil || got.Delivery != "sent" {
		t.Errorf("after its turn, the thread's instructions %+v, want delivery sent", got)
	}

	// A folder asking to override: the combined text in override mode.
	b := create("sp", dirB)
	run(b.ID)
	if got, w := sentTo(recSP, dirB), `{"content":[{"type":"text","text":"Answer in French.\n\nOnly review, never edit."}],"mode":"override"}`; got != w {
		t.Errorf("sp in dirB was sent systemPrompt %s, want %s", got, w)
	}

	// An agent without the capability: nothing sent, and the thread says so.
	c := create("plain", dirA)
	run(c.ID)
	if got := sentTo(recPlain, dirA); got != "" {
		t.Errorf("plain (no systemPrompt capability) was sent systemPrompt %s", got)
	}
	if got := get(c.ID).Instructions; got == nil || got.Delivery != "not_sent" || got.Text != want.Text {
		t.Errorf("plain's thread instructions %+v, want the text with delivery not_sent", got)
	}

	// Override to an agent that takes only append: refused, at creation
	// once its capabilities are known (the probe), with the reason.
	if !waitFor(30*time.Second, func() bool {
		var raw struct{ Agents []map[string]json.RawMessage }
		h.call("GET", "/v1/agents", nil, 200, &raw)
		for _, ag := range raw.Agents {
			if string(ag["id"]) == `"append"` && strings.Contains(string(ag["capabilities"]), "systemPrompt") {
				return true
			}
		}
		return false
	}) {
		t.Fatal("the append agent was never probed")
	}
	r := h.do("POST", "/v1/threads", map[string]any{"agent": "append", "cwd": t.TempDir()})
	if r.status != 409 || !strings.Contains(string(r.body), "INSTRUCTIONS_OVERRIDE_UNSUPPORTED") || !strings.Contains(string(r.body), "append mode") {
		t.Errorf("override for an append-only agent: %s, want 409 INSTRUCTIONS_OVERRIDE_UNSUPPORTED", r)
	}

	// Settings change; the thread keeps what it was created with.
	h.call("PATCH", "/v1/settings", map[string]any{"agents": map[string]any{"sp": map[string]any{"instructions": map[string]any{"text": ""}}}}, 200, nil)
	if got := get(a.ID).Instructions; got == nil || got.Text != want.Text {
		t.Errorf("after removing sp's instructions, the thread's %+v, want those it was created with", got)
	}
	if got := create("sp", t.TempDir()); got.Instructions != nil {
		t.Errorf("a new sp thread outside the folders after removal has instructions %+v", got.Instructions)
	}

	for field, patch := range map[string]map[string]any{
		"agents.sp.instructions.mode": {"agents": map[string]any{"sp": map[string]any{"instructions": map[string]any{"mode": "replace", "text": "x"}}}},
		"instructions.text":           {"folders": map[string]any{dirA: map[string]any{"instructions": map[string]any{"text": strings.Repeat("x", 33<<10)}}}},
	} {
		r := h.do("PATCH", "/v1/settings", patch)
		if r.status != 400 || !strings.Contains(string(r.body), field) {
			t.Errorf("bad instructions: %s, want 400 naming %s", r, field)
		}
	}
}

// TestE2ESystemPromptClaude runs Claude Code through claude-agent-acp
// (from .tools, offline against the fake model), which advertises the
// system prompt in both modes: the agent's instructions set in Settings
// reach the model's system prompt — appended to Claude Code's own, or in
// place of it in override mode — and the thread says they were sent.
func TestE2ESystemPromptClaude(t *testing.T) {
	bins := buildE2E(t)
	claude, model := claudeOffline(t)
	h := newHub(t, bins, hubConfig{"agents": map[string]agentConf{"claude-offline": claude}})
	const slow = 120 * time.Second
	// systemOf is the system prompt of the last main model request.
	systemOf := func() string {
		reqs := model.ModelRequests(false)
		if len(reqs) == 0 {
			t.Fatal("the model got no request")
		}
		var body struct{ System json.RawMessage }
		if err := json.Unmarshal(reqs[len(reqs)-1].Body, &body); err != nil {
			t.Fatal(err)
		}
		return string(body.System)
	}
	for _, tt := range []struct {
		mode, marker string
		ownKept      bool
	}{{"append", "SB-APPEND-MARKER", true}, {"override", "SB-OVERRIDE-MARKER", false}} {
		h.call("PATCH", "/v1/settings", map[string]any{"agents": map[string]any{"claude-offline": map[string]any{
			"instructions": map[string]any{"mode": tt.mode, "text": "Always answer in French. " + tt.marker},
		}}}, 200, nil)
		th := h.newThread("claude-offline", t.TempDir())
		model.Push(fakemodel.Text("D'accord."))
		tu := h.startTurn(th.ID, "Say hello.")
		if got := h.waitTurn(th.ID, tu.ID, slow); got.Status != "completed" {
			t.Fatalf("%s: turn %+v", tt.mode, got)
		}
		sys := systemOf()
		if !strings.Contains(sys, tt.marker) {
			t.Errorf("%s: the model's system prompt lacks the instructions: %.400s", tt.mode, sys)
		}
		if own := strings.Contains(sys, "Claude Code"); own != tt.ownKept {
			t.Errorf("%s: Claude Code's own system prompt kept %v, want %v: %.400s", tt.mode, own, tt.ownKept, sys)
		}
		var r struct {
			Thread struct {
				Instructions *struct{ Mode, Delivery string }
			}
		}
		h.call("GET", "/v1/threads/"+th.ID, nil, 200, &r)
		if in := r.Thread.Instructions; in == nil || in.Mode != tt.mode || in.Delivery != "sent" {
			t.Errorf("%s: the thread's instructions %+v, want sent", tt.mode, in)
		}
	}
}
