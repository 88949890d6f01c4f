//go:build !linux

package acp

import "syscall"

// KillTree kills the process group pgid (here, without a walk of /proc,
// descendants that left the group are not found).
//
// The caller must have made sure that pgid is still the process it started
// (same start time), since a pid is reused: recovery does.
func KillTree(pgid int) { _ = signalGroup(pgid, syscall.SIGKILL) }
