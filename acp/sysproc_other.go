//go:build !unix

package acp

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// On systems without process groups (Windows) a child is signalled alone:
// wrappers that spawn grandchildren may leave them behind there.

func startGroup(c *exec.Cmd) error { return c.Start() }

func signalGroup(pid int, sig syscall.Signal) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return os.ErrProcessDone
	}
	return p.Signal(sig)
}

func signalName(sig syscall.Signal) string { return fmt.Sprintf("SIG%d", int(sig)) }
