//go:build !unix

package acptest

import "syscall"

// newSessionAttr: no sessions here; the daemon is a plain child.
func newSessionAttr() *syscall.SysProcAttr { return nil }
