//go:build linux

package systest

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Figures of a process read from /proc, for the benchmarks.

// cpuTime is utime+stime of pid (USER_HZ = 100 on every Linux this runs on).
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+st) * 10 * time.Millisecond
}

// pssMiB is the kernel's PSS of pid (/proc/<pid>/smaps_rollup), in MiB:
// as .ci/footprint reads it.
func pssMiB(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Pss:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return float64(kb) / 1024
		}
	}
	return 0
}

// loadMeter samples the 1-minute load average every second until the
// returned function is called, which returns their mean.
func loadMeter() func() float64 {
	stop := make(chan struct{})
	mean := make(chan float64, 1)
	go func() {
		var sum float64
		n := 0
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			sum += loadAvg()
			n++
			select {
			case <-stop:
				mean <- sum / float64(n)
				return
			case <-t.C:
			}
		}
	}()
	return func() float64 { close(stop); return <-mean }
}

// loadAvg is the 1-minute load average.
func loadAvg() float64 {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return -1
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}
