//go:build !linux

package acp

import (
	"fmt"
	"os"
)

// SuperviseMain exits at once with status 2: supervisors run on Linux only
// (see SupervisorSupported). It never returns.
func SuperviseMain([]string) {
	fmt.Fprintln(os.Stderr, "switchboard supervisor: not supported on this system")
	os.Exit(2)
}
