//go:build !linux && !headless

package app

import "errors"

// focusRunning is not implemented off Linux: a second launch reports that
// the data dir is locked by the running hub (the lock is taken before
// Wails starts, so its SingleInstanceLock never gets to hand over).
func focusRunning(string) error { return errors.New("not supported") }
