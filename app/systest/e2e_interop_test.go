//go:build linux

package systest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/fakemodel"
	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
)

// 9a. The acp-go-sdk example agent through the hub, its permission
// approved over HTTP.
func e2eInteropSDK(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, hubConfig{"agents": map[string]agentConf{"sdk": {Name: "SDK example", Command: bins.sdkAgent}}})
	th := h.newThread("sdk", t.TempDir())
	events := h.mustSSE("GET", "/v1/threads/"+th.ID+"/events", nil)
	turn := h.startTurn(th.ID, "please fix the config")
	p := h.waitPermission(turn.ID, 60*time.Second)
	if !slices.ContainsFunc(p.Options, func(o apiOption) bool { return o.Kind == "allow_once" && o.OptionID == "allow" }) {
		t.Errorf("options %+v", p.Options)
	}
	h.call("POST", "/v1/permissions/"+p.ID, map[string]string{"outcome": "approved"}, 200, nil)
	msgs := events.until(60*time.Second, isType("turn_completed", turn.ID))
	done := lastMsg(msgs).ev.Turn
	if done == nil || done.Status != "completed" || !strings.Contains(done.Output, "successfully updated the configuration") {
		t.Errorf("turn %+v", done)
	}
	ty := types(msgs)
	for _, want := range []string{"turn_started", "message_delta", "tool_call", "tool_call_update", "permission_required", "permission_resolved", "turn_completed"} {
		if !slices.Contains(ty, want) {
			t.Errorf("events %v lack %s", ty, want)
		}
	}
}

// 9b. A real agent (Claude Code through claude-agent-acp, from .tools,
// offline against a fake model) configured as a custom agent: streamed
// text, a file write approved over HTTP, a cancel while a permission is
// pending.
func e2eInteropClaude(t *testing.T, bins e2eBins) {
	claude, model := claudeOffline(t)
	h := newHub(t, bins, hubConfig{
		"agents": map[string]agentConf{"claude-offline": claude},
	})
	cwd := t.TempDir()
	th := h.newThread("claude-offline", cwd)
	const slow = 120 * time.Second // start-up takes seconds, more under -race on a loaded machine

	t.Run("text", func(t *testing.T) {
		h := h.withT(t)
		const text = "Hello from the fake model, streamed in pieces."
		model.Push(fakemodel.Text(text))
		s := h.mustSSE("POST", "/v1/threads/"+th.ID+"/turns", map[string]string{"input": "Say hello."})
		msgs := s.wantEnd(slow)
		var deltas []string
		for _, m := range msgs {
			if m.event == "message_delta" && m.ev.Text != "" {
				deltas = append(deltas, m.ev.Text)
			}
		}
		last := lastMsg(msgs)
		// The model streams the text in pieces; the hub may join pieces
		// that wait for the same commit (ADR 0025), so only their sum is
		// fixed.
		if last.event != "turn_completed" || last.ev.Turn == nil || last.ev.Turn.Status != "completed" || last.ev.Turn.Output != text || strings.Join(deltas, "") != text {
			t.Errorf("events %v, deltas %q, final %+v: want %q streamed in deltas", types(msgs), deltas, last.ev.Turn, text)
		}
	})
	t.Run("approve write", func(t *testing.T) {
		h := h.withT(t)
		file := filepath.Join(cwd, "hello.txt")
		args, _ := json.Marshal(map[string]string{"file_path": file, "content": "hello\n"})
		model.Push(fakemodel.ToolCall("Write", string(args)), fakemodel.Text("Wrote hello.txt."))
		turn := h.startTurn(th.ID, "Write hello.txt.")
		p := h.waitPermission(turn.ID, slow)
		var tc struct{ Kind string }
		json.Unmarshal(p.ToolCall, &tc)
		if tc.Kind != "edit" {
			t.Errorf("permission tool call %s: want kind edit", p.ToolCall)
		}
		if _, err := os.Stat(file); err == nil {
			t.Error("file written before the permission was granted")
		}
		h.call("POST", "/v1/permissions/"+p.ID, map[string]string{"outcome": "approved"}, 200, nil)
		h.waitTurn(th.ID, turn.ID, slow)
		done := h.turn(th.ID, turn.ID)
		if done.Status != "completed" || !strings.Contains(done.Output, "Wrote hello.txt.") {
			t.Errorf("turn %+v", done)
		}
		if b, err := os.ReadFile(file); err != nil || string(b) != "hello\n" {
			t.Errorf("file %q, %v: want hello", b, err)
		}
		if !slices.ContainsFunc(done.Events, func(e apiEvent) bool { return e.Type == "tool_call" }) {
			t.Errorf("no tool_call event in %d events", len(done.Events))
		}
	})
	t.Run("cancel while pending", func(t *testing.T) {
		h := h.withT(t)
		file := filepath.Join(cwd, "never.txt")
		args, _ := json.Marshal(map[string]string{"file_path": file, "content": "no\n"})
		model.Push(fakemodel.ToolCall("Write", string(args)))
		turn := h.startTurn(th.ID, "Write never.txt.")
		p := h.waitPermission(turn.ID, slow)
		start := time.Now()
		var r struct{ Turn apiTurn }
		h.call("POST", "/v1/turns/"+turn.ID+"/cancel", nil, 200, &r)
		if r.Turn.Status != "cancelled" || time.Since(start) > 6*time.Second {
			t.Errorf("cancel: %+v after %v", r.Turn, time.Since(start))
		}
		if got := h.permission(p.ID); got.Status != "cancelled" {
			t.Errorf("permission %+v: want cancelled", got)
		}
		testkit.Never(t, 200*time.Millisecond, "the cancelled write happened", func() bool {
			_, err := os.Stat(file)
			return err == nil
		})
	})
}
