//go:build linux

package systest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// e2eSettingsMCP: PATCH /v1/settings edits agents.<id>.mcpServers and
// folders.<glob>.mcpServers by name (null removes one, the others stay,
// env and header keys keep their case, the agent's entry is otherwise
// untouched), GET /v1/settings shows them without values, and the next
// session/new receives the merged result.
func e2eSettingsMCP(t *testing.T, bins e2eBins) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(filepath.Join(work, "proj"), 0o700); err != nil {
		t.Fatal(err)
	}
	rec := func(n string) string { return filepath.Join(dir, n+".jsonl") }
	c := fakeAgentConf(t, "FAKEAGENT_RECORD="+rec("first"))
	h := newHub(t, bins, hubConfig{
		"mcpServers": map[string]any{"global": map[string]any{"command": "global-mcp"}},
		"agents": map[string]any{"fakerec": map[string]any{"name": "Recorder", "command": c.Command, "args": c.Args, "env": c.Env,
			"mcpServers": map[string]any{"keep": map[string]any{"command": "keep-mcp"}, "gone": map[string]any{"command": "gone-mcp"}}}},
	})
	glob := work + "/**"
	h.call("PATCH", "/v1/settings", map[string]any{
		"agents": map[string]any{"fakerec": map[string]any{"mcpServers": map[string]any{
			"Agent_Srv": map[string]any{"command": "agent-mcp", "args": []string{"--x"}, "env": map[string]string{"Mixed_Case": "s3cret-value"}},
			"gone":      nil,
		}}},
		"folders": map[string]any{glob: map[string]any{"mcpServers": map[string]any{
			"Folder": map[string]any{"command": "folder-mcp", "env": map[string]string{"Folder_Key": "f"}},
		}}},
	}, 200, nil)

	var ans struct {
		Settings struct {
			Agents []struct {
				ID, Name, Command string
				MCPServers        []struct {
					Name    string
					EnvKeys []string
				}
			}
			Folders []struct {
				Glob       string
				MCPServers []struct{ Name string }
			}
		}
	}
	r := h.call("GET", "/v1/settings", nil, 200, &ans)
	st := ans.Settings
	if strings.Contains(string(r.body), "s3cret-value") {
		t.Errorf("GET /v1/settings shows an MCP server's env value")
	}
	var names []string
	for _, a := range st.Agents {
		if a.ID == "fakerec" {
			if a.Name != "Recorder" || a.Command != c.Command {
				t.Errorf("the agent's entry changed: %+v", a)
			}
			for _, m := range a.MCPServers {
				names = append(names, m.Name+strings.Join(m.EnvKeys, ","))
			}
		}
	}
	if strings.Join(names, " ") != "Agent_SrvMixed_Case keep" {
		t.Errorf("agents.fakerec.mcpServers in the settings: %q", names)
	}
	if len(st.Folders) != 1 || st.Folders[0].Glob != glob || len(st.Folders[0].MCPServers) != 1 || st.Folders[0].MCPServers[0].Name != "Folder" {
		t.Errorf("folders in the settings: %+v", st.Folders)
	}

	turn := func(cwd string) {
		t.Helper()
		th := h.newThread("fakerec", cwd)
		tu := h.startTurn(th.ID, "echo hi")
		if got := h.waitTurn(th.ID, tu.ID, 60*time.Second); got.Status != "completed" {
			t.Fatalf("turn: %+v", got)
		}
	}
	turn(filepath.Join(work, "proj"))
	got := receivedMCP(t, rec("first"))
	want := map[string]string{
		"global":    `{"name":"global","command":"global-mcp","args":[],"env":[]}`,
		"keep":      `{"name":"keep","command":"keep-mcp","args":[],"env":[]}`,
		"Agent_Srv": `{"name":"Agent_Srv","command":"agent-mcp","args":["--x"],"env":[{"name":"Mixed_Case","value":"s3cret-value"}]}`,
		"Folder":    `{"name":"Folder","command":"folder-mcp","args":[],"env":[{"name":"Folder_Key","value":"f"}]}`,
	}
	if !sameServers(t, got, want) {
		t.Errorf("session/new's mcpServers:\n got %v\nwant %v", got, want)
	}

	// null removes one entry of each level; the folder left empty goes.
	// The agent's FAKEAGENT_RECORD moves to a new file through the same
	// kind of patch (a whole entry), which keeps its mcpServers.
	env := map[string]any{"FAKEAGENT_RECORD": rec("second")}
	h.call("PATCH", "/v1/settings", map[string]any{
		"agents":  map[string]any{"fakerec": map[string]any{"name": "Recorder", "command": c.Command, "args": c.Args, "env": env, "mcpServers": map[string]any{"keep": nil}}},
		"folders": map[string]any{glob: map[string]any{"mcpServers": map[string]any{"Folder": nil}}},
	}, 200, nil)
	cfg, _ := os.ReadFile(h.config)
	if strings.Contains(string(cfg), "folders") || strings.Contains(string(cfg), "keep-mcp") || !strings.Contains(string(cfg), "Mixed_Case: s3cret-value") {
		t.Errorf("the config file after removing:\n%s", cfg)
	}
	turn(filepath.Join(work, "proj"))
	got = receivedMCP(t, rec("second"))
	delete(want, "keep")
	delete(want, "Folder")
	if !sameServers(t, got, want) {
		t.Errorf("session/new's mcpServers after the removals:\n got %v\nwant %v", got, want)
	}

	// Refused, with nothing written: an agent-level server that is not a
	// server, a folder glob that is not one.
	for _, bad := range []map[string]any{
		{"agents": map[string]any{"fakerec": map[string]any{"mcpServers": map[string]any{"x": map[string]any{"type": "http", "url": "file:///etc/passwd"}}}}},
		{"folders": map[string]any{" ": map[string]any{"mcpServers": map[string]any{"x": map[string]any{"command": "x"}}}}},
		{"agents": map[string]any{"nosuch": map[string]any{"mcpServers": map[string]any{"x": map[string]any{"command": "x"}}}}},
	} {
		if r := h.do("PATCH", "/v1/settings", bad); r.status != 400 {
			t.Errorf("PATCH %v: %s", bad, r)
		}
	}
	if after, _ := os.ReadFile(h.config); string(after) != string(cfg) {
		t.Errorf("a refused patch changed the file:\n%s", after)
	}
}

// sameServers compares received servers with want (canonical JSON each).
func sameServers(t *testing.T, got, want map[string]string) bool {
	t.Helper()
	if len(got) != len(want) {
		return false
	}
	for k, v := range want {
		if got[k] != canonJSON(t, v) {
			return false
		}
	}
	return true
}
