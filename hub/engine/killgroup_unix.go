//go:build unix && !linux

package engine

import "syscall"

// killGroup kills the process group led by pid (agents run in their own).
func killGroup(pid int) { syscall.Kill(-pid, syscall.SIGKILL) }
