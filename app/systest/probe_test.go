//go:build linux

package systest

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestE2EAgentProbe adds custom agents through PATCH /v1/settings (what
// Settings → Agents → Add agent sends) to the real `switchboard serve`: each
// is probed at once, with no thread (ADR 0047), so GET /v1/agents lists its
// capabilities and sign-in methods, and agents_changed {reason: "probe"}
// says so; a program that is no ACP agent gets probeError, with the end of
// its stderr.
func TestE2EAgentProbe(t *testing.T) {
	bins := buildE2E(t)
	h := newHub(t, bins, hubConfig{})
	type agent struct {
		ID           string
		Capabilities json.RawMessage
		AuthMethods  []json.RawMessage
		ProbeError   *struct{ Message, Stderr string }
	}
	get := func(id string) agent {
		var r struct{ Agents []agent }
		h.call("GET", "/v1/agents", nil, 200, &r)
		for _, a := range r.Agents {
			if a.ID == id {
				return a
			}
		}
		return agent{}
	}
	events := h.mustSSE("GET", "/v1/events?scope=all", nil)

	fake := fakeAgentConf(t, "FAKEAGENT_AUTH_REQUIRED=1", "FAKEAGENT_MCP_CAPS=http")
	h.call("PATCH", "/v1/settings", map[string]any{"agents": map[string]any{"mine": map[string]any{
		"name": "Mine", "command": fake.Command, "args": fake.Args, "env": fake.Env,
	}}}, 200, nil)
	events.until(30*time.Second, func(m sseMsg) bool {
		return m.event == "agents_changed" && strings.Contains(m.data, `"probe"`) && strings.Contains(m.data, `"mine"`)
	})
	a := get("mine")
	if !strings.Contains(string(a.Capabilities), `"logout":{}`) || !strings.Contains(string(a.Capabilities), `"http":true`) || len(a.AuthMethods) == 0 {
		t.Errorf("mine after its probe: capabilities %s, auth methods %d: want its initialize answer", a.Capabilities, len(a.AuthMethods))
	}
	if a.ProbeError != nil {
		t.Errorf("mine's probe succeeded but says %+v", a.ProbeError)
	}
	// No process of the probe stays. The hub's own probes of the agents
	// it found at start (two at a time, each up to 15 s: a real agent on
	// PATH) may still be ending, so this waits for them too.
	if !waitFor(40*time.Second, func() bool { return len(childrenOf(h.pid())) == 0 }) {
		t.Errorf("agent processes %v left after the probe", childrenOf(h.pid()))
	}

	h.call("PATCH", "/v1/settings", map[string]any{"agents": map[string]any{"broken": map[string]any{
		"name": "Broken", "command": "/bin/sh", "args": []string{"-c", "echo 'broken: no API key in BROKEN_KEY' >&2; exit 3"},
	}}}, 200, nil)
	events.until(30*time.Second, func(m sseMsg) bool {
		return m.event == "agents_changed" && strings.Contains(m.data, `"broken"`)
	})
	b := get("broken")
	if b.ProbeError == nil || b.ProbeError.Message != "it exited with code 3 before answering." || b.ProbeError.Stderr != "broken: no API key in BROKEN_KEY" {
		t.Fatalf("broken's probe: %+v, want probeError with the exit and the stderr tail", b.ProbeError)
	}
	if len(b.Capabilities) != 0 {
		t.Errorf("broken has capabilities %s", b.Capabilities)
	}
}
