package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadConfigDefaults(t *testing.T) {
	c, err := LoadConfig(filepath.Join(t.TempDir(), "missing.yaml"), false)
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != DefaultListen || c.Permissions.Timeout != 10*time.Minute || c.Limits.MaxAgentProcesses != 8 ||
		c.Limits.AgentIdleTimeout != 30*time.Minute || c.Limits.TurnTimeout != 30*time.Minute || !c.Tray.Enabled || !c.Notifications.Enabled || c.UI.Theme != "system" {
		t.Fatalf("defaults %+v", c)
	}
	if len(c.agents()) != 7 {
		t.Fatalf("catalogue %d agents", len(c.agents()))
	}
	if _, err := LoadConfig(filepath.Join(t.TempDir(), "missing.yaml"), true); err == nil {
		t.Fatal("an explicit --config that does not exist must fail")
	}
}

func TestLoadConfigFile(t *testing.T) {
	p := writeConfig(t, `
listen: 127.0.0.1:9999
allowedOrigins: [http://localhost:5173]
permissions:
  timeout: 90s
limits:
  maxAgentProcesses: 3
  turnTimeout: 1h
context:
  recentTurns: 4
agents:
  claude:
    env: {ANTHROPIC_BASE_URL: http://127.0.0.1:1}
  gemini:
    enabled: false
  mine:
    name: My agent
    command: /opt/my-agent
    args: [--acp]
`)
	c, err := LoadConfig(p, true)
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != "127.0.0.1:9999" || c.Permissions.Timeout != 90*time.Second || c.Limits.MaxAgentProcesses != 3 ||
		c.Limits.TurnTimeout != time.Hour || c.Limits.AgentIdleTimeout != 30*time.Minute || c.Context.RecentTurns != 4 ||
		len(c.AllowedOrigins) != 1 {
		t.Fatalf("config %+v", c)
	}
	ec := c.engineConfig()
	if ec.PermissionTimeout != 90*time.Second || ec.MaxAgentProcesses != 3 {
		t.Fatalf("engine config %+v", ec)
	}
	if env := c.Agents["claude"].Env; env["ANTHROPIC_BASE_URL"] != "http://127.0.0.1:1" {
		t.Fatalf("env names must keep their case: %v", env)
	}
	by := map[string]bool{}
	for _, s := range c.agents() {
		by[s.ID] = s.Disabled
		if s.ID == "mine" && (s.Command.Path != "/opt/my-agent" || s.Name != "My agent") {
			t.Fatalf("custom agent %+v", s)
		}
	}
	if !by["gemini"] || by["claude"] {
		t.Fatalf("enabled flags %v", by)
	}
}

func TestLoadConfigErrors(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"yaml syntax", "listen: [unclosed\n", "line"},
		{"unknown key", "lissten: 127.0.0.1:1\n", "lissten"},
		{"public listen", "listen: 0.0.0.0:8686\n", "allowPublic"},
		{"bad duration", "permissions:\n  timeout: soon\n", "timeout"},
		{"zero processes", "limits:\n  maxAgentProcesses: 0\n", "maxAgentProcesses"},
		{"custom agent without command", "agents:\n  x:\n    name: X\n", "agents.x"},
		{"unknown theme", "ui:\n  theme: blue\n", "ui.theme"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeConfig(t, tt.body)
			_, err := LoadConfig(p, true)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), p) {
				t.Fatalf("got %v, want an error naming %s and %q", err, p, tt.want)
			}
		})
	}
	if c, err := LoadConfig(writeConfig(t, "ui:\n  theme: dark\n"), true); err != nil || c.UI.Theme != "dark" {
		t.Fatalf("ui.theme: %+v %v", c.UI, err)
	}
	if c, err := LoadConfig(writeConfig(t, "listen: 0.0.0.0:8686\nallowPublic: true\n"), true); err != nil || !c.AllowPublic {
		t.Fatalf("allowPublic: %+v %v", c, err)
	}
}

func TestTokenAndDiscoveryFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := ensureDataDir(dir); err != nil {
		t.Fatal(err)
	}
	tok, err := loadOrCreateToken(dir)
	if err != nil || len(tok) != 64 {
		t.Fatalf("token %q %v", tok, err)
	}
	again, _ := loadOrCreateToken(dir)
	if again != tok {
		t.Fatal("token changed on the second start")
	}
	for name, want := range map[string]os.FileMode{".": 0o700, tokenFile: 0o600} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || fi.Mode().Perm() != want {
			t.Fatalf("%s: mode %v %v, want %v", name, fi.Mode().Perm(), err, want)
		}
	}
	if err := writeDiscovery(dir, hub.Discovery{URL: "http://127.0.0.1:1", PID: 42, Version: "v"}); err != nil {
		t.Fatal(err)
	}
	d, err := client.ReadDiscovery(dir)
	if err != nil || d.PID != 42 {
		t.Fatalf("discovery %+v %v", d, err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, discoveryFile))
	if strings.Contains(string(b), tok) {
		t.Fatal("hub.json holds the token")
	}
	if fi, _ := os.Stat(filepath.Join(dir, discoveryFile)); fi.Mode().Perm() != 0o600 {
		t.Fatalf("hub.json mode %v", fi.Mode().Perm())
	}
	os.WriteFile(filepath.Join(dir, tokenFile), []byte("short\n"), 0o600)
	if _, err := loadOrCreateToken(dir); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("damaged token: %v", err)
	}
}
