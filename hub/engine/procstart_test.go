//go:build linux || darwin || windows

package engine

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"
)

// processStartTime is how recovery tells a recorded agent from a process
// that reused its pid: it must be stable for a live process, and zero for
// one that is gone.
func TestProcessStartTime(t *testing.T) {
	self := processStartTime(os.Getpid())
	if self.IsZero() {
		t.Fatalf("processStartTime(own pid) is zero")
	}
	if again := processStartTime(os.Getpid()); !again.Equal(self) {
		t.Fatalf("two reads differ: %v, then %v", self, again)
	}
	if self.After(time.Now().Add(time.Second)) {
		t.Fatalf("start time %v is in the future", self)
	}

	name, args := "sleep", []string{"0"}
	if runtime.GOOS == "windows" {
		name, args = "cmd", []string{"/c", "exit 0"}
	}
	cmd := exec.Command(name, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	// Reaped: nothing has that pid (a reuse this soon is vanishingly unlikely).
	if got := processStartTime(pid); !got.IsZero() {
		t.Fatalf("processStartTime(reaped pid %d) = %v, want zero", pid, got)
	}
	if got := processStartTime(-1); !got.IsZero() {
		t.Fatalf("processStartTime(-1) = %v, want zero", got)
	}
}
