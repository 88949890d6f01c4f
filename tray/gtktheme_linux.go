//go:build desktop && linux

package tray

/*
#cgo pkg-config: gtk+-3.0
#include <stddef.h>
int sb_theme_register(const void *data, size_t len);
void sb_theme_watch(void);
*/
import "C"

import (
	_ "embed"
	"log/slog"
	"os"
	"unsafe"
)

//go:generate glib-compile-resources --sourcedir=gtktheme --target=gtktheme/gtktheme.gresource gtktheme/gtktheme.gresource.xml

// gtkThemeResource is gtktheme/gtk.css (empty) compiled as a GResource at
// /org/gtk/libgtk/theme/switchboard-tray/gtk.css, where GTK looks first for
// a theme named switchboard-tray.
//
//go:embed gtktheme/gtktheme.gresource
var gtkThemeResource []byte

// gtkThemeName is the theme GTK_THEME names while the panel draws the menu.
const gtkThemeName = "switchboard-tray"

// themeLog is the tray's log, for sbThemeRestored.
var themeLog *slog.Logger

// minimalTheme gives GTK an empty theme (GTK_THEME=switchboard-tray) for
// as long as a StatusNotifierWatcher owns its name on the session bus,
// unless the user set GTK_THEME. With a watcher the panel draws the icon
// and the menu (appindicator exports it over D-Bus), so the tray's GTK
// draws nothing, yet GTK parses its theme when appindicator first asks for
// the icon theme: Adwaita is ~1.8 MiB of heap that nothing reads
// (docs/PERFORMANCE.md "The desktop's footprint"). When the watcher is
// missing at start or goes away, libayatana-appindicator falls back to an
// XEmbed tray icon whose menu GTK draws: then the user's theme comes back
// (sbThemeRestored), before or while that happens, and stays.
//
// Called before GTK starts, like noGL; what the tray starts gets the
// environment from before (childEnv).
func minimalTheme(log *slog.Logger) {
	if _, set := os.LookupEnv("GTK_THEME"); set {
		return
	}
	if C.sb_theme_register(unsafe.Pointer(&gtkThemeResource[0]), C.size_t(len(gtkThemeResource))) == 0 {
		log.Warn("tray: the empty GTK theme did not register; GTK loads the user's theme")
		return
	}
	themeLog = log
	os.Setenv("GTK_THEME", gtkThemeName)
	C.sb_theme_watch()
	log.Info("tray: empty GTK theme while a StatusNotifierWatcher shows the menu")
}

// sbThemeRestored is called on GTK's thread once the user's theme is back.
//
//export sbThemeRestored
func sbThemeRestored() {
	themeLog.Info("tray: no StatusNotifierWatcher: the user's GTK theme is back for the XEmbed tray icon")
}
