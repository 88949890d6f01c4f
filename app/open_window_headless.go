//go:build headless

package app

import "errors"

// showInRunningWindow: the headless build has no window code; the thread
// opens in the browser.
func showInRunningWindow(string, string) error { return errors.New("no window in this build") }
