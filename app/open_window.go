//go:build !headless

package app

// showInRunningWindow asks the desktop app running on dataDir to show a
// thread: it hands this process's arguments (`open … THREAD`) over, as
// a second launch of the app would.
func showInRunningWindow(dataDir, _ string) error { return focusRunning(dataDir) }
