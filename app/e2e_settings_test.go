//go:build linux

package app_test

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestE2ESettings drives the settings API of the real `switchboard serve`:
// a custom agent added with PATCH /v1/settings is listed by GET /v1/agents
// and runs a turn, and a permission timeout set with PATCH applies to the
// next permission — all without a restart, and written to the config file.
func TestE2ESettings(t *testing.T) {
	bins := buildE2E(t, t.TempDir())
	h := newHub(t, bins, hubConfig{
		"permissions": map[string]any{"timeout": "10m"},
		"agents":      map[string]agentConf{},
	})

	fake := fakeAgentConf(t)
	fake.Env["FAKEAGENT_SECRET_NOT_SHOWN"] = "s3cr3t-value"
	var got struct {
		Settings struct {
			Permissions struct{ Timeout string }
			Agents      []struct {
				ID      string
				Command string
				EnvKeys []string
			}
		}
	}
	r := h.call("PATCH", "/v1/settings", map[string]any{
		"agents": map[string]any{"mine": map[string]any{
			"name": "My fake", "command": fake.Command, "args": fake.Args, "env": fake.Env,
		}},
	}, 200, &got)
	if strings.Contains(string(r.body), "s3cr3t-value") {
		t.Fatalf("the answer carries an env value: %s", r.body)
	}
	if len(got.Settings.Agents) != 1 || got.Settings.Agents[0].ID != "mine" || !slices.Contains(got.Settings.Agents[0].EnvKeys, "FAKEAGENT_SECRET_NOT_SHOWN") {
		t.Fatalf("settings agents %+v", got.Settings.Agents)
	}
	if b, _ := os.ReadFile(h.config); !strings.Contains(string(b), "mine:") || !strings.Contains(string(b), "s3cr3t-value") {
		t.Fatalf("the config file lacks the agent:\n%s", b)
	}

	var agents struct {
		Agents []struct{ ID, Name, Status string }
	}
	h.call("GET", "/v1/agents", nil, 200, &agents)
	i := slices.IndexFunc(agents.Agents, func(a struct{ ID, Name, Status string }) bool { return a.ID == "mine" })
	if i < 0 || agents.Agents[i].Status != "available" || agents.Agents[i].Name != "My fake" {
		t.Fatalf("GET /v1/agents right after the PATCH: %+v", agents.Agents)
	}

	th := h.newThread("mine", t.TempDir())
	turn := h.startTurn(th.ID, "echo hello from settings")
	if done := h.waitTurn(th.ID, turn.ID, 30*time.Second); done.Status != "completed" || done.Output != "hello from settings" {
		t.Fatalf("turn on the added agent: %+v", done)
	}

	// The timeout was 10m: a permission that expires within seconds shows
	// the PATCH took effect.
	h.call("PATCH", "/v1/settings", map[string]any{"permissions": map[string]any{"timeout": "1s"}}, 200, &got)
	if got.Settings.Permissions.Timeout != "1s" {
		t.Fatalf("timeout in the answer: %q", got.Settings.Permissions.Timeout)
	}
	turn = h.startTurn(th.ID, "permission")
	p := h.waitPermission(turn.ID, 30*time.Second)
	done := h.waitTurn(th.ID, turn.ID, 30*time.Second)
	if done.Status != "completed" || done.Output != "outcome: selected reject-once" {
		t.Errorf("turn %+v: want the agent told reject-once after the 1s timeout", done)
	}
	if got := h.permission(p.ID); got.Status != "expired" || got.DecidedBy != "timeout" {
		t.Errorf("permission %+v: want expired by timeout", got)
	}

	// An invalid patch: 400 naming the field, nothing changed.
	before, _ := os.ReadFile(h.config)
	r = h.do("PATCH", "/v1/settings", `{"ui":{"theme":"sepia"}}`)
	if r.status != 400 || r.errorCode() != "INVALID_ARGUMENT" || !strings.Contains(string(r.body), `"field":"ui.theme"`) {
		t.Errorf("invalid theme: %s", r)
	}
	if after, _ := os.ReadFile(h.config); string(after) != string(before) {
		t.Errorf("a refused patch changed the file")
	}
}
