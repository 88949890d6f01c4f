//go:build !unix

package acptest

import (
	"fmt"
	"os"
)

// AttachEnv: see the Unix version; shared fake agents need Unix sockets.
const AttachEnv = "FAKEAGENT_ATTACH"

func attach(string) int {
	fmt.Fprintln(os.Stderr, "fakeagent: attach: needs a Unix system")
	return 1
}
