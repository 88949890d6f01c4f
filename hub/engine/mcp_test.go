//go:build unix

package engine_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// A thread's mcpServers that are not ACP MCP servers (or name one twice)
// are refused with INVALID_ARGUMENT and no thread is created.
func TestCreateThreadRefusesBadMCPServers(t *testing.T) {
	h := newHarness(t, nil)
	for name, list := range map[string][]json.RawMessage{
		"no name":       {json.RawMessage(`{"command":"x","args":[],"env":[]}`)},
		"not an object": {json.RawMessage(`"x"`)},
		"bad type":      {json.RawMessage(`{"type":"ws","name":"a","url":"ws://x"}`)},
		"http no url":   {json.RawMessage(`{"type":"http","name":"a","headers":[]}`)},
		"twice": {json.RawMessage(`{"name":"a","command":"x","args":[],"env":[]}`),
			json.RawMessage(`{"name":"a","command":"y","args":[],"env":[]}`)},
	} {
		_, err := h.e.CreateThread(context.Background(), alice, hub.CreateThreadRequest{Agent: "fake", Cwd: h.cwd, MCPServers: list})
		if hub.ErrorCode(err) != hub.CodeInvalidArgument {
			t.Errorf("%s: err %v, want INVALID_ARGUMENT", name, err)
		}
	}
	page, err := h.e.ListThreads(context.Background(), alice, 0, "")
	if err != nil || len(page.Threads) != 0 {
		t.Errorf("threads after refusals: %v %v", page.Threads, err)
	}
}
