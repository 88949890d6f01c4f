//go:build desktop && linux

package tray

/*
#cgo pkg-config: gtk+-3.0 atk-bridge-2.0
#include <stddef.h>
int sb_theme_register(const void *data, size_t len);
void sb_panel_watch(int theme, int bridge);
void sb_on_gtk(void);
*/
import "C"

import (
	_ "embed"
	"log/slog"
	"os"
	"sync"
	"unsafe"
)

// gtkThemeResource is gtktheme/gtk.css (empty) compiled as a GResource at
// /org/gtk/libgtk/theme/switchboard-tray/gtk.css, where GTK looks first for
// a theme named switchboard-tray.
//
//go:embed gtktheme/gtktheme.gresource
var gtkThemeResource []byte

// gtkThemeName is the theme GTK_THEME names while the panel draws the menu.
const gtkThemeName = "switchboard-tray"

// panelLog is the tray's log, for what GTK's thread reports (sbPanelGone,
// sbPanelBack, sbItemRegistered, sbItemNotRegistered).
var panelLog *slog.Logger

// whilePanelDraws keeps GTK from loading what only drawing needs, for as
// long as a StatusNotifierWatcher owns its name on the session bus: there
// the panel draws the icon and the menu (appindicator exports it over
// D-Bus), reads it to screen readers itself, and the tray's GTK draws
// nothing. Each unless the user set it:
//   - GTK_THEME=switchboard-tray, an empty theme: GTK parses its theme
//     when appindicator first asks for the icon theme, and Adwaita is
//     ~1.5 MiB of heap nothing reads;
//   - NO_AT_BRIDGE=1: no AT-SPI bridge exporting widgets nobody sees
//     (~0.3 MiB).
//
// When the watcher is missing at start or goes away, libayatana-appindicator
// falls back to an XEmbed tray icon whose menu GTK draws: then the user's
// theme comes back and the accessibility bridge starts (sbPanelGone); a
// watcher that shows up later (a panel starting after the tray) brings
// the empty theme back, the bridge stays (docs/PERFORMANCE.md "The
// desktop's footprint", DECISIONS.md 0023). Called before GTK starts,
// like noGL; what the tray starts gets the environment from before
// (childEnv). The watch it starts also checks, whatever the user set,
// that the status item gets registered with each watcher
// (itemcheck_linux.go).
func whilePanelDraws(log *slog.Logger) {
	theme := false
	if _, set := os.LookupEnv("GTK_THEME"); !set {
		if C.sb_theme_register(unsafe.Pointer(&gtkThemeResource[0]), C.size_t(len(gtkThemeResource))) != 0 {
			os.Setenv("GTK_THEME", gtkThemeName)
			theme = true
		} else {
			log.Warn("tray: the empty GTK theme did not register; GTK loads the user's theme")
		}
	}
	bridge := false
	if _, set := os.LookupEnv("NO_AT_BRIDGE"); !set {
		os.Setenv("NO_AT_BRIDGE", "1")
		bridge = true
	}
	panelLog = log
	C.sb_panel_watch(cbool(theme), cbool(bridge))
	if theme || bridge {
		log.Info("tray: while a StatusNotifierWatcher draws the menu, GTK has no theme or accessibility bridge",
			"emptyTheme", theme, "noBridge", bridge)
	}
}

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// sbPanelGone is called on GTK's thread when no StatusNotifierWatcher
// owns its name and what whilePanelDraws left out is back: theme and
// bridge say what came back, bridgeResult is atk_bridge_adaptor_init's
// (0: started).
//
//export sbPanelGone
func sbPanelGone(theme, bridge, bridgeResult C.int) {
	panelLog.Info("tray: no StatusNotifierWatcher: GTK draws the XEmbed tray icon's menu",
		"userTheme", theme != 0, "accessibilityBridge", bridge != 0 && bridgeResult == 0)
}

// sbPanelBack is called on GTK's thread when a StatusNotifierWatcher shows
// up after the user's theme came back: the empty one is back.
//
//export sbPanelBack
func sbPanelBack() {
	panelLog.Info("tray: a StatusNotifierWatcher draws the menu again: GTK's theme is empty again")
}

// gtkQueue holds what onGTK hands GTK's thread, in order.
var gtkQueue struct {
	sync.Mutex
	fns []func()
}

// onGTK runs f on GTK's thread (the default main context), after what
// was handed it before. systray.SetTitle calls libayatana-appindicator
// from the calling goroutine, unlike systray's other calls, and the
// indicator is not thread-safe: from any other thread it races GTK's own
// use of it. (The tray that now and then never registered with the panel
// was not this race but the indicator's own: itemcheck_linux.go.)
func onGTK(f func()) {
	gtkQueue.Lock()
	gtkQueue.fns = append(gtkQueue.fns, f)
	gtkQueue.Unlock()
	C.sb_on_gtk()
}

// sbRunQueued runs, on GTK's thread, what onGTK queued.
//
//export sbRunQueued
func sbRunQueued() {
	gtkQueue.Lock()
	fns := gtkQueue.fns
	gtkQueue.fns = nil
	gtkQueue.Unlock()
	for _, f := range fns {
		f()
	}
}
