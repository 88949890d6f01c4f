//go:build !unix

package daemon

import (
	"errors"
	"io"
)

// Start: a daemon hub is for Unix hosts only.
func Start(string, io.Writer, ...string) error {
	return errors.New("--daemon: hosts run on Linux only")
}
