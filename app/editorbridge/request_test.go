package editorbridge

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// TestEditorToolCall: a described permission reaches the editor with the
// hub's description as the tool call's first content block; the rest of
// the tool call is the agent's, unchanged.
func TestEditorToolCall(t *testing.T) {
	r := &hub.PermissionRequest{
		Kind: "execute", Title: "npm test", Command: "touch X", Argv: []string{"touch", "X"}, Cwd: "/home/me/app",
		Env:   []hub.EnvVar{{Name: "PATH", Value: "/tmp/evil:/usr/bin"}, {Name: "TOKEN", Hidden: true}},
		Flags: []string{hub.FlagEnvProgram, hub.FlagTitleDiffers},
	}
	agent := `{"toolCallId":"c1","title":"npm test","kind":"execute","rawInput":{"command":"npm test"},"content":[{"type":"content","content":{"type":"text","text":"agent text"}}]}`
	text := "Switchboard — what approving allows (Agent request: run a command):\n\n```text\nRuns: touch X\nIn: /home/me/app\n" +
		"Sets: PATH=/tmp/evil:/usr/bin TOKEN (value not shown)\nThe agent says: “npm test”\n" +
		"⚠ Sets variables that change which program runs\n⚠ The agent's title is not the command that runs\n```"
	for _, tc := range []struct {
		name, toolCall string
		req            *hub.PermissionRequest
		want           string
	}{
		{"described", agent, r,
			`{"toolCallId":"c1","title":"npm test","kind":"execute","rawInput":{"command":"npm test"},"content":[` +
				`{"type":"content","content":{"type":"text","text":` + quote(text) + `}},{"type":"content","content":{"type":"text","text":"agent text"}}]}`},
		{"no content", `{"toolCallId":"c1","title":"npm test"}`, r,
			`{"toolCallId":"c1","title":"npm test","content":[{"type":"content","content":{"type":"text","text":` + quote(text) + `}}]}`},
		{"not an object", `"junk"`, r,
			`{"toolCallId":"pm1","content":[{"type":"content","content":{"type":"text","text":` + quote(text) + `}}]}`},
		{"not described", agent, nil, agent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := hub.Permission{ID: "pm1", Kind: hub.PermKindAgent, Request: tc.req, ToolCall: json.RawMessage(tc.toolCall)}
			var got, want any
			if err := json.Unmarshal(editorToolCall(p), &got); err != nil {
				t.Fatal(err)
			}
			json.Unmarshal([]byte(tc.want), &want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("forwarded\n %v\nwant\n %v", got, want)
			}
		})
	}
}

// TestEditorOptionsGit: a change to git's own settings is offered once
// only: neither the bridge's remember options nor the agent's "always".
func TestEditorOptionsGit(t *testing.T) {
	p := hub.Permission{Kind: hub.PermKindGit, Options: []hub.PermissionOption{
		{OptionID: "a", Name: "Allow", Kind: "allow_once"}, {OptionID: "aa", Name: "Always", Kind: "allow_always"},
		{OptionID: "r", Name: "Reject", Kind: "reject_once"}, {OptionID: "rr", Name: "Never", Kind: "reject_always"},
	}}
	opts, ours := editorOptions(p)
	want := []acp.PermissionOption{{OptionID: "a", Name: "Allow", Kind: "allow_once"}, {OptionID: "r", Name: "Reject", Kind: "reject_once"}}
	if !reflect.DeepEqual(opts, want) || ours != nil {
		t.Errorf("offered %+v (ours %v), want %+v", opts, ours, want)
	}
}

// TestRequestTextFence: backticks in a command cannot close the fence
// the description is in.
func TestRequestTextFence(t *testing.T) {
	p := hub.Permission{Kind: hub.PermKindAgent, Request: &hub.PermissionRequest{Argv: []string{"echo", "````\n# pwned"}}}
	got := requestText(p)
	want := "Switchboard — what approving allows (Agent request):\n\n`````text\nRuns: echo $'````\\n# pwned'\n`````"
	if got != want {
		t.Errorf("requestText:\n%s\nwant\n%s", got, want)
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
