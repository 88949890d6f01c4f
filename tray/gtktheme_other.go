//go:build desktop && !linux

package tray

import "log/slog"

// minimalTheme does nothing where the tray does not draw with GTK.
func minimalTheme(*slog.Logger) {}
