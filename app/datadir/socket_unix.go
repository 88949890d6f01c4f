//go:build unix

package datadir

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// ListenSocket listens on the unix socket at path for `serve --socket`
// (a host's hub, reached through the ssh link): its folder is made 0700
// (an existing one of this user is set to 0700; one of another user is
// refused), a socket left by a hub that is gone is removed (one that
// answers is a running hub: refused), and the socket is 0600. The caller
// holds the data dir's lock, so no other hub of this data dir races it.
func ListenSocket(path string) (net.Listener, error) {
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("--socket %s: give an absolute path", path)
	}
	if len(path) > 104 { // sun_path: 108 on Linux, 104 on the BSDs
		return nil, fmt.Errorf("--socket %s: longer than a unix socket path may be (104 bytes)", path)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("--socket: %w", err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("--socket: %w", err)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return nil, fmt.Errorf("--socket: %s belongs to another user", dir)
	}
	if fi.Mode().Perm() != 0o700 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return nil, fmt.Errorf("--socket: %w", err)
		}
	}
	if _, err := os.Lstat(path); err == nil {
		if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
			c.Close()
			return nil, fmt.Errorf("--socket %s: %w", path, ErrHubRunning)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("--socket: %w", err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("--socket: %w", err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("--socket: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("--socket: %w", err)
	}
	return ln, nil
}
