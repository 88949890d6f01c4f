package tray

import (
	"os"
	"runtime"
	"testing"
)

// The tray runs on one P unless the user set GOMAXPROCS (oneProc).
func TestOneProc(t *testing.T) {
	old := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { runtime.GOMAXPROCS(old) })
	if env, set := os.LookupEnv("GOMAXPROCS"); set {
		t.Cleanup(func() { os.Setenv("GOMAXPROCS", env) })
	} else {
		t.Cleanup(func() { os.Unsetenv("GOMAXPROCS") })
	}

	os.Unsetenv("GOMAXPROCS")
	runtime.GOMAXPROCS(3)
	oneProc()
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Errorf("GOMAXPROCS %d without the variable, want 1", n)
	}

	os.Setenv("GOMAXPROCS", "3")
	runtime.GOMAXPROCS(3)
	oneProc()
	if n := runtime.GOMAXPROCS(0); n != 3 {
		t.Errorf("GOMAXPROCS %d with GOMAXPROCS=3 set, want 3", n)
	}
}
