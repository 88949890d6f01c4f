package tray

import (
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// The tray shows what the hub says an approval allows, not the agent's
// title: the command line in the entry, the details above the choices.
func TestPermissionRequestInMenu(t *testing.T) {
	p := perm("pe1", "th1", "tu1", "npm test", "allow_once", "allow_always", "reject_once")
	p.Kind = hub.PermKindAgent // the agent's own request: its title is its words
	p.Request = &hub.PermissionRequest{
		Kind: "execute", Title: "npm test", Command: "touch X", Argv: []string{"touch", "X"},
		Cwd: "/home/me/app", Env: []hub.EnvVar{{Name: "PATH", Value: "/tmp/evil:/usr/bin"}},
		Flags: []string{hub.FlagEnvProgram, hub.FlagTitleDiffers},
	}
	m := NewModel()
	m.Connect(snap())
	m.Apply(permEvent(hub.EventPermissionRequired, p))
	item := m.Menu().Permissions[0]
	if item.Title != "Claude Code: touch X" {
		t.Errorf("title %q, want the command that runs", item.Title)
	}
	want := []string{
		"Runs: touch X",
		"In: /home/me/app",
		"Sets: PATH=/tmp/evil:/usr/bin",
		"The agent says: “npm test”",
		"⚠ Sets variables that change which program runs",
		"⚠ The agent's title is not the command that runs",
	}
	if !slices.Equal(item.Details, want) {
		t.Errorf("details:\n got %q\nwant %q", item.Details, want)
	}

	ft := newFakeTray()
	ft.l.show(m.Menu())
	got := ft.visible()
	wantMenu := "Claude Code: touch X\n  [Runs: touch X]\n  [In: /home/me/app]\n  [Sets: PATH=/tmp/evil:/usr/bin]\n" +
		"  [The agent says: “npm test”]\n  [⚠ Sets variables that change which program runs]\n" +
		"  [⚠ The agent's title is not the command that runs]\n  Approve\n  Deny\n  Always allow\n"
	if !strings.Contains(got, wantMenu) {
		t.Errorf("menu:\n%s\nwant it to contain:\n%s", got, wantMenu)
	}

	// The next permission in the same slot shows only its own details.
	m.Apply(permEvent(hub.EventPermissionResolved, resolved(p, "approved")))
	m.Apply(permEvent(hub.EventPermissionRequired, perm("pe2", "th1", "tu1", "ls", "allow_once")))
	ft.l.show(m.Menu())
	if got := ft.visible(); strings.Contains(got, "Runs:") || !strings.Contains(got, "Claude Code: ls\n  Approve\n") {
		t.Errorf("details left over:\n%s", got)
	}
}

func TestPermissionDetailsCut(t *testing.T) {
	r := &hub.PermissionRequest{
		Argv: []string{"cat"}, Paths: []string{"/a", "/b", "/c", "/d", "/e", "/" + strings.Repeat("x", 200)},
		Flags: []string{hub.FlagOutside, hub.FlagDotDot},
	}
	got := details(&hub.Permission{Request: r})
	want := []string{"Runs: cat", "File: /a", "File: /b", "… more in Switchboard",
		"⚠ Reaches outside the thread's folder", "⚠ A path goes up with “..”: where it lands depends on links"}
	if !slices.Equal(got, want) {
		t.Errorf("details:\n got %q\nwant %q", got, want)
	}
	long := details(&hub.Permission{Request: &hub.PermissionRequest{Paths: []string{"/" + strings.Repeat("x", 200)}}})
	if n := len([]rune(long[0])); n != maxDetail || !strings.HasSuffix(long[0], "…") {
		t.Errorf("a long line is %d runes: %q", n, long[0])
	}
	if details(&hub.Permission{}) != nil {
		t.Error("details of no request")
	}
}

// A change to git's own settings is always asked: no "always" entry.
func TestGitPermissionNotRemembered(t *testing.T) {
	for _, kind := range []string{hub.PermKindGit, hub.PermKindBudget} {
		p := perm("pe1", "th1", "tu1", "edit config", "allow_once", "allow_always", "reject_once")
		p.Kind = kind
		p.Request = &hub.PermissionRequest{Kind: "edit", Paths: []string{"/home/me/app/.git/config"}, Flags: []string{hub.FlagGitSettings}}
		m := NewModel()
		m.Connect(snap())
		m.Apply(permEvent(hub.EventPermissionRequired, p))
		it := m.Menu().Permissions[0]
		if it.Approve == nil || it.Deny == nil || it.Always != nil || it.RememberAllow != nil || it.RememberDeny != nil {
			t.Errorf("%s: choices %+v", kind, it)
		}
		if it.Title != "Claude Code: /home/me/app/.git/config" {
			t.Errorf("%s: title %q", kind, it.Title)
		}
	}
}
