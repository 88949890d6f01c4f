//go:build linux

package systest

import (
	"os"
	"path/filepath"
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
	bins := buildE2E(t)
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

// TestE2ETrayAutostart: Settings → "Start the tray at login" through the
// real `switchboard serve`: PATCH tray.autostart true writes the user's
// autostart entry (starting the switchboard-tray beside the binary, on the
// hub's data dir) before it answers, and the key in the config file; false
// removes the entry. A restart with the key on writes a missing entry again.
func TestE2ETrayAutostart(t *testing.T) {
	bins := buildE2E(t)
	// A switchboard-tray beside switchboard, as in build/bin or /usr/bin.
	binDir := t.TempDir()
	bins.switchboard = binIn(t, bins.switchboard, binDir)
	tray := filepath.Join(binDir, "switchboard-tray")
	if err := os.WriteFile(tray, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h := prepareHub(t, bins, hubConfig{})
	xdg := t.TempDir()
	h.env = []string{"XDG_CONFIG_HOME=" + xdg}
	h.start()
	entry := filepath.Join(xdg, "autostart", "switchboard-tray.desktop")

	var got struct {
		Settings struct{ Tray struct{ Autostart bool } }
	}
	h.call("GET", "/v1/settings", nil, 200, &got)
	if got.Settings.Tray.Autostart {
		t.Fatal("tray.autostart is on by default")
	}
	if _, err := os.Stat(entry); !os.IsNotExist(err) {
		t.Fatalf("an autostart entry exists before the setting: %v", err)
	}

	h.call("PATCH", "/v1/settings", map[string]any{"tray": map[string]any{"autostart": true}}, 200, &got)
	if !got.Settings.Tray.Autostart {
		t.Fatal("the answer says autostart is off")
	}
	b, err := os.ReadFile(entry)
	if err != nil {
		t.Fatalf("no autostart entry after the PATCH: %v", err)
	}
	wantExec := "\nExec=" + tray + " --data-dir " + h.dataDir + "\n"
	if strings.ContainsAny(h.dataDir, " \"$\\") {
		t.Fatalf("test data dir %q needs quoting", h.dataDir)
	}
	if !strings.Contains(string(b), wantExec) || !strings.Contains(string(b), "\nX-Switchboard-DataDir="+h.dataDir+"\n") {
		t.Fatalf("autostart entry:\n%s\nwant %q", b, wantExec)
	}
	if c, _ := os.ReadFile(h.config); !strings.Contains(string(c), "autostart: true") {
		t.Fatalf("the config file lacks tray.autostart:\n%s", c)
	}

	// A restart with the key on puts back an entry the user deleted.
	if err := os.Remove(entry); err != nil {
		t.Fatal(err)
	}
	if code := h.stop(); code != 0 {
		t.Fatalf("hub exited %d", code)
	}
	h.start()
	if _, err := os.Stat(entry); err != nil {
		t.Fatalf("no autostart entry after a restart with tray.autostart on: %v", err)
	}

	h.call("PATCH", "/v1/settings", map[string]any{"tray": map[string]any{"autostart": false}}, 200, &got)
	if got.Settings.Tray.Autostart {
		t.Fatal("the answer says autostart is on")
	}
	if _, err := os.Stat(entry); !os.IsNotExist(err) {
		t.Fatalf("the autostart entry is still there after turning it off: %v", err)
	}
}
