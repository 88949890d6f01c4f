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

// PATCH /v1/settings agents.<id>.mcpServers and folders.<glob>.mcpServers:
// merged by name into that level, null removes one, the rest of the
// entry (and a whole-entry patch's servers) stay, globs and keys keep
// their case, an empty folder section goes.
func TestSettingsMCPServerLevels(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	writeFile(t, path, "agents:\n  mine:\n    command: my-agent\n    mcpServers:\n      Old: {command: old-mcp}\n      Stay: {command: stay-mcp}\nfolders:\n  ~/Work/**:\n    allowedFolders: [~/Shared]\n")
	cur, err := Load(path, true)
	if err != nil {
		t.Fatal(err)
	}
	s := NewSettings(NewWatcher(path, cur, slog.New(slog.DiscardHandler), func(_, _ Config) {}, nil))
	_, err = s.UpdateSettings(context.Background(), hub.SettingsPatch{
		Agents: map[string]*hub.AgentPatch{
			"mine":   {MCPServers: map[string]*hub.MCPServerPatch{"New": {Command: "new-mcp", Env: map[string]string{"Tok_En": "v"}}, "Old": nil}},
			"claude": {MCPServers: map[string]*hub.MCPServerPatch{"Docs": {Type: "sse", URL: "https://mcp.example/sse", Headers: map[string]string{"X-Key": "h"}}}},
		},
		Folders: map[string]*hub.FolderPatch{
			"~/Work/**":  {MCPServers: map[string]*hub.MCPServerPatch{"F": {Command: "f-mcp"}}},
			"/tmp/Other": {MCPServers: map[string]*hub.MCPServerPatch{"G": {Command: "g-mcp"}}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Load(path, true)
	if err != nil {
		t.Fatal(err)
	}
	mine := c.Agents["mine"]
	if mine.Command != "my-agent" || mine.MCPServers["Old"] != nil || mine.MCPServers["Stay"] == nil || mine.MCPServers["New"].Env["Tok_En"] != "v" {
		t.Errorf("agents.mine: %+v %+v", mine, mine.MCPServers)
	}
	if d := c.Agents["claude"].MCPServers["Docs"]; d == nil || d.Headers["X-Key"] != "h" {
		t.Errorf("agents.claude.mcpServers: %+v", c.Agents["claude"].MCPServers)
	}
	w := c.Folders["~/Work/**"]
	if len(w.AllowedFolders) != 1 || w.MCPServers["F"] == nil || c.Folders["/tmp/Other"].MCPServers["G"] == nil {
		t.Errorf("folders: %+v", c.Folders)
	}

	// A whole-entry patch of the agent (as Settings → Agents sends) keeps
	// its servers; null removes a folder's server, then the folder.
	_, err = s.UpdateSettings(context.Background(), hub.SettingsPatch{
		Agents:  map[string]*hub.AgentPatch{"mine": {Name: "Mine", Command: "my-agent-2"}},
		Folders: map[string]*hub.FolderPatch{"/tmp/Other": {MCPServers: map[string]*hub.MCPServerPatch{"G": nil}}, "~/Work/**": nil},
	})
	if err != nil {
		t.Fatal(err)
	}
	c, _ = Load(path, true)
	if m := c.Agents["mine"]; m.Command != "my-agent-2" || m.MCPServers["Stay"] == nil || m.MCPServers["New"] == nil {
		t.Errorf("a whole-entry patch lost the servers: %+v", m)
	}
	if len(c.Folders) != 0 {
		t.Errorf("folders after removing: %+v", c.Folders)
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), "folders") {
		t.Errorf("an empty folders: stayed:\n%s", data)
	}
	st, _ := s.Settings(context.Background())
	for _, a := range st.Agents {
		if a.ID == "mine" && (len(a.MCPServers) != 2 || a.MCPServers[0].Name != "New" || a.MCPServers[0].EnvKeys[0] != "Tok_En") {
			t.Errorf("settings of mine: %+v", a.MCPServers)
		}
	}
}
