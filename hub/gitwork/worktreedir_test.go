package gitwork

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// worktreeDir: beside the repository by default, at the branch's path
// (its parent made), and never over something already there.
func TestWorktreeDir(t *testing.T) {
	base := t.TempDir()
	r := Repo{Top: filepath.Join(base, "app")}
	top, err := worktreeDir(r, "feat/x", "")
	if want := filepath.Join(base, "app-worktrees", "feat", "x"); err != nil || top != want {
		t.Fatalf("default location: %q %v, want %q", top, err, want)
	}
	if fi, err := os.Stat(filepath.Dir(top)); err != nil || !fi.IsDir() {
		t.Errorf("the parent %s is not made: %v", filepath.Dir(top), err)
	}
	loc := filepath.Join(base, "elsewhere")
	if err := os.MkdirAll(filepath.Join(loc, "taken"), 0o755); err != nil {
		t.Fatal(err)
	}
	if top, err := worktreeDir(r, "taken", loc); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("over an existing folder: %q %v, want an error", top, err)
	}
}
