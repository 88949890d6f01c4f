package engine

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"time"
)

// processStartTime returns when pid started, from /proc, or the zero time
// when it cannot tell or pid no longer runs (a zombie: it exited and only
// its exit status waits for a reaper — after a SIGKILLed hub its agents'
// wait for init, which may take a moment). Two reads for the same running
// process give the same value.
func processStartTime(pid int) time.Time {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return time.Time{}
	}
	// Field 22 (starttime, in clock ticks since boot) follows the command
	// name, which is in parentheses and may contain spaces.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return time.Time{}
	}
	fields := strings.Fields(string(stat[i+1:]))
	if len(fields) < 20 || fields[0] == "Z" || fields[0] == "X" {
		return time.Time{}
	}
	ticks, err := strconv.ParseInt(fields[19], 10, 64)
	if err != nil {
		return time.Time{}
	}
	boot := bootTime()
	if boot == 0 {
		return time.Time{}
	}
	const clockTicks = 100 // USER_HZ on every Linux architecture Go supports
	return time.Unix(boot+ticks/clockTicks, (ticks%clockTicks)*int64(time.Second/clockTicks)).UTC()
}

func bootTime() int64 {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}
