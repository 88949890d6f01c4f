//go:build unix

package acp

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	// The example agent and the JSON golden files come from this module:
	// the blank import keeps it in go.mod for `go build` and `go list -m`.
	_ "github.com/coder/acp-go-sdk"
)

// Interop with an agent nobody on the team wrote: the example agent of
// github.com/coder/acp-go-sdk, built from the module cache at the version
// go.mod pins. Its turn streams text, a read tool call, then an edit tool
// call that needs permission ("allow" / "reject" option ids, which we must
// find by kind).

func buildSDKAgent(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "acp-example-agent")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/coder/acp-go-sdk/example/agent").CombinedOutput()
	if err != nil {
		t.Fatalf("building the acp-go-sdk example agent: %v\n%s", err, out)
	}
	return bin
}

func TestInteropSDKExampleAgent(t *testing.T) {
	bin := buildSDKAgent(t)
	choose := func(kind string) func(context.Context, RequestPermissionRequest) (RequestPermissionResponse, error) {
		return func(_ context.Context, req RequestPermissionRequest) (RequestPermissionResponse, error) {
			o, ok := req.OptionOfKind(kind)
			if !ok {
				t.Errorf("agent offered no %s option: %+v", kind, req.Options)
			}
			return Selected(o.OptionID), nil
		}
	}
	start := func(t *testing.T, rec *recorder) (*Agent, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		a, err := Launch(ctx, Command{Path: bin}, rec, AgentOptions{Process: ProcessOptions{Grace: time.Second}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Close(context.Background()) })
		s, err := a.NewSession(ctx, t.TempDir(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return a, s.SessionID
	}

	t.Run("allow", func(t *testing.T) {
		t.Parallel()
		rec := newRecorder()
		rec.decide = choose(AllowOnce)
		a, sid := start(t, rec)
		stop, err := prompt(t, a, sid, "please fix the config")
		if err != nil || stop != StopEndTurn {
			t.Fatalf("stop %q err %v", stop, err)
		}
		text := strings.Join(rec.messages(), "")
		if !strings.Contains(text, "demo only") || !strings.Contains(text, "successfully updated the configuration") {
			t.Fatalf("streamed text %q", text)
		}
		want := "agent_message_chunk,agent_message_chunk,tool_call,tool_call_update,agent_message_chunk,tool_call,tool_call_update,agent_message_chunk"
		if got := strings.Join(rec.kinds(), ","); got != want {
			t.Fatalf("update kinds\n got %s\nwant %s", got, want)
		}
		rec.mu.Lock()
		defer rec.mu.Unlock()
		if tc := rec.updates[2].ToolCall; tc == nil || tc.ToolCallID != "call_1" || *tc.Kind != "read" || tc.Locations[0].Path != "/project/README.md" {
			t.Fatalf("first tool call %+v", tc)
		}
		if len(rec.perms) != 1 || !strings.Contains(string(rec.perms[0].ToolCall), `"toolCallId":"call_2"`) {
			t.Fatalf("permission requests %+v", rec.perms)
		}
	})
	t.Run("reject", func(t *testing.T) {
		t.Parallel()
		rec := newRecorder()
		rec.decide = choose(RejectOnce)
		a, sid := start(t, rec)
		stop, err := prompt(t, a, sid, "please fix the config")
		if err != nil || stop != StopEndTurn {
			t.Fatalf("stop %q err %v", stop, err)
		}
		text := strings.Join(rec.messages(), "")
		if !strings.Contains(text, "skip the configuration update") || strings.Contains(text, "successfully updated") {
			t.Fatalf("streamed text %q", text)
		}
	})
	t.Run("cancelled outcome", func(t *testing.T) {
		t.Parallel()
		rec := newRecorder()
		rec.decide = func(context.Context, RequestPermissionRequest) (RequestPermissionResponse, error) {
			return Cancelled(), nil
		}
		a, sid := start(t, rec)
		// This agent ends the turn normally, without the edit, when the
		// permission comes back cancelled.
		stop, err := prompt(t, a, sid, "please fix the config")
		if err != nil || stop != StopEndTurn {
			t.Fatalf("stop %q err %v", stop, err)
		}
		if text := strings.Join(rec.messages(), ""); strings.Contains(text, "successfully updated") {
			t.Fatalf("edit applied after a cancelled permission: %q", text)
		}
	})
	t.Run("cancel while permission pending", func(t *testing.T) {
		t.Parallel()
		rec := newRecorder()
		rec.decide = func(ctx context.Context, _ RequestPermissionRequest) (RequestPermissionResponse, error) {
			<-ctx.Done()
			return RequestPermissionResponse{}, ctx.Err()
		}
		a, sid := start(t, rec)
		done := make(chan string, 1)
		go func() { stop, _ := prompt(t, a, sid, "please fix the config"); done <- stop }()
		select {
		case <-rec.asked:
		case <-time.After(30 * time.Second):
			t.Fatal("no permission request")
		}
		// The example agent races its own cancellation against our
		// "cancelled" answer and may end with end_turn (opencode does the
		// same): the hub, not the agent, records the turn as cancelled.
		stop, err := a.Cancel(context.Background(), sid)
		if err != nil || (stop != StopCancelled && stop != StopEndTurn) {
			t.Fatalf("cancel: stop %q err %v", stop, err)
		}
		if s := <-done; s != stop {
			t.Fatalf("prompt stop %q, cancel saw %q", s, stop)
		}
		if text := strings.Join(rec.messages(), ""); strings.Contains(text, "successfully updated") {
			t.Fatalf("edit applied after cancel: %q", text)
		}
	})
}
