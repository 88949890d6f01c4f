//go:build linux

package procfig

import (
	"os"
	"testing"
)

// sink keeps the loop below from being optimised away.
var sink int

// This process's own figures read back as a Linux process has them.
func TestOwnFigures(t *testing.T) {
	for i := range 100_000_000 { // some CPU time to read (over USER_HZ's 10 ms)
		sink += i * i
	}
	if d, err := CPUTime(os.Getpid()); err != nil || d <= 0 {
		t.Errorf("CPUTime = %v, %v; want a positive time", d, err)
	}
	if m, err := PSSMiB(os.Getpid()); err != nil || m <= 0 {
		t.Errorf("PSSMiB = %v, %v; want a positive size", m, err)
	}
	if l := LoadAvg(); l < 0 {
		t.Errorf("LoadAvg = %v", l)
	}
	if _, err := CPUTime(-1); err == nil {
		t.Error("CPUTime of no process: no error")
	}
}
