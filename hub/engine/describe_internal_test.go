//go:build unix

package engine

import (
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// describeFixture is an engine and a thread in a real folder ws holding
// lnk -> home/.ssh (a cloned repository can ship such a link).
func describeFixture(t *testing.T) (*Engine, hub.Thread, string, string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, home := filepath.Join(root, "ws"), filepath.Join(root, "home")
	for _, d := range []string{ws, filepath.Join(home, ".ssh"), filepath.Join(ws, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(ws, "lnk")); err != nil {
		t.Fatal(err)
	}
	e := &Engine{log: slog.New(slog.DiscardHandler), cfg: DefaultConfig()}
	return e, hub.Thread{ID: "th", Agent: "a", Cwd: ws}, ws, home
}

func TestDescribeToolCall(t *testing.T) {
	e, th, ws, home := describeFixture(t)
	for _, tt := range []struct {
		name, json string
		argv       []string
		cwd        string
		paths      []string
		env        []hub.EnvVar
		flags      []string
	}{
		{name: "plain", json: `{"kind":"execute","title":"` + "`go test ./...`" + `","rawInput":{"command":"go test ./..."}}`,
			argv: []string{"go", "test", "./..."}, cwd: ws},
		{name: "shell", json: `{"kind":"execute","title":"go test ; touch X","rawInput":{"command":"go test ; touch X"}}`,
			argv: []string{"/bin/sh", "-c", "go test ; touch X"}, cwd: ws, flags: []string{hub.FlagShell}},
		{name: "command and cmd disagree", json: `{"kind":"execute","title":"npm test","rawInput":{"command":"npm test","cmd":"touch X"}}`,
			argv: []string{"npm", "test"}, cwd: ws, flags: []string{hub.FlagConflicting}},
		{name: "a title that names the command", json: `{"kind":"execute","title":"Run make clean","rawInput":{"command":"make clean"}}`,
			argv: []string{"make", "clean"}, cwd: ws},
		{name: "title is not the command", json: `{"kind":"execute","title":"npm test","rawInput":{"command":"touch X"}}`,
			argv: []string{"touch", "X"}, cwd: ws, flags: []string{hub.FlagTitleDiffers}},
		{name: "a list runs as it is", json: `{"kind":"execute","title":"git status","rawInput":{"cmd":["git","status"]}}`,
			argv: []string{"git", "status"}, cwd: ws},
		{name: "env", json: `{"kind":"execute","rawInput":{"command":"ls","env":{"PATH":"` + ws + `/bin","SSH_AUTH_SOCK":"/s","TOKEN":"x"}}}`,
			argv: []string{"ls"}, cwd: ws, flags: []string{hub.FlagEnvProgram},
			env: []hub.EnvVar{{Name: "PATH", Value: ws + "/bin"}, {Name: "SSH_AUTH_SOCK", Value: "/s"}, {Name: "TOKEN", Hidden: true}}},
		{name: "cwd outside", json: `{"kind":"execute","rawInput":{"command":"ls","cwd":"` + home + `"}}`,
			argv: []string{"ls"}, cwd: home, flags: []string{hub.FlagOutside}},
		{name: "dot dot after a link is where the OS goes", json: `{"kind":"read","title":"Read","locations":[{"path":"` + ws + `/lnk/../.ssh/id_rsa"}]}`,
			paths: []string{home + "/.ssh/id_rsa"}, flags: []string{hub.FlagDotDot, hub.FlagOutside}},
		{name: "git settings", json: `{"kind":"edit","title":"Edit","locations":[{"path":"` + ws + `/.git/config"}],"content":[{"type":"diff","path":"` + ws + `/.gitattributes","newText":"* filter=x"}]}`,
			paths: []string{ws + "/.git/config", ws + "/.gitattributes"}, flags: []string{hub.FlagGitSettings}},
		{name: "reading git settings is no change", json: `{"kind":"read","title":"Read","locations":[{"path":"` + ws + `/.git/config"}]}`,
			paths: []string{ws + "/.git/config"}},
		{name: "case-sensitive: KIND is another member", json: `{"kind":"execute","KIND":"read","title":"ls","rawInput":{"command":"ls"}}`,
			argv: []string{"ls"}, cwd: ws},
		{name: "a repeated member", json: `{"kind":"read","kind":"execute","title":"ls"}`, flags: []string{hub.FlagMalformed}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := e.describeToolCall(th, json.RawMessage(tt.json))
			if !slices.Equal(d.Argv, tt.argv) || d.Cwd != tt.cwd || !slices.Equal(d.Paths, tt.paths) || !slices.Equal(d.Env, tt.env) || !slices.Equal(d.Flags, tt.flags) {
				t.Errorf("describe(%s) =\n%+v\nwant argv %q cwd %q paths %q env %+v flags %q", tt.json, *d, tt.argv, tt.cwd, tt.paths, tt.env, tt.flags)
			}
		})
	}
}

func TestDescribeTerminal(t *testing.T) {
	e, _, ws, _ := describeFixture(t)
	for _, tt := range []struct {
		command string
		args    []string
		argv    []string
		shell   bool
	}{
		{"npm", []string{"test"}, []string{"npm", "test"}, false},
		{"npm test", nil, []string{"npm", "test"}, false},
		{"make", nil, []string{"make"}, false},
		{"npm test && touch X", nil, []string{"/bin/sh", "-c", "npm test && touch X"}, true},
		{"bash", []string{"-lc", "echo hi"}, []string{"bash", "-lc", "echo hi"}, false},
	} {
		d := e.describeTerminal(tt.command, tt.args, ws, nil)
		if !slices.Equal(d.Argv, tt.argv) || d.Has(hub.FlagShell) != tt.shell || d.Cwd != ws || d.Kind != "execute" {
			t.Errorf("describeTerminal(%q, %q) = %+v", tt.command, tt.args, *d)
		}
	}
}

// What covers a terminal: only an execute request a person (or a config
// rule) approved whose argv, folder and environment equal the terminal's.
func TestTerminalApprovals(t *testing.T) {
	e, th, ws, _ := describeFixture(t)
	now := time.Unix(1000, 0)
	agent := func(id, decidedBy, tc string) hub.Permission {
		return hub.Permission{ID: id, Kind: hub.PermKindAgent, DecidedBy: decidedBy, ToolCall: json.RawMessage(tc), Request: e.describeToolCall(th, json.RawMessage(tc))}
	}
	term := func(command string, args []string, env ...hub.EnvVar) (*hub.PermissionRequest, []hub.EnvVar) {
		return e.describeTerminal(command, args, ws, env), env
	}
	tr := &turnRT{}
	tr.noteApproval(now, agent("p1", hub.SurfaceWindow, `{"kind":"execute","title":"Tidy up","rawInput":{"command":"make clean"}}`))                        // title differs: never covers
	tr.noteApproval(now, agent("p2", hub.SurfaceWindow, `{"kind":"execute","title":"`+"`npm test`"+`","rawInput":{"command":"npm test","cmd":"touch X"}}`)) // conflicting
	tr.noteApproval(now, agent("p3", "remembered:ru_1", `{"kind":"execute","title":"ls","rawInput":{"command":"ls"}}`))                                     // remembered
	tr.noteApproval(now, agent("p4", hub.SurfaceBrowser, `{"kind":"read","title":"cat /data/token","locations":[{"path":"`+ws+`/a"}]}`))                    // a read
	tr.noteApproval(now, agent("p5", "rule:edits", `{"kind":"edit","title":"touch X","locations":[{"path":"`+ws+`/a"}]}`))                                  // an edit
	tr.noteApproval(now, agent("p6", hub.SurfaceWindow, `{"kind":"execute","title":"go test ./...","rawInput":{"command":"go test ./..."}}`))
	tr.noteApproval(now, agent("p7", "client:ed", `{"kind":"execute","title":"ls -la","rawInput":{"command":"ls -la"}}`))
	tr.noteApproval(now, agent("p8", hub.SurfaceWindow, `{"kind":"execute","title":"npm test && npm run lint","rawInput":{"command":"npm test && npm run lint"}}`))
	tr.noteApproval(now, agent("p9", "rule:tests", `{"kind":"execute","title":"make","rawInput":{"command":"make"}}`))
	tr.noteApproval(now, agent("p10", hub.SurfaceWindow, `{"kind":"execute","title":"Run make install","rawInput":{"command":"make install"}}`)) // names it

	steps := []struct {
		at      time.Duration
		command string
		args    []string
		env     []hub.EnvVar
		want    string
	}{
		{time.Second, "make clean", nil, nil, ""},
		{time.Second, "touch X", nil, nil, ""},
		{time.Second, "npm test", nil, nil, ""},
		{time.Second, "ls", nil, nil, ""},
		{time.Second, "cat /data/token", nil, nil, ""},
		{time.Second, "go", []string{"test", "./..."}, []hub.EnvVar{{Name: "PATH", Value: ws + "/bin"}}, ""}, // env differs
		{time.Second, "go", []string{"test", "./..."}, nil, "p6"},
		{time.Second, "go test ./...", nil, nil, ""}, // used up
		{61 * time.Second, "ls -la", nil, nil, ""},   // too old
		{59 * time.Second, "ls -la", nil, nil, "p7"},
		{time.Second, "npm test && npm run lint", nil, nil, "p8"},
		{time.Second, "make", nil, nil, "p9"},
		{time.Second, "make", []string{"install"}, nil, "p10"},
	}
	for _, s := range steps {
		d, env := term(s.command, s.args, s.env...)
		if got, _ := tr.takeApproval(now.Add(s.at), d, env); got != s.want {
			t.Errorf("takeApproval(+%v, %q %q env %v) = %q, want %q", s.at, s.command, s.args, s.env, got, s.want)
		}
	}
}

// Rules read the description: a request that is shell, conflicting,
// titled as another command, malformed, git or budget is undecidable; a path written with ".." is
// never allowed.
func TestPolicyRequestFromDescription(t *testing.T) {
	e, th, ws, _ := describeFixture(t)
	pr := func(kind, tc string) *policyRequestT {
		return policyRequest(th, hub.Permission{Kind: kind, Request: e.describeToolCall(th, json.RawMessage(tc))})
	}
	if r := pr(hub.PermKindAgent, `{"kind":"execute","title":"Run go test -run 'A B'","rawInput":{"command":"go test  -run 'A B'"}}`); r.Undecidable || r.Command != "go test -run 'A B'" || !r.HasCommand {
		t.Errorf("plain: %+v", r)
	}
	for name, r := range map[string]*policyRequestT{
		"shell":         pr(hub.PermKindAgent, `{"kind":"execute","rawInput":{"command":"go test ; touch X"}}`),
		"conflicting":   pr(hub.PermKindAgent, `{"kind":"execute","rawInput":{"command":"ls","cmd":"touch X"}}`),
		"title differs": pr(hub.PermKindAgent, `{"kind":"execute","title":"npm test","rawInput":{"command":"touch X"}}`),
		"malformed":     pr(hub.PermKindAgent, `{"kind":"read","kind":"execute"}`),
		"git":           pr(hub.PermKindGit, `{"kind":"edit","title":"x","locations":[{"path":"`+ws+`/.git/config"}]}`),
		"budget":        pr(hub.PermKindBudget, `{"kind":"other","title":"more"}`),
		"undescribed":   policyRequest(th, hub.Permission{Kind: hub.PermKindAgent}),
	} {
		if !r.Undecidable {
			t.Errorf("%s: decidable", name)
		}
	}
	if r := pr(hub.PermKindAgent, `{"kind":"read","title":"r","locations":[{"path":"`+ws+`/lnk/../x"}]}`); !r.Unresolved {
		t.Errorf("a path with .. is not unresolved: %+v", r)
	}
}

// A permission request carries a tool call update: the command the
// agent gave in its earlier tool_call is what the card shows, the
// request's own fields on top; a tool call the turn never saw is the
// request alone.
func TestToolCallState(t *testing.T) {
	e, th, ws, _ := describeFixture(t)
	tr := &turnRT{}
	upd := func(kind, raw string) {
		tr.noteToolCall(acp.SessionUpdate{Kind: kind, Raw: json.RawMessage(raw), ToolCall: &acp.ToolCall{ToolCallID: "c1"}})
	}
	upd(acp.UpdateToolCall, `{"sessionUpdate":"tool_call","toolCallId":"c1","title":"Tidy","kind":"execute","rawInput":{"command":"touch X"}}`)
	upd(acp.UpdateToolCallUpdate, `{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"pending"}`)
	d := e.describeToolCall(th, tr.toolCallState(json.RawMessage(`{"toolCallId":"c1","title":"npm test"}`)))
	if !slices.Equal(d.Argv, []string{"touch", "X"}) || d.Title != "npm test" || d.Kind != "execute" || d.Cwd != ws || !d.Has(hub.FlagTitleDiffers) {
		t.Errorf("merged: %+v", *d)
	}
	// The request's fields win.
	d = e.describeToolCall(th, tr.toolCallState(json.RawMessage(`{"toolCallId":"c1","rawInput":{"command":"ls"},"title":"ls"}`)))
	if !slices.Equal(d.Argv, []string{"ls"}) || d.Has(hub.FlagTitleDiffers) {
		t.Errorf("request on top: %+v", *d)
	}
	if got := tr.toolCallState(json.RawMessage(`{"toolCallId":"other","title":"x"}`)); string(got) != `{"toolCallId":"other","title":"x"}` {
		t.Errorf("unknown tool call: %s", got)
	}
	// Bounded: past maxToolCallsKept new tool calls are not kept.
	for i := range maxToolCallsKept + 10 {
		tr.noteToolCall(acp.SessionUpdate{Kind: acp.UpdateToolCall, Raw: json.RawMessage(`{"toolCallId":"n` + strconv.Itoa(i) + `"}`), ToolCall: &acp.ToolCall{ToolCallID: "n" + strconv.Itoa(i)}})
	}
	if len(tr.toolCalls) != maxToolCallsKept {
		t.Errorf("%d tool calls kept, want %d", len(tr.toolCalls), maxToolCallsKept)
	}
}
