//go:build unix

package engine

import (
	"os/exec"
	"syscall"
)

// ownGroup makes c lead a process group of its own, so that cancelling a
// worktree setup kills what its commands started too (killGroup).
func ownGroup(c *exec.Cmd) { c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }
