package app_test

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
)

// TestWailsJSUpToDate fails when the committed frontend/wailsjs is not what
// Wails generates from the bound Bindings and the hub types: run
// `make bindings` and commit the result. The frontend type-checks against
// the committed files (WailsBindings in frontend/src/lib/transport.ts).
//
// It regenerates without the Wails CLI, exactly as `wails generate module`
// does: build this module with the bindings tag (Wails' generator in place
// of the window; no cgo needed), run it in a scratch dir whose wails.json
// points there, and compare every file.
func TestWailsJSUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binding generator")
	}
	root := testkit.ModuleRoot(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "wailsbindings")
	build := exec.Command("go", "build", "-tags", "bindings,webkit2_41", "-o", bin, ".")
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -tags bindings: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(dir, "wails.json"), []byte(`{"name":"switchboard","wailsjsdir":"."}`), 0o600); err != nil {
		t.Fatal(err)
	}
	gen := exec.Command(bin)
	gen.Dir = dir
	gen.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"))
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("binding generator: %v\n%s", err, out)
	}
	want := readTree(t, filepath.Join(dir, "wailsjs"))
	got := readTree(t, filepath.Join(root, "frontend", "wailsjs"))
	if len(want) == 0 {
		t.Fatal("the generator wrote nothing")
	}
	var stale []string
	for name, w := range want {
		if g, ok := got[name]; !ok || !bytes.Equal(g, w) {
			stale = append(stale, name)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			stale = append(stale, name+" (not generated any more)")
		}
	}
	if len(stale) > 0 {
		slices.Sort(stale)
		t.Fatalf("frontend/wailsjs is stale (run `make bindings` and commit it): %q", stale)
	}
}

// readTree reads every file under dir, by slash path relative to dir.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
