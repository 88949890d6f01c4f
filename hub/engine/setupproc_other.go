//go:build !unix

package engine

import "os/exec"

// ownGroup does nothing here: cancelling kills the shell only.
func ownGroup(*exec.Cmd) {}
