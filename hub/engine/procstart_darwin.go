package engine

import (
	"time"

	"golang.org/x/sys/unix"
)

// processStartTime returns when pid started, from the kernel's process
// table (sysctl kern.proc.pid, no cgo), or the zero time when it cannot
// tell. Two reads for the same process give the same value.
//
// Compiled and vetted on Linux (GOOS=darwin CGO_ENABLED=0); not run on
// macOS yet (docs/building.md lists it).
func processStartTime(pid int) time.Time {
	if pid <= 0 {
		return time.Time{}
	}
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || kp == nil || int(kp.Proc.P_pid) != pid {
		return time.Time{} // no such process: sysctl answers an empty record
	}
	tv := kp.Proc.P_starttime
	if tv.Sec == 0 && tv.Usec == 0 {
		return time.Time{}
	}
	return time.Unix(tv.Sec, int64(tv.Usec)*int64(time.Microsecond)).UTC()
}
