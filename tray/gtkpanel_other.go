//go:build desktop && !linux

package tray

import "log/slog"

// whilePanelDraws does nothing where the tray does not draw with GTK.
func whilePanelDraws(*slog.Logger) {}

// onGTK runs f at once: elsewhere systray's calls are safe from any
// goroutine.
func onGTK(f func()) { f() }
