package acp

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestMergeMCPServersLayersByName(t *testing.T) {
	global := MCPServers{"a": {Command: "a1"}, "b": {Command: "b1"}, "gone": {Command: "x"}}
	agent := MCPServers{"b": {Command: "b2"}, "gone": nil}
	folder := MCPServers{"c": {Type: MCPSSE, URL: "http://127.0.0.1:9/sse", Headers: map[string]string{"X-Key": "v"}}}
	got := MergeMCPServers(global, agent, folder)
	want := []string{
		`{"name":"a","command":"a1","args":[],"env":[]}`,
		`{"name":"b","command":"b2","args":[],"env":[]}`,
		`{"type":"sse","name":"c","url":"http://127.0.0.1:9/sse","headers":[{"name":"X-Key","value":"v"}]}`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %d servers: %s", len(got), got)
	}
	for i := range want {
		if string(got[i]) != want[i] {
			t.Errorf("server %d: %s, want %s", i, got[i], want[i])
		}
	}
}

func TestFilterMCPServersByCapabilities(t *testing.T) {
	servers := MergeMCPServers(MCPServers{
		"s": {Command: "s"}, "h": {Type: MCPHTTP, URL: "https://h"}, "e": {Type: MCPSSE, URL: "https://e"},
	})
	servers = append(servers, json.RawMessage(`{"command":"nameless"}`))
	var caps AgentCapabilities
	_ = json.Unmarshal([]byte(`{"mcpCapabilities":{"http":true}}`), &caps)
	kept, skipped := FilterMCPServers(servers, caps.MCP())
	var names []string
	for _, s := range kept {
		info, _ := DescribeMCPServer(s)
		names = append(names, info.Name)
	}
	if strings.Join(names, ",") != "h,s" {
		t.Errorf("kept %v, want h,s", names)
	}
	if len(skipped) != 2 || skipped[0].Name != "e" || !strings.Contains(skipped[0].Reason, "sse") || !strings.Contains(skipped[1].Reason, "name") {
		t.Errorf("skipped %+v", skipped)
	}
	// No capabilities at all: stdio only.
	kept, _ = FilterMCPServers(servers[:3], AgentCapabilities{}.MCP())
	if len(kept) != 1 {
		t.Errorf("without mcpCapabilities kept %s", kept)
	}
}

func TestMergeMCPListEditorWins(t *testing.T) {
	base := MergeMCPServers(MCPServers{"a": {Command: "hub-a"}, "b": {Command: "hub-b"}})
	extra := []MCPServer{json.RawMessage(`{"name":"a","command":"editor-a","args":[],"env":[]}`)}
	got := MergeMCPList(base, extra)
	if len(got) != 2 || !strings.Contains(string(got[0]), "hub-b") || !strings.Contains(string(got[1]), "editor-a") {
		t.Errorf("got %s", got)
	}
}

func TestMCPServerConfigValidate(t *testing.T) {
	bad := map[string]MCPServerConfig{
		"no command":     {},
		"stdio with url": {Command: "x", URL: "https://x"},
		"bad url":        {Type: MCPHTTP, URL: "file:///etc/passwd"},
		"http with cmd":  {Type: MCPSSE, URL: "https://x", Command: "x"},
		"unknown type":   {Type: "ws", URL: "https://x"},
		"bad header":     {Type: MCPHTTP, URL: "https://x", Headers: map[string]string{"A: b": "v"}},
		"bad env":        {Command: "x", Env: map[string]string{"A=B": "v"}},
	}
	for name, c := range bad {
		if err := c.Validate("mcpServers.s"); err == nil {
			t.Errorf("%s: accepted", name)
		} else if !strings.HasPrefix(err.Error(), "mcpServers.s") {
			t.Errorf("%s: error %q does not name the field", name, err)
		}
	}
	if err := (MCPServerConfig{Type: MCPHTTP, URL: "http://127.0.0.1:3000/mcp"}).Validate("x"); err != nil {
		t.Error(err)
	}
}
