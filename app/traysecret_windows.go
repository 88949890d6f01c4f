//go:build !headless && windows

package app

import (
	"os"
	"os/exec"
)

// passTraySecret hands the child the read end r of the secret's pipe as
// its stdin (--secret-fd 0): Windows passes a child no handles but the
// standard three (exec.Cmd.ExtraFiles is not supported there).
//
// Compiled and vetted on Linux (GOOS=windows); not run on Windows yet.
func passTraySecret(cmd *exec.Cmd, r *os.File) {
	cmd.Stdin = r
	cmd.Args = append(cmd.Args, "--secret-fd", "0")
}
