//go:build linux

package systest

import (
	"time"

	"github.com/switchboard-hub/switchboard/app/hubbench/procfig"
)

// Figures of a process read from /proc, for the benchmarks (procfig); a
// process gone reads 0.

// cpuTime is utime+stime of pid.
func cpuTime(pid int) time.Duration { d, _ := procfig.CPUTime(pid); return d }

// pssMiB is the kernel's PSS of pid, in MiB.
func pssMiB(pid int) float64 { m, _ := procfig.PSSMiB(pid); return m }

// loadMeter samples the 1-minute load average every second until the
// returned function is called, which returns their mean.
var loadMeter = procfig.LoadMeter
