package config

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub/engine"
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
	c, err := Load(filepath.Join(t.TempDir(), "missing.yaml"), false)
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != DefaultListen || c.Permissions.Timeout != 10*time.Minute || c.Limits.MaxAgentProcesses != 8 ||
		c.Limits.AgentIdleTimeout != 30*time.Minute || c.Limits.TurnTimeout != 30*time.Minute || !c.Tray.Enabled || !c.Notifications.Enabled || c.UI.Theme != "system" {
		t.Fatalf("defaults %+v", c)
	}
	if l := c.Limits; l.AgentRequests != 4 || l.PendingPermissionsPerTurn != 32 || l.StreamsPerClient != 16 || l.LiveEventBytes != 1<<20 {
		t.Fatalf("limits %+v", l)
	}
	if len(c.Catalogue()) != 7 {
		t.Fatalf("catalogue %d agents", len(c.Catalogue()))
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.yaml"), true); err == nil {
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
  agentRequests: 2
  pendingPermissionsPerTurn: 5
  streamsPerClient: 3
  liveEventBytes: 65536
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
	c, err := Load(p, true)
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != "127.0.0.1:9999" || c.Permissions.Timeout != 90*time.Second || c.Limits.MaxAgentProcesses != 3 ||
		c.Limits.TurnTimeout != time.Hour || c.Limits.AgentIdleTimeout != 30*time.Minute || c.Context.RecentTurns != 4 ||
		len(c.AllowedOrigins) != 1 {
		t.Fatalf("config %+v", c)
	}
	ec := c.EngineConfig()
	if ec.PermissionTimeout != 90*time.Second || ec.MaxAgentProcesses != 3 || ec.AgentRequests != 2 || ec.PendingPermissionsPerTurn != 5 {
		t.Fatalf("engine config %+v", ec)
	}
	if c.Limits.StreamsPerClient != 3 || c.Limits.LiveEventBytes != 65536 {
		t.Fatalf("limits %+v", c.Limits)
	}
	if env := c.Agents["claude"].Env; env["ANTHROPIC_BASE_URL"] != "http://127.0.0.1:1" {
		t.Fatalf("env names must keep their case: %v", env)
	}
	by := map[string]bool{}
	for _, s := range c.Catalogue() {
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
		{"zero agent requests", "limits:\n  agentRequests: 0\n", "limits.agentRequests"},
		{"zero pending permissions", "limits:\n  pendingPermissionsPerTurn: 0\n", "limits.pendingPermissionsPerTurn"},
		{"zero streams", "limits:\n  streamsPerClient: 0\n", "limits.streamsPerClient"},
		{"tiny live events", "limits:\n  liveEventBytes: 100\n", "limits.liveEventBytes"},
		{"custom agent without command", "agents:\n  x:\n    name: X\n", "agents.x"},
		{"unknown theme", "ui:\n  theme: blue\n", "ui.theme"},
		{"negative turn idle timeout", "limits:\n  turnIdleTimeout: -1s\n", "limits.turnIdleTimeout"},
		{"compactAt too low", "context:\n  compactAt: 0.3\n", "context.compactAt"},
		{"compactAt too high", "context:\n  compactAt: 0.99\n", "context.compactAt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeConfig(t, tt.body)
			_, err := Load(p, true)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), p) {
				t.Fatalf("got %v, want an error naming %s and %q", err, p, tt.want)
			}
		})
	}
	if c, err := Load(writeConfig(t, "limits:\n  turnIdleTimeout: 0\ncontext:\n  compactAt: 0.8\n"), true); err != nil || c.Limits.TurnIdleTimeout != 0 || c.Context.CompactAt != 0.8 {
		t.Fatalf("turnIdleTimeout 0 (off) and compactAt 0.8: %+v %+v %v", c.Limits, c.Context, err)
	}
	if c, err := Load(writeConfig(t, ""), true); err != nil || c.Limits.TurnIdleTimeout != 5*time.Minute || c.Context.CompactAt != 0 {
		t.Fatalf("defaults: turnIdleTimeout %v compactAt %v %v", c.Limits.TurnIdleTimeout, c.Context.CompactAt, err)
	}
	if c, err := Load(writeConfig(t, "ui:\n  theme: dark\n"), true); err != nil || c.UI.Theme != "dark" {
		t.Fatalf("ui.theme: %+v %v", c.UI, err)
	}
	if c, err := Load(writeConfig(t, "listen: 0.0.0.0:8686\nallowPublic: true\n"), true); err != nil || !c.AllowPublic {
		t.Fatalf("allowPublic: %+v %v", c, err)
	}
}

