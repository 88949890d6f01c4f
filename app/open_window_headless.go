//go:build headless

package app

// showInRunningWindow: the headless build has no window code; the thread
// opens in the browser.
func showInRunningWindow(string, string) error { return errNoWindow }
