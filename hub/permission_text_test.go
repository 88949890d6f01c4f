package hub

import (
	"slices"
	"testing"
)

func TestShellQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"npm", "npm"},
		{"--flag=a,b", "--flag=a,b"},
		{"", "''"},
		{"two words", "'two words'"},
		{"it's", `'it'\''s'`},
		{"a;b", "'a;b'"},
		{"$(id)", "'$(id)'"},
		{"line\nbreak", `$'line\nbreak'`},
		{"bidi\u202eevil", `$'bidi\u202eevil'`},
		{"é", "'é'"},
	} {
		if got := ShellQuote(tc.in); got != tc.want {
			t.Errorf("ShellQuote(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestPermissionRequestLines(t *testing.T) {
	r := &PermissionRequest{
		Kind: "execute", Title: "npm test", Command: "touch X",
		Argv: []string{"touch", "my file"}, Cwd: "/home/u/p",
		Env:   []EnvVar{{Name: "PATH", Value: "/tmp/evil:/usr/bin"}, {Name: "TOKEN", Hidden: true}},
		Flags: []string{FlagEnvProgram, FlagTitleDiffers},
	}
	want := []string{
		"Runs: touch 'my file'",
		"In: /home/u/p",
		"Sets: PATH=/tmp/evil:/usr/bin TOKEN (value not shown)",
		"The agent says: “npm test”",
		"⚠ Sets variables that change which program runs",
		"⚠ The agent's title is not the command that runs",
	}
	if got := r.Lines(); !slices.Equal(got, want) {
		t.Errorf("Lines:\n got %q\nwant %q", got, want)
	}
	if got := r.Summary(); got != "touch 'my file'" {
		t.Errorf("Summary = %q", got)
	}
}

func TestPermissionRequestSummary(t *testing.T) {
	for name, tc := range map[string]struct {
		r    *PermissionRequest
		want string
	}{
		"nil":     {nil, ""},
		"shell":   {&PermissionRequest{Command: "a; b", Argv: []string{"/bin/sh", "-c", "a; b"}}, "/bin/sh -c 'a; b'"},
		"command": {&PermissionRequest{Command: "ls\n-l"}, `ls\n-l`},
		"paths":   {&PermissionRequest{Title: "Edit", Paths: []string{"/a", "/b"}}, "/a, /b"},
		"title":   {&PermissionRequest{Title: "Think"}, "“Think”"},
		"empty":   {&PermissionRequest{}, ""},
	} {
		t.Run(name, func(t *testing.T) {
			if got := tc.r.Summary(); got != tc.want {
				t.Errorf("Summary = %q, want %q", got, tc.want)
			}
		})
	}
	var r *PermissionRequest
	if r.Lines() != nil || r.Warnings() != nil || r.EnvText() != nil {
		t.Error("a nil request renders something")
	}
}

func TestPermissionRequestFileLines(t *testing.T) {
	r := &PermissionRequest{Kind: "edit", Paths: []string{"/p/.git/config"}, Flags: []string{FlagDotDot, FlagGitSettings, FlagOutside}}
	want := []string{
		"File: /p/.git/config",
		"⚠ A path goes up with “..”: where it lands depends on links",
		"⚠ Changes git's own settings — git may run commands from these files",
		"⚠ Reaches outside the thread's folder",
	}
	if got := r.Lines(); !slices.Equal(got, want) {
		t.Errorf("Lines:\n got %q\nwant %q", got, want)
	}
}

func TestFlagWords(t *testing.T) {
	seen := map[string]string{}
	for _, f := range []string{FlagShell, FlagConflicting, FlagTitleDiffers, FlagMalformed, FlagDotDot, FlagOutside, FlagGitSettings, FlagEnvProgram, FlagOverlap} {
		w := FlagWords(f)
		if w == FlagWords("something-new") {
			t.Errorf("flag %s has no words of its own", f)
		}
		if other, dup := seen[w]; dup {
			t.Errorf("flags %s and %s read alike", f, other)
		}
		seen[w] = f
	}
}

func TestKindWords(t *testing.T) {
	for _, tc := range []struct{ kind, acp, want string }{
		{PermKindTerminal, "execute", "Run a command"},
		{PermKindFile, "read", "Read a file outside the folder"},
		{PermKindFile, "edit", "Write a file outside the folder"},
		{PermKindGit, "edit", "Change git's own settings"},
		{PermKindBudget, "", "Spending limit"},
		{PermKindAgent, "execute", "Agent request: run a command"},
		{PermKindAgent, "", "Agent request"},
		{"", "weird", "Agent request"},
	} {
		if got := KindWords(tc.kind, tc.acp); got != tc.want {
			t.Errorf("KindWords(%q, %q) = %q, want %q", tc.kind, tc.acp, got, tc.want)
		}
	}
	if Rememberable(PermKindGit) || Rememberable(PermKindBudget) || !Rememberable(PermKindTerminal) || !Rememberable("") {
		t.Error("Rememberable")
	}
}

// A spending limit's title is the hub's words: never "The agent says".
func TestPermissionLinesBudget(t *testing.T) {
	p := &Permission{Kind: PermKindBudget, Request: &PermissionRequest{Title: "Daily limit $5.00 reached: $5.12 spent", Flags: []string{FlagMalformed}}}
	want := []string{"Daily limit $5.00 reached: $5.12 spent", "⚠ Part of the request could not be read: check it closely"}
	if got := p.Lines(); !slices.Equal(got, want) {
		t.Errorf("Lines %q, want %q", got, want)
	}
	if got := p.Summary(); got != want[0] {
		t.Errorf("Summary %q", got)
	}
	a := &Permission{Kind: PermKindAgent, Request: &PermissionRequest{Title: "npm test", Argv: []string{"ls"}}}
	if got := a.Lines(); !slices.Equal(got, []string{"Runs: ls", "The agent says: “npm test”"}) || a.Summary() != "ls" {
		t.Errorf("an agent's Lines %q, Summary %q", got, a.Summary())
	}
	tt := &Permission{Kind: PermKindTerminal, Request: &PermissionRequest{Title: "ls", Argv: []string{"ls"}}}
	if got := tt.Lines(); !slices.Equal(got, []string{"Runs: ls"}) {
		t.Errorf("a hub terminal's Lines %q", got)
	}
	g := &Permission{Kind: PermKindGit, Request: &PermissionRequest{Title: "Change git's own settings: /p/.git/config", Paths: []string{"/p/.git/config"}}}
	if got := g.Lines(); !slices.Equal(got, []string{"File: /p/.git/config"}) || g.Summary() != "/p/.git/config" {
		t.Errorf("a hub title is shown as the agent's: %q, %q", got, g.Summary())
	}
	if (&Permission{}).Lines() != nil || (&Permission{}).Summary() != "" {
		t.Error("a permission without a request renders something")
	}
}

func TestPermissionDescribed(t *testing.T) {
	for _, tc := range []struct {
		p    Permission
		want bool
	}{
		{Permission{}, false},
		{Permission{Kind: PermKindAgent, Request: &PermissionRequest{Title: "Run make clean"}}, false},
		{Permission{Request: &PermissionRequest{Title: "x", Flags: []string{FlagMalformed}}}, false},
		{Permission{Kind: PermKindAgent, Request: &PermissionRequest{Argv: []string{"ls"}}}, true},
		{Permission{Kind: PermKindAgent, Request: &PermissionRequest{Paths: []string{"/a"}}}, true},
		{Permission{Kind: PermKindBudget, Request: &PermissionRequest{Title: "$5"}}, true},
		{Permission{Kind: PermKindTerminal, Request: &PermissionRequest{}}, true},
	} {
		if got := tc.p.Described(); got != tc.want {
			t.Errorf("%+v Described = %v", tc.p, got)
		}
	}
}