// folders.<glob>.allowedFolders: globs and folders as written (case, dots),
// ~ expanded for the engine, unknown keys and relative paths refused;
// terminals.inheritEnv.
func TestLoadConfigFolders(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	body := "folders:\n" +
		"  \"~/src/github.com/Me/*\":\n    allowedFolders: [~/Shared.d, /opt/Lib]\n" +
		"  /srv/**:\n    allowedFolders: []\n" +
		"terminals:\n  inheritEnv: [SSH_AUTH_SOCK, MY_*]\n"
	c, err := Load(writeConfig(t, body), true)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Folders["~/src/github.com/Me/*"].AllowedFolders; len(got) != 2 || got[0] != "~/Shared.d" {
		t.Fatalf("folders %+v", c.Folders)
	}
	if got := c.Folders["/srv/**"].AllowedFolders; got == nil || len(got) != 0 {
		t.Fatalf("an empty list must stay set: %+v", c.Folders)
	}
	ec := c.EngineConfig()
	want := []engine.FolderRule{
		{Glob: home + "/src/github.com/Me/*", AllowedFolders: []string{home + "/Shared.d", "/opt/Lib"}},
		{Glob: "/srv/**", AllowedFolders: []string{}},
	}
	sort.Slice(want, func(i, j int) bool { return want[i].Glob < want[j].Glob })
	if !reflect.DeepEqual(ec.Folders, want) {
		t.Fatalf("engine folders %+v, want %+v", ec.Folders, want)
	}
	if !reflect.DeepEqual(ec.TerminalInheritEnv, []string{"SSH_AUTH_SOCK", "MY_*"}) {
		t.Fatalf("inheritEnv %v", ec.TerminalInheritEnv)
	}

	for _, tt := range []struct{ name, body, want string }{
		{"relative glob", "folders:\n  work/*:\n    allowedFolders: [/x]\n", "work/*"},
		{"bad glob", "folders:\n  /a/[b:\n    allowedFolders: [/x]\n", "/a/[b"},
		{"relative folder", "folders:\n  /a:\n    allowedFolders: [rel]\n", "allowedFolders"},
		{"unknown folder key", "folders:\n  /a:\n    allowedFolder: [/x]\n", "allowedFolder"},
		{"not a map", "folders:\n  /a: [/x]\n", "folders"},
		{"bad env name", "terminals:\n  inheritEnv: [\"A=B\"]\n", "inheritEnv"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := writeConfig(t, tt.body)
			if _, err := Load(p, true); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error naming %q", err, tt.want)
			}
		})
	}
}

func TestLoadMCPServers(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "config.yaml")
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`
mcpServers:
  GitHub:
    command: gh-mcp
    env: {GITHUB_Token: abc}
  web: {type: http, url: "https://mcp.example", headers: {X-Api-Key: k}}
agents:
  claude:
    mcpServers:
      web: null
folders:
  "/work/**":
    mcpServers:
      Local: {command: local-mcp, args: [--stdio]}
`)
	c, err := Load(p, true)
	if err != nil {
		t.Fatal(err)
	}
	if g := c.MCPServers["GitHub"]; g == nil || g.Env["GITHUB_Token"] != "abc" {
		t.Errorf("top level GitHub: %+v (names and env keys keep their case)", g)
	}
	if w := c.MCPServers["web"]; w == nil || w.Headers["X-Api-Key"] != "k" || w.Transport() != "http" {
		t.Errorf("web: %+v", w)
	}
	if s, ok := c.Agents["claude"].MCPServers["web"]; !ok || s != nil {
		t.Errorf("agents.claude.mcpServers.web should be a null entry, got %v %v", s, ok)
	}
	if l := c.Folders["/work/**"].MCPServers["Local"]; l == nil || l.Args[0] != "--stdio" {
		t.Errorf("folder Local: %+v", l)
	}
	var claudeSpec *acp.AgentSpec
	for _, s := range c.Catalogue() {
		if s.ID == "claude" {
			claudeSpec = &s
		}
	}
	if claudeSpec == nil || claudeSpec.MCPServers == nil {
		t.Fatalf("claude's spec lacks its mcpServers")
	}
	if got := c.EngineConfig().MCPServers; len(got) != 2 {
		t.Errorf("engine config mcpServers: %v", got)
	}

	for name, bad := range map[string]string{
		"stdio without command": "mcpServers: {x: {args: [a]}}",
		"bad type":              "mcpServers: {x: {type: ws, url: 'https://x'}}",
		"folder bad url":        "folders: {'/w/**': {mcpServers: {x: {type: sse, url: 'nope'}}}}",
		"agent bad":             "agents: {claude: {mcpServers: {x: {type: http}}}}",
		"not a map":             "mcpServers: [a, b]",
	} {
		write(bad)
		if _, err := Load(p, true); err == nil || !strings.Contains(err.Error(), "mcpServers") {
			t.Errorf("%s: err %v, want one naming mcpServers", name, err)
		}
	}
}

// registry.url defaults to the ACP registry's public index (ADR 0020);
// "" in the file turns it off, another http(s) URL replaces it.
func TestLoadRegistryURL(t *testing.T) {
	dir := t.TempDir()
	c, err := Load(filepath.Join(dir, "none.yaml"), false)
	if err != nil || c.Registry.URL != acp.PublicRegistryURL || acp.PublicRegistryURL != "https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json" {
		t.Fatalf("the default: %q %v", c.Registry.URL, err)
	}
	for body, want := range map[string]string{
		"registry:\n  url: \"\"\n":                      "",
		"registry:\n  url: http://127.0.0.1:9/r.json\n": "http://127.0.0.1:9/r.json",
		"listen: 127.0.0.1:0\n":                         acp.PublicRegistryURL,
	} {
		p := filepath.Join(dir, "c.yaml")
		writeFile(t, p, body)
		if c, err := Load(p, true); err != nil || c.Registry.URL != want {
			t.Errorf("%q: %q %v, want %q", body, c.Registry.URL, err, want)
		}
	}
	writeFile(t, filepath.Join(dir, "bad.yaml"), "registry:\n  url: file:///etc/passwd\n")
	if _, err := Load(filepath.Join(dir, "bad.yaml"), true); err == nil || !strings.Contains(err.Error(), "registry.url") {
		t.Errorf("a file: URL: %v", err)
	}
}
