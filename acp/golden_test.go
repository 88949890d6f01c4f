//go:build unix

package acp

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// goldenDir is the JSON golden corpus that ships with the acp-go-sdk module
// (a dependency of our tests): wire examples written by people outside this
// project. Read in place from the module cache, never copied.
func goldenDir(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/coder/acp-go-sdk").Output()
	if err != nil {
		t.Fatalf("locating acp-go-sdk (go mod download): %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "testdata", "json_golden")
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("golden corpus missing: %v", err)
	}
	return dir
}

func readGolden(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(goldenDir(t), name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// roundTrip decodes golden into a fresh T and encodes it again: the result
// must carry every field of the original.
func roundTrip[T any](t *testing.T, name string) T {
	t.Helper()
	golden := readGolden(t, name)
	var v T
	if err := json.Unmarshal(golden, &v); err != nil {
		t.Fatalf("%s: decode: %v", name, err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%s: encode: %v", name, err)
	}
	if !jsonEqual(string(out), string(golden)) {
		t.Fatalf("%s: round trip changed the message\n got %s\nwant %s", name, out, compactJSON(golden))
	}
	return v
}

func TestGoldenRoundTrips(t *testing.T) {
	for _, name := range []string{"content_text", "content_image", "content_audio", "content_resource_link", "content_resource_text", "content_resource_blob"} {
		t.Run(name, func(t *testing.T) { roundTrip[ContentBlock](t, name) })
	}
	t.Run("prompt_request", func(t *testing.T) {
		v := roundTrip[struct {
			SessionID string         `json:"sessionId"`
			Prompt    []ContentBlock `json:"prompt"`
		}](t, "prompt_request")
		if len(v.Prompt) != 2 || v.Prompt[1].Type != "resource" {
			t.Fatalf("prompt = %+v", v.Prompt)
		}
	})
	t.Run("request_permission_request", func(t *testing.T) {
		v := roundTrip[RequestPermissionRequest](t, "request_permission_request")
		if o, ok := v.OptionOfKind(RejectOnce); !ok || o.OptionID != "reject-once" {
			t.Fatalf("reject option = %+v", o)
		}
	})
	t.Run("request_permission_response_selected", func(t *testing.T) {
		v := roundTrip[RequestPermissionResponse](t, "request_permission_response_selected")
		if v != Selected("allow-once") {
			t.Fatalf("got %+v", v)
		}
	})
	t.Run("permission_outcome_cancelled", func(t *testing.T) {
		if v := roundTrip[PermissionOutcome](t, "permission_outcome_cancelled"); v != Cancelled().Outcome {
			t.Fatalf("got %+v", v)
		}
	})
	t.Run("new_session_request", func(t *testing.T) {
		roundTrip[struct {
			Cwd        string      `json:"cwd"`
			MCPServers []MCPServer `json:"mcpServers"`
		}](t, "new_session_request")
	})
	t.Run("new_session_response", func(t *testing.T) { roundTrip[SessionSetup](t, "new_session_response") })
}

// A text block keeps its "text" even when empty: agents validate prompts
// against the schema, which requires it, and Qwen Code and Claude Code
// refuse {"type":"text"} (found by TestInteropRealAgents). Other blocks
// still leave out their empty fields.
func TestContentBlockRequiredText(t *testing.T) {
	tests := []struct {
		in   ContentBlock
		want string
	}{
		{TextBlock(""), `{"type":"text","text":""}`},
		{TextBlock("hi"), `{"type":"text","text":"hi"}`},
		{ContentBlock{Type: "text", Annotations: json.RawMessage(`{"priority":1}`)}, `{"type":"text","text":"","annotations":{"priority":1}}`},
		{ContentBlock{Type: "image", Data: "AA==", MimeType: "image/png"}, `{"type":"image","data":"AA==","mimeType":"image/png"}`},
		{ContentBlock{Type: "resource_link", URI: "file:///a", Name: "a"}, `{"type":"resource_link","uri":"file:///a","name":"a"}`},
	}
	for _, tt := range tests {
		got, err := json.Marshal(tt.in)
		if err != nil || !jsonEqual(string(got), tt.want) {
			t.Errorf("%+v encoded as %s (%v), want %s", tt.in, got, err, tt.want)
		}
		// Inside a request, as Prompt sends it.
		got, _ = json.Marshal(map[string]any{"prompt": []ContentBlock{tt.in}})
		if !jsonEqual(string(got), `{"prompt":[`+tt.want+`]}`) {
			t.Errorf("%+v in a prompt encoded as %s", tt.in, got)
		}
	}
}

func TestGoldenInitializeResponse(t *testing.T) {
	var v InitializeResponse
	if err := json.Unmarshal(readGolden(t, "initialize_response"), &v); err != nil {
		t.Fatal(err)
	}
	c := v.AgentCapabilities
	if v.ProtocolVersion != 1 || !c.LoadSession || !c.PromptCapabilities.Image || !c.PromptCapabilities.Audio || !c.PromptCapabilities.EmbeddedContext {
		t.Fatalf("parsed %+v", v)
	}
	if advertised(c.SessionCapabilities.List) || advertised(c.SessionCapabilities.Close) {
		t.Fatalf("session capabilities not advertised but parsed as such: %+v", c.SessionCapabilities)
	}
}

func TestGoldenSessionUpdates(t *testing.T) {
	dir := goldenDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "session_update_*.json"))
	if len(files) < 8 {
		t.Fatalf("only %d session update examples found", len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			golden, _ := os.ReadFile(f)
			var u SessionUpdate
			if err := json.Unmarshal(golden, &u); err != nil {
				t.Fatal(err)
			}
			if u.ParseErr != nil {
				t.Fatalf("known kind failed to parse: %v", u.ParseErr)
			}
			if string(u.Raw) != strings.TrimSpace(string(golden)) {
				t.Fatal("raw form not kept byte for byte")
			}
			if out, _ := json.Marshal(u); !jsonEqual(string(out), string(golden)) {
				t.Fatalf("marshalled form differs: %s", out)
			}
			switch u.Kind {
			case UpdateAgentMessageChunk, UpdateAgentThoughtChunk, UpdateUserMessageChunk:
				if u.Content == nil || u.Content.Type == "" {
					t.Fatalf("chunk content not parsed: %+v", u)
				}
			case UpdateToolCall, UpdateToolCallUpdate:
				if u.ToolCall == nil || u.ToolCall.ToolCallID == "" {
					t.Fatalf("tool call not parsed: %+v", u)
				}
			case UpdatePlan:
				if len(u.Plan) == 0 || u.Plan[0].Content == "" {
					t.Fatalf("plan not parsed: %+v", u)
				}
			default:
				t.Fatalf("unexpected kind %q", u.Kind)
			}
		})
	}
}

func TestSessionUpdateUnknownAndMalformed(t *testing.T) {
	tests := []struct {
		name, in, kind string
		parseErr       bool
	}{
		{"unknown kind kept raw", `{"sessionUpdate":"future_kind_xyz","payload":{"a":[1,2]},"x":null}`, "future_kind_xyz", false},
		{"unstable kind kept raw", `{"sessionUpdate":"usage_update","used":10,"size":100}`, UpdateUsage, false},
		{"known kind with bad fields", `{"sessionUpdate":"plan","entries":"not a list"}`, UpdatePlan, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var u SessionUpdate
			if err := json.Unmarshal([]byte(tt.in), &u); err != nil {
				t.Fatal(err)
			}
			if u.Kind != tt.kind || string(u.Raw) != tt.in || (u.ParseErr != nil) != tt.parseErr {
				t.Fatalf("got kind %q raw %s parseErr %v", u.Kind, u.Raw, u.ParseErr)
			}
			if u.Content != nil || u.ToolCall != nil || u.Plan != nil {
				t.Fatalf("typed fields set on %+v", u)
			}
		})
	}
	var u SessionUpdate
	if err := json.Unmarshal([]byte(`{"nope":1}`), &u); err == nil {
		t.Fatal("an update without sessionUpdate must not decode")
	}
}
