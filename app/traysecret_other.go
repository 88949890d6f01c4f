//go:build !headless && !windows

package app

import (
	"os"
	"os/exec"
)

// passTraySecret hands the child the read end r of the secret's pipe as
// its fd 3 (the first of ExtraFiles) and tells it so (--secret-fd 3).
func passTraySecret(cmd *exec.Cmd, r *os.File) {
	cmd.ExtraFiles = []*os.File{r}
	cmd.Args = append(cmd.Args, "--secret-fd", "3")
}
