//go:build !unix

package editorbridge

import "os/exec"

// detach does nothing here: the started hub is an ordinary child process,
// which outlives the bridge unless its console is closed.
func detach(*exec.Cmd) {}
