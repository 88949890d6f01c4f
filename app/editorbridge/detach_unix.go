//go:build unix

package editorbridge

import (
	"os/exec"
	"syscall"
)

// detach puts a hub the editor bridge starts in its own session, so that
// it outlives the bridge and the editor's signals to the bridge's group.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
