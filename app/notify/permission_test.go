package notify

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

func TestToolCallText(t *testing.T) {
	for _, tc := range []struct{ in, title, details string }{
		{`{"title":"Run","rawInput":{"command":"make clean"}}`, "Run", "make clean"},
		{`{"title":"Run","rawInput":{"command":["git","push"]}}`, "Run", "git push"},
		{`{"title":"Edit","locations":[{"path":"/a"},{"path":"/b"}],"content":[{"type":"diff","path":"/a"}]}`, "Edit", "/a\n/b"},
		{`{"title":"Read","rawInput":{"file_path":"/x"}}`, "Read", "/x"},
		{`{"title":"Think"}`, "Think", ""},
		{``, "", ""},
	} {
		title, details := ToolCallText(json.RawMessage(tc.in))
		if title != tc.title || details != tc.details {
			t.Errorf("ToolCallText(%s) = %q, %q; want %q, %q", tc.in, title, details, tc.title, tc.details)
		}
	}
}

// TestPermissionBody: Approve only for a whole, printable request within
// the body's bounds.
func TestPermissionBody(t *testing.T) {
	for _, tt := range []struct {
		title, details string
		whole          bool
	}{
		{"Run make clean", "make clean", true},
		{"Edit", "/home/u/a.go\n/home/u/b.go", true},
		{"", "make clean", false},
		{"Run", "", false},
		{"Run", strings.Repeat("x", BodyMax), false},
		{"Run", "1\n2\n3\n4\n5\n6", false},
		{"Run", "ls\tx", false},
		{"Run", "ls \u202ex", false},
		{"Run", "ls \u200bx", false},
	} {
		body, whole := PermissionBody(tt.title, tt.details)
		if whole != tt.whole {
			t.Errorf("PermissionBody(%q, %q) whole %v, want %v", tt.title, tt.details, whole, tt.whole)
		}
		if whole && body != tt.title+"\n"+tt.details {
			t.Errorf("PermissionBody(%q, %q) = %q", tt.title, tt.details, body)
		}
		if !whole && (!strings.Contains(body, "open it in Switchboard") && !strings.Contains(body, "Open Switchboard") || !Printable(body)) {
			t.Errorf("PermissionBody(%q, %q) = %q: want a cut, printable body saying to open it", tt.title, tt.details, body)
		}
	}
}

// TestPermission: a permission told from its tool call asks earlier for
// the call's details when it carries none, offers Approve when they fit,
// and says "Still waiting" when escalated; a described one names its
// kind, never the agent's title, and is Once when the hub never
// remembers it.
func TestPermission(t *testing.T) {
	var asked []string
	earlier := func(id string) json.RawMessage {
		asked = append(asked, id)
		return json.RawMessage(`{"toolCallId":"c1","title":"Run","rawInput":{"command":"make test"}}`)
	}
	p := hub.Permission{ID: "p1", ThreadID: "th", Status: hub.PermissionPending, ToolCall: json.RawMessage(`{"toolCallId":"c1"}`)}
	x := Permission(p, "Fake", earlier)
	if !slices.Equal(asked, []string{"c1"}) || x.ID != "perm:p1" || x.Title != "Fake: Run" || x.Body != "Run\nmake test" ||
		!x.Approve || x.Once || x.Critical || x.ThreadID != "th" {
		t.Errorf("from the earlier tool call: %+v (asked %q)", x, asked)
	}

	asked = nil
	p.ToolCall = json.RawMessage(`{"toolCallId":"c1","title":"Edit","locations":[{"path":"/a"}]}`)
	now := time.Now()
	p.EscalatedAt = &now
	x = Permission(p, "Fake", earlier)
	if asked != nil || x.Title != "Still waiting — Fake: Edit" || x.Body != "Edit\n/a" || !x.Critical || !x.Approve {
		t.Errorf("escalated, with its own details: %+v (asked %q)", x, asked)
	}

	p = hub.Permission{ID: "p2", ThreadID: "th", Status: hub.PermissionPending, Kind: hub.PermKindGit,
		ToolCall: json.RawMessage(`{"title":"harmless"}`),
		Request:  &hub.PermissionRequest{Kind: "edit", Paths: []string{"/w/.git/config"}, Flags: []string{hub.FlagGitSettings}}}
	x = Permission(p, "Fake", func(string) json.RawMessage { t.Error("a described permission asked for its tool call"); return nil })
	if x.Title != "Fake: Change git's own settings" || !x.Approve || !x.Once || strings.Contains(x.Title+x.Body, "harmless") {
		t.Errorf("described: %+v", x)
	}

	p = hub.Permission{ID: "p3", ThreadID: "th", Status: hub.PermissionPending, ToolCall: json.RawMessage(`{}`)}
	x = Permission(p, "Fake", func(string) json.RawMessage { return nil })
	if x.Title != "Fake: wants to use a tool" || x.Approve || !strings.Contains(x.Body, "Open Switchboard") {
		t.Errorf("nothing known: %+v", x)
	}
}

// TestDecision: each action's decision; a click or an answer decides
// nothing.
func TestDecision(t *testing.T) {
	for action, want := range map[string]hub.Decision{
		ActionApprove:  {Outcome: hub.PermissionApproved},
		ActionDeny:     {Outcome: hub.PermissionDeclined},
		ActionRemember: {Outcome: hub.PermissionApproved, Remember: hub.RememberThread},
	} {
		if d, ok := Decision(action); !ok || d != want {
			t.Errorf("Decision(%q) = %+v %v, want %+v", action, d, ok, want)
		}
	}
	for _, action := range []string{ActionDefault, ActionAnswer + "0", ""} {
		if d, ok := Decision(action); ok {
			t.Errorf("Decision(%q) = %+v, want none", action, d)
		}
	}
}
