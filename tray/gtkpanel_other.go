//go:build desktop && !linux

package tray

import "log/slog"

// whilePanelDraws does nothing where the tray does not draw with GTK.
func whilePanelDraws(*slog.Logger) {}
