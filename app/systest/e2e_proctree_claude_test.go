//go:build linux

package systest

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/fakemodel"
)

// TestE2EClaudeTreeDiesWithHub (issue 32, "agents that die"): Claude Code
// through claude-agent-acp — a node process that starts the Claude Code
// CLI, itself a node process — runs an allowed Bash command that never
// ends, `tail -f /dev/null` (Claude Code refuses a bare `sleep 1000`). The hub is SIGKILLed: within 5 s nothing of
// that tree is left (the agent, the CLI it spawned, the shell and its
// tail), and the next start has no agent of the previous run to stop.
func TestE2EClaudeTreeDiesWithHub(t *testing.T) {
	bins := buildE2E(t)
	claude, model := claudeOffline(t)
	h := newHub(t, bins, hubConfig{
		"agents": map[string]agentConf{"claude-offline": claude},
		"permissions": map[string]any{"rules": []rule{
			{"name": "sleeps", "agents": []string{"claude-offline"}, "kinds": []string{"execute"}, "match": `^tail -f /dev/null$`, "decision": "allow"},
		}},
	})
	bash, _ := json.Marshal(map[string]string{"command": "tail -f /dev/null", "description": "Follow nothing"})
	model.Push(fakemodel.ToolCall("Bash", string(bash)), fakemodel.Hang())
	th := h.newThread("claude-offline", t.TempDir())
	h.startTurn(th.ID, "Wait.")

	tree := map[int]string{}
	var following bool
	if !waitFor(120*time.Second, func() bool {
		for _, pid := range descendantsOf(h.pid()) {
			tree[pid] = procStartTime(pid)
			if cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); string(cmd) == "tail\x00-f\x00/dev/null\x00" {
				following = true
			}
		}
		return following
	}) {
		var results []fakemodel.ToolResult
		for _, r := range model.ModelRequests(false) {
			results = append(results, r.ToolResults()...)
		}
		t.Fatalf("Claude Code's `tail -f /dev/null` never ran below the hub (tool results %+v); its processes: %v", results, tree)
	}
	var nodes int
	for pid := range tree {
		if cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); strings.Contains(string(cmd), "node") {
			nodes++
		}
	}
	if nodes < 2 {
		t.Fatalf("want claude-agent-acp and the Claude Code CLI it spawned (two node processes) below the hub, got %d in %v", nodes, tree)
	}
	t.Logf("the hub's tree mid-turn: %d processes (%d node)", len(tree), nodes)

	h.kill9()
	wantTreeGone(t, "SIGKILL", tree, 5*time.Second)

	h.start()
	if strings.Contains(h.logText(), "stopping an agent left by the previous run") {
		t.Errorf("the next start found an agent of the killed run to stop:\n%s", h.logText())
	}
	h.stop()
}
