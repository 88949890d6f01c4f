package engine

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
)

// TestZombieHasNoStartTime: a process that exited but is not reaped yet
// (what a SIGKILLed hub's agents are until init reaps them) is not a
// running agent: recovery must not try to stop it, nor say it did.
func TestZombieHasNoStartTime(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	pid := cmd.Process.Pid
	zombie := func() bool {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		i := strings.LastIndexByte(string(b), ')')
		return err == nil && i > 0 && strings.HasPrefix(string(b[i+1:]), " Z")
	}
	if !testkit.Until(10*time.Second, zombie) {
		t.Fatalf("process %d never became a zombie", pid)
	}
	if got := processStartTime(pid); !got.IsZero() {
		t.Fatalf("processStartTime(zombie %d) = %v, want zero", pid, got)
	}
}
