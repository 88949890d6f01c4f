//go:build linux

package systest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
)

// bridgeMCP: MCP servers from the config's three levels (top level,
// agents.<id>, folders.<glob>) and the editor's own (its session/new,
// through the bridge) all reach the agent's session/new as configured:
// merged by name in that order, a null removing one, env and header keys
// with their case, and an http server left out for an agent that does not
// accept http while one that does gets it.
func bridgeMCP(t *testing.T, bins e2eBins) {
	dir := t.TempDir()
	record := filepath.Join(dir, "received.jsonl")
	recordHTTP := filepath.Join(dir, "received-http.jsonl")
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(filepath.Join(work, "proj"), 0o700); err != nil {
		t.Fatal(err)
	}
	agent := func(opts ...string) map[string]any {
		c := fakeAgentConf(t, opts...)
		return map[string]any{"name": c.Name, "command": c.Command, "args": c.Args, "env": c.Env,
			"mcpServers": map[string]any{
				"agentOnly": map[string]any{"command": "agent-mcp", "args": []string{"--x"}},
				"shared":    map[string]any{"command": "shared-from-agent"},
				"dropMe":    nil,
			}}
	}
	h := newHub(t, bins, hubConfig{
		"mcpServers": map[string]any{
			"global":  map[string]any{"command": "global-mcp", "env": map[string]string{"API_Key": "k1"}},
			"shared":  map[string]any{"command": "shared-from-global"},
			"dropMe":  map[string]any{"command": "never-sent"},
			"remote":  map[string]any{"type": "http", "url": "https://mcp.example/x", "headers": map[string]string{"X-Token": "t"}},
			"editors": map[string]any{"command": "hub-version"},
		},
		"agents": map[string]any{
			"fakerec":  agent("FAKEAGENT_RECORD=" + record),
			"fakehttp": agent("FAKEAGENT_RECORD="+recordHTTP, "FAKEAGENT_MCP_CAPS=http"),
		},
		"folders": map[string]any{
			work + "/**": map[string]any{"mcpServers": map[string]any{"folder": map[string]any{"command": "folder-mcp"}}},
			work + "/proj": map[string]any{"mcpServers": map[string]any{
				"folder": map[string]any{"command": "proj-mcp"}, // more specific: wins
			}},
		},
	})

	// Through the bridge, with the editor's own servers.
	b := startBridge(t, bins, h, "fakerec")
	b.mustInitialize(t)
	cwd := filepath.Join(work, "proj")
	r, err := b.conn.NewSession(bridgeCtx(t), sdk.NewSessionRequest{Cwd: cwd, McpServers: []sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "editors", Command: "editor-mcp", Args: []string{}, Env: []sdk.EnvVariable{{Name: "Editor_Var", Value: "v"}}}},
	}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	b.mustPrompt(t, string(r.SessionId), "echo hi", sdk.StopReasonEndTurn)

	got := receivedMCP(t, record)
	want := map[string]string{
		"agentOnly": `{"name":"agentOnly","command":"agent-mcp","args":["--x"],"env":[]}`,
		"editors":   `{"name":"editors","command":"editor-mcp","args":[],"env":[{"name":"Editor_Var","value":"v"}]}`,
		"folder":    `{"name":"folder","command":"proj-mcp","args":[],"env":[]}`,
		"global":    `{"name":"global","command":"global-mcp","args":[],"env":[{"name":"API_Key","value":"k1"}]}`,
		"shared":    `{"name":"shared","command":"shared-from-agent","args":[],"env":[]}`,
	}
	if len(got) != len(want) {
		t.Errorf("session/new got %d servers %v, want %d (remote skipped: no http; dropMe removed)", len(got), got, len(want))
	}
	for name, w := range want {
		if g := got[name]; g != canonJSON(t, w) {
			t.Errorf("server %s: got %s, want %s", name, g, w)
		}
	}

	// The agent list says remote is skipped for fakerec, once it is known.
	var list struct {
		Agents []struct {
			ID         string `json:"id"`
			MCPServers []struct {
				Name, Transport, Skipped string
			} `json:"mcpServers"`
		} `json:"agents"`
	}
	h.call("GET", "/v1/agents", nil, 200, &list)
	found := false
	for _, a := range list.Agents {
		if a.ID != "fakerec" {
			continue
		}
		for _, s := range a.MCPServers {
			if s.Name == "remote" {
				found = true
				if s.Transport != "http" || !strings.Contains(s.Skipped, "http") {
					t.Errorf("fakerec's remote: %+v, want skipped for http", s)
				}
			}
		}
	}
	if !found {
		t.Errorf("GET /v1/agents lacks fakerec's remote server: %+v", list)
	}

	// An agent that accepts http gets the remote server, headers as written.
	th := h.newThread("fakehttp", work)
	tu := h.startTurn(th.ID, "echo hi")
	h.waitTurn(th.ID, tu.ID, 60*time.Second)
	got = receivedMCP(t, recordHTTP)
	if g, w := got["remote"], `{"type":"http","name":"remote","url":"https://mcp.example/x","headers":[{"name":"X-Token","value":"t"}]}`; g != canonJSON(t, w) {
		t.Errorf("fakehttp's remote: got %s, want %s", g, w)
	}
	if g, w := got["folder"], `{"name":"folder","command":"folder-mcp","args":[],"env":[]}`; g != canonJSON(t, w) {
		t.Errorf("fakehttp's folder (work/**): got %s, want %s", g, w)
	}
	if _, ok := got["editors"]; !ok || got["editors"] != canonJSON(t, `{"name":"editors","command":"hub-version","args":[],"env":[]}`) {
		t.Errorf("fakehttp's editors (the hub's own): %s", got["editors"])
	}
}

// receivedMCP reads the fake agent's record and returns the mcpServers of
// its first session/new, by name, as compact JSON.
func receivedMCP(t *testing.T, record string) map[string]string {
	t.Helper()
	var out map[string]string
	if !waitFor(30*time.Second, func() bool {
		data, _ := os.ReadFile(record)
		for _, line := range strings.Split(string(data), "\n") {
			var rec struct {
				Method string `json:"method"`
				Params struct {
					MCPServers []json.RawMessage `json:"mcpServers"`
				} `json:"params"`
			}
			if json.Unmarshal([]byte(line), &rec) != nil || rec.Method != "session/new" {
				continue
			}
			out = map[string]string{}
			for _, s := range rec.Params.MCPServers {
				var n struct{ Name string }
				_ = json.Unmarshal(s, &n)
				out[n.Name] = canonJSON(t, string(s))
			}
			return true
		}
		return false
	}) {
		t.Fatalf("no session/new recorded in %s", record)
	}
	return out
}

// canonJSON is s re-encoded with sorted keys, to compare JSON objects.
func canonJSON(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
