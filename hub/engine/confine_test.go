//go:build unix

package engine

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

func TestResolvePath(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir()) // macOS: /var is a link
	if err != nil {
		t.Fatal(err)
	}
	j := func(p ...string) string { return filepath.Join(append([]string{root}, p...)...) }
	mkdir := func(p string) {
		if err := os.MkdirAll(j(p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		if err := os.Symlink(target, j(name)); err != nil {
			t.Fatal(err)
		}
	}
	mkdir("folder/sub")
	mkdir("data")
	if err := os.WriteFile(j("data", "token"), []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	link(j("data", "token"), "folder/token-link")          // absolute, to a file outside
	link("../data", "folder/data-link")                    // relative, to a folder outside
	link("sub", "folder/sub-link")                         // relative, inside
	link("sub-link", "folder/chain")                       // a link to a link
	link(j("nowhere", "file"), "folder/dangling")          // to nothing
	link("loop-b", "folder/loop-a")                        // a loop of two
	link("loop-a", "folder/loop-b")                        //
	link("self", "folder/self")                            // a loop of one
	link("../../data/missing/../token", "folder/sub/dots") // .. in a target

	tests := []struct {
		name, in, want string
		loop           bool
	}{
		{"plain", j("folder/sub"), j("folder/sub"), false},
		{"root", "/", "/", false},
		{"dot dot cleaned", j("folder/sub/../../data/token"), j("data/token"), false},
		{"dot dot above root", "/../../" + j("folder")[1:], j("folder"), false},
		{"link to a file outside", j("folder/token-link"), j("data/token"), false},
		{"link to a folder outside", j("folder/data-link/token"), j("data/token"), false},
		{"link inside", j("folder/sub-link/x.txt"), j("folder/sub/x.txt"), false},
		{"chain of links", j("folder/chain/a/b"), j("folder/sub/a/b"), false},
		// The kernel follows the link before "..": data-link/.. is root, not folder.
		// (root + "/…": filepath.Join would clean the ".." away first.)
		{"dot dot after a link", root + "/folder/data-link/../data/token", j("data/token"), false},
		{"dot dot after a link, lexically elsewhere", root + "/folder/data-link/../folder/x", j("folder/x"), false},
		{"dot dot after a link inside", root + "/folder/sub-link/../sub/x", j("folder/sub/x"), false},
		{"missing tail", j("folder/new/dir/file.txt"), j("folder/new/dir/file.txt"), false},
		{"missing tail then dot dot", j("folder/new/../sub"), j("folder/sub"), false},
		{"dangling link followed", j("folder/dangling"), j("nowhere/file"), false},
		{"dot dot in a link target", j("folder/sub/dots"), j("data/token"), false},
		{"dot dot after a link", j("folder/data-link/../folder"), j("folder/folder"), false}, // cleaned first, as written
		{"loop of two", j("folder/loop-a"), "", true},
		{"loop of one under a tail", j("folder/self/x"), "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := resolvePath(tt.in)
			if tt.loop {
				if !errors.Is(err, errSymlinkLoop) {
					t.Fatalf("resolvePath(%s) = %q, %v: want a loop error", tt.in, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("resolvePath(%s) = %q, %v: want %q", tt.in, got, err, tt.want)
			}
		})
	}

	for _, bad := range []string{"", "rel/path", "./x", "../x"} {
		if got, err := resolvePath(bad); err == nil {
			t.Errorf("resolvePath(%q) = %q: want an error (relative)", bad, got)
		}
	}
	if got, err := resolvePath(j("data/token/under-a-file")); err == nil {
		t.Errorf("a file used as a folder resolved to %q", got)
	}
}

func TestWithin(t *testing.T) {
	tests := []struct {
		p, root string
		want    bool
	}{
		{"/a/b", "/a/b", true},
		{"/a/b/c", "/a/b", true},
		{"/a/bc", "/a/b", false},
		{"/a", "/a/b", false},
		{"/anything", "/", true},
	}
	for _, tt := range tests {
		if got := within(tt.p, tt.root); got != tt.want {
			t.Errorf("within(%q, %q) = %v, want %v", tt.p, tt.root, got, tt.want)
		}
	}
}

func TestFolderRules(t *testing.T) {
	matches := []struct {
		glob, dir string
		want      bool
	}{
		{"/home/me/work", "/home/me/work", true},
		{"/home/me/work", "/home/me/work/app", false},
		{"/home/me/work/*", "/home/me/work/app", true},
		{"/home/me/work/*", "/home/me/work/app/sub", false},
		{"/home/me/work/**", "/home/me/work", true},
		{"/home/me/work/**", "/home/me/work/app/sub", true},
		{"/home/me/**/app", "/home/me/a/b/app", true},
		{"/home/me/**/app", "/home/me/app", true},
		{"/home/me/**/app", "/home/me/a/b/other", false},
		{"/**", "/anything/at/all", true},
		{"/home/me/work.d/*", "/home/me/work.d/x", true},
		{"/home/me/w?rk/[ab]", "/home/me/work/a", true},
	}
	for _, tt := range matches {
		if got := MatchFolder(tt.glob, tt.dir); got != tt.want {
			t.Errorf("MatchFolder(%q, %q) = %v, want %v", tt.glob, tt.dir, got, tt.want)
		}
	}
	for _, bad := range []string{"rel/*", "~/x", "/a/[b"} {
		if CheckFolderGlob(bad) == nil {
			t.Errorf("CheckFolderGlob(%q): want an error", bad)
		}
	}
	if err := CheckFolderGlob("/a/**/b*"); err != nil {
		t.Errorf("CheckFolderGlob: %v", err)
	}

	c := Config{Folders: []FolderRule{
		{Glob: "/home/me/work/app", AllowedFolders: []string{"/exact"}},
		{Glob: "/**", AllowedFolders: []string{"/everywhere"}},
		{Glob: "/home/me/work/**", AllowedFolders: []string{"/work-shared"}},
		{Glob: "/home/me/work/*"}, // sets nothing: ignored
		{Glob: "/home/me/quiet/**", AllowedFolders: []string{}},
	}}
	for _, tt := range []struct {
		cwd  string
		want []string
	}{
		{"/home/me/work/app", []string{"/exact"}},
		{"/home/me/work/lib", []string{"/work-shared"}},
		{"/home/me/work", []string{"/work-shared"}},
		{"/srv/x", []string{"/everywhere"}},
		{"/home/me/quiet/x", []string{}},
	} {
		got := c.allowedFor(tt.cwd)
		if b, w := mustJSON(got), mustJSON(tt.want); b != w {
			t.Errorf("allowedFor(%s) = %s, want %s", tt.cwd, b, w)
		}
	}
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

// With no running turn nobody can be asked: outside the thread's folders
// an fs request or a terminal is refused; inside it is served; a protected
// path never.
func TestConfinementWithoutTurn(t *testing.T) {
	cwd, outside, data := t.TempDir(), t.TempDir(), t.TempDir()
	for _, p := range []string{filepath.Join(cwd, "in.txt"), filepath.Join(outside, "out.txt"), filepath.Join(data, "token")} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	e := &Engine{log: slog.New(slog.DiscardHandler), cfg: DefaultConfig(), protected: protectedRoots([]string{data})}
	c := &threadClient{e: e, rt: &threadRT{}, thread: hub.Thread{ID: "th", Cwd: cwd}}
	ctx := context.Background()
	reason := func(err error) string {
		var ae *acp.Error
		if !errors.As(err, &ae) {
			return ""
		}
		var d struct{ Reason string }
		json.Unmarshal(ae.Data, &d)
		return d.Reason
	}
	if r, err := c.ReadTextFile(ctx, acp.ReadTextFileRequest{Path: filepath.Join(cwd, "in.txt")}); err != nil || r.Content != "x" {
		t.Errorf("inside: %+v, %v", r, err)
	}
	if _, err := c.ReadTextFile(ctx, acp.ReadTextFileRequest{Path: filepath.Join(outside, "out.txt")}); reason(err) != reasonDenied {
		t.Errorf("outside without a turn: %v, want %s", err, reasonDenied)
	}
	if _, err := c.WriteTextFile(ctx, acp.WriteTextFileRequest{Path: filepath.Join(outside, "new.txt")}); reason(err) != reasonDenied {
		t.Errorf("write outside without a turn: %v, want %s", err, reasonDenied)
	}
	if _, err := os.Stat(filepath.Join(outside, "new.txt")); err == nil {
		t.Error("written")
	}
	if _, err := c.ReadTextFile(ctx, acp.ReadTextFileRequest{Path: filepath.Join(data, "token")}); reason(err) != reasonProtected {
		t.Errorf("protected: %v, want %s", err, reasonProtected)
	}
	if _, err := c.ReadTextFile(ctx, acp.ReadTextFileRequest{Path: "rel.txt"}); err == nil {
		t.Error("a relative path was served")
	}
	if _, err := c.AuthorizeTerminal(ctx, acp.CreateTerminalRequest{Command: "true"}, cwd); reason(err) != reasonDenied {
		t.Errorf("terminal without a turn: %v, want %s", err, reasonDenied)
	}
	if _, err := c.AuthorizeTerminal(ctx, acp.CreateTerminalRequest{Command: "true"}, outside); reason(err) != reasonOutside {
		t.Errorf("terminal outside: %v, want %s", err, reasonOutside)
	}
}
