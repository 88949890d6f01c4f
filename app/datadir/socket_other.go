//go:build !unix

package datadir

import (
	"errors"
	"net"
)

// ListenSocket: `serve --socket` is for Unix hosts only.
func ListenSocket(string) (net.Listener, error) {
	return nil, errors.New("--socket: unix sockets are served on Linux and the BSDs only")
}
