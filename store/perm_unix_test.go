//go:build unix

package store

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestFileModes checks 0700/0600 whatever the umask: a permissive one (0)
// and a strict one (0277, which would strip the owner's write bit).
func TestFileModes(t *testing.T) {
	for _, umask := range []int{0, 0o277} {
		old := syscall.Umask(umask)
		dir := filepath.Join(t.TempDir(), "data", "switchboard")
		path := filepath.Join(dir, "switchboard.db")
		db, err := Open(path, Options{})
		if err == nil {
			err = db.Commit(t.Context(), writeThreads(thread("t1", "c", 1)))
		}
		syscall.Umask(old)
		if err != nil {
			t.Fatalf("umask %#o: %v", umask, err)
		}
		check := func(p string, want fs.FileMode) {
			t.Helper()
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode().Perm(); got != want {
				t.Errorf("umask %#o: %s mode %#o, want %#o", umask, filepath.Base(p), got, want)
			}
		}
		check(dir, 0o700)
		check(path, 0o600)
		check(path+"-wal", 0o600)
		check(path+"-shm", 0o600)
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFileModeTightened: an existing database file readable by others is
// made 0600 on Open.
func TestFileModeTightened(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sb.db")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	mustOpenAt(t, path, Options{})
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %#o, want 0600", fi.Mode().Perm())
	}
}

// TestFolderModesAllLevels: every folder Open creates is 0700, not only
// the last one.
func TestFolderModesAllLevels(t *testing.T) {
	old := syscall.Umask(0o277)
	root := t.TempDir()
	db, err := Open(filepath.Join(root, "a", "b", "sb.db"), Options{})
	syscall.Umask(old)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, d := range []string{"a", "a/b"} {
		fi, err := os.Stat(filepath.Join(root, d))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %#o, want 0700", d, fi.Mode().Perm())
		}
	}
}
