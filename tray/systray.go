//go:build desktop

package tray

import (
	"context"

	"github.com/getlantern/systray"

	"github.com/switchboard-hub/switchboard/tray/icon"
)

// run shows the icon and its menu until ctx is done or "Quit tray" is chosen.
// systray.Run must be called on the main goroutine: it locks the OS thread
// GTK runs on.
func run(ctx context.Context, _ Options) error {
	done := make(chan struct{})
	onReady := func() {
		systray.SetIcon(icon.TrayPNG)
		systray.SetTooltip(Tooltip)
		for _, it := range menu {
			mi := systray.AddMenuItem(it.title, it.tooltip)
			if it.disabled {
				mi.Disable()
			}
			if it.quit {
				go func() {
					select {
					case <-mi.ClickedCh:
						systray.Quit()
					case <-done:
					}
				}()
			}
		}
		go func() {
			select {
			case <-ctx.Done():
				systray.Quit()
			case <-done:
			}
		}()
	}
	systray.Run(onReady, func() { close(done) })
	return nil
}
