//go:build unix

package acptest

import "syscall"

// newSessionAttr starts a process in a new session.
func newSessionAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
