//go:build !unix && !windows

package acp

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// On systems with neither process groups nor job objects a child is
// signalled alone: wrappers that spawn grandchildren may leave them behind.

func startGroup(c *exec.Cmd) error { return c.Start() }

func signalGroup(pid int, sig syscall.Signal) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return os.ErrProcessDone
	}
	return p.Signal(sig)
}

func signalName(sig syscall.Signal) string { return fmt.Sprintf("SIG%d", int(sig)) }
