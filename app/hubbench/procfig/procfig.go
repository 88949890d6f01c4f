// Package procfig reads a process's and the machine's figures from Linux's
// /proc for the benchmarks measured from outside (app/hubbench, the host
// benchmarks of app/systest): CPU time, PSS, the load average and the CPU
// time a hypervisor stole (steal.go). On another system each read fails
// (or the load is -1).
package procfig

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTick is USER_HZ, the unit of /proc/<pid>/stat's times (100 on
// every Linux this runs on).
const clockTick = 10 * time.Millisecond

// CPUTime is utime+stime of pid.
func CPUTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command, which is in parentheses and may hold blanks.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)  // field 14, utime
	st, err2 := strconv.ParseInt(f[12], 10, 64) // field 15, stime
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("bad /proc/%d/stat", pid)
	}
	return time.Duration(u+st) * clockTick, nil
}

// PSSMiB is the kernel's PSS of pid (/proc/<pid>/smaps_rollup) in MiB, as
// .ci/footprint reads it.
func PSSMiB(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Pss:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			if err != nil {
				return 0, fmt.Errorf("/proc/%d/smaps_rollup: %s", pid, line)
			}
			return float64(kb) / 1024, nil
		}
	}
	return 0, fmt.Errorf("/proc/%d/smaps_rollup has no Pss", pid)
}

// LoadAvg is the 1-minute load average; -1 when it cannot be read.
func LoadAvg() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return -1
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return -1
	}
	return v
}

// LoadMeter samples LoadAvg every second, from now until the function it
// returns is called; that returns the samples' mean.
func LoadMeter() func() float64 {
	stop := make(chan struct{})
	mean := make(chan float64, 1)
	go func() {
		var sum float64
		n := 0
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			sum += LoadAvg()
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
