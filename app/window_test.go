package app

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWindowState(t *testing.T) {
	dir := t.TempDir()
	if _, ok := loadWindowState(dir); ok {
		t.Fatal("a state without a file")
	}
	want := windowState{X: -5, Y: 30, Width: 1000, Height: 600, Maximised: true}
	if err := saveWindowState(dir, want); err != nil {
		t.Fatal(err)
	}
	if got, ok := loadWindowState(dir); !ok || got != want {
		t.Fatalf("loaded %+v %v, want %+v", got, ok, want)
	}
	if err := saveWindowState(dir, windowState{Width: 10, Height: 10}); err == nil {
		t.Error("a window smaller than the minimum was saved")
	}
	for _, bad := range []string{"", "{", `{"width":100,"height":100}`, `{"width":99999,"height":600}`} {
		os.WriteFile(filepath.Join(dir, windowFile), []byte(bad), 0o600)
		if s, ok := loadWindowState(dir); ok {
			t.Errorf("%q loaded as %+v", bad, s)
		}
	}
	a, again := instanceID("/a"), instanceID(filepath.Clean("/a/"))
	if a == instanceID("/b") || a != again {
		t.Error("instanceID is not one per data dir")
	}
}

// Quit and a signal can both save the geometry at once: every save must
// succeed and leave one whole file (they once shared a temp file's name).
func TestWindowStateConcurrentSaves(t *testing.T) {
	dir := t.TempDir()
	errs := make(chan error, 16)
	for i := range 16 {
		go func() { errs <- saveWindowState(dir, windowState{X: i, Width: 800 + i, Height: 600}) }()
	}
	for range 16 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if s, ok := loadWindowState(dir); !ok || s.Width != 800+s.X {
		t.Fatalf("after concurrent saves: %+v %v", s, ok)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
