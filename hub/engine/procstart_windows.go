package engine

import (
	"time"

	"golang.org/x/sys/windows"
)

// processStartTime returns when pid started (GetProcessTimes' creation
// time), or the zero time when it cannot tell. Two reads for the same
// process give the same value.
//
// Compiled and vetted on Linux (GOOS=windows CGO_ENABLED=0); not run on
// Windows yet (docs/building.md lists it).
func processStartTime(pid int) time.Time {
	if pid <= 0 {
		return time.Time{}
	}
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return time.Time{}
	}
	defer windows.CloseHandle(h)
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return time.Time{}
	}
	return time.Unix(0, created.Nanoseconds()).UTC()
}

// killGroup kills pid, an agent left by a hub that crashed. Its job object
// (acp starts every agent in one, kill-on-close) went with the crashed hub,
// which killed the rest of its processes already; this is the backstop for
// an agent that somehow outlived it.
func killGroup(pid int) {
	h, err := windows.OpenProcess(windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return
	}
	defer windows.CloseHandle(h)
	_ = windows.TerminateProcess(h, 1)
}
