package config

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// PATCH /v1/settings mcpServers: a server added keeps its name's and its
// env keys' case, the settings show names but never values, null removes
// one, an invalid one is refused with nothing written.
func TestSettingsMCPServers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	writeFile(t, path, "mcpServers:\n  Keep: {command: keep-mcp}\n  Drop: {command: drop-mcp}\n")
	cur, err := Load(path, true)
	if err != nil {
		t.Fatal(err)
	}
	s := NewSettings(NewWatcher(path, cur, slog.New(slog.DiscardHandler), func(_, _ Config) {}, nil))
	st, err := s.UpdateSettings(context.Background(), hub.SettingsPatch{MCPServers: map[string]*hub.MCPServerPatch{
		"GitHub": {Command: "gh-mcp", Args: []string{"stdio"}, Env: map[string]string{"GITHUB_Token": "s3cret"}},
		"Docs":   {Type: "http", URL: "https://mcp.example/docs", Headers: map[string]string{"X-Api-Key": "k3y"}},
		"Drop":   nil,
	}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range st.MCPServers {
		names = append(names, m.Name)
	}
	if strings.Join(names, ",") != "Docs,GitHub,Keep" {
		t.Errorf("servers %v", names)
	}
	if st.MCPServers[1].EnvKeys[0] != "GITHUB_Token" || st.MCPServers[0].HeaderKeys[0] != "X-Api-Key" || st.MCPServers[0].URL != "https://mcp.example/docs" {
		t.Errorf("settings %+v", st.MCPServers)
	}
	data, _ := os.ReadFile(path)
	for _, want := range []string{"GITHUB_Token: s3cret", "X-Api-Key: k3y", "Keep:"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the file lacks %q:\n%s", want, data)
		}
	}
	if strings.Contains(string(data), "drop-mcp") {
		t.Errorf("Drop is still in the file:\n%s", data)
	}
	c, err := Load(path, true)
	if err != nil || c.MCPServers["GitHub"].Env["GITHUB_Token"] != "s3cret" {
		t.Fatalf("reloaded: %v %+v", err, c.MCPServers)
	}

	if _, err := s.UpdateSettings(context.Background(), hub.SettingsPatch{MCPServers: map[string]*hub.MCPServerPatch{
		"bad": {Type: "http", URL: "file:///etc/passwd"},
	}}); hub.ErrorCode(err) != hub.CodeInvalidArgument || !strings.Contains(err.Error(), "mcpServers.bad") {
		t.Fatalf("an invalid server: %v", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(data) {
		t.Errorf("a refused patch changed the file:\n%s", after)
	}
}
