//go:build linux

package hosts

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// watchNetwork reads rtnetlink's link, address and route groups for the
// process's life and calls notify netSettle after each burst of changes.
// A socket that cannot be opened (a sandbox without netlink) leaves the
// links to their retries.
func watchNetwork(notify func()) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		return
	}
	groups := uint32(unix.RTMGRP_LINK | unix.RTMGRP_IPV4_IFADDR | unix.RTMGRP_IPV4_ROUTE |
		unix.RTMGRP_IPV6_IFADDR | unix.RTMGRP_IPV6_ROUTE)
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK, Groups: groups}); err != nil {
		unix.Close(fd)
		return
	}
	f := os.NewFile(uintptr(fd), "rtnetlink")
	changed := make(chan struct{}, 1)
	go func() {
		buf := make([]byte, 64<<10)
		for {
			// What changed does not matter, only that something did; an
			// overrun (ENOBUFS) is a change as well.
			if _, err := f.Read(buf); err != nil && !errors.Is(err, unix.ENOBUFS) {
				return
			}
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	}()
	go func() {
		for range changed {
			time.Sleep(netSettle) // the rest of the burst
			select {
			case <-changed:
			default:
			}
			notify()
		}
	}()
}
