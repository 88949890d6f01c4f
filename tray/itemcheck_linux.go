//go:build desktop && linux

package tray

import "C"

// The status item's registration, and what the tray guarantees of it.
//
// libayatana-appindicator (0.5.92, and its last release 0.5.94) registers
// the item with the panel's StatusNotifierWatcher from two callbacks that
// race: app_indicator_init asks for the session bus (g_bus_get) and
// watches the watcher's name (g_bus_watch_name) at once, and when the
// name appears, name_appeared_handler builds its watcher proxy on the
// connection the other callback stores. Both finish on GTK's thread but
// each g_bus_get hands its result back through a GLib worker thread;
// under load the name watcher's GetNameOwner round trip can come back
// first. The proxy is then built on no connection ("g_dbus_proxy_new:
// assertion 'G_IS_DBUS_CONNECTION (connection)' failed"), the indicator
// never calls RegisterStatusNotifierItem, and nothing retries: the item
// is exported on the bus but no panel shows it (getlantern/systray#236;
// CI's TestDBusTrayPanelGone). Nothing the tray calls decides the race:
// app_indicator_new runs inside systray.Run, before the tray's own code.
//
// So the tray checks (itemcheck_linux.c, on GTK's thread): whenever a
// StatusNotifierWatcher owns its name (at start or later), 3 s after it
// appeared it reads RegisteredStatusNotifierItems, and if no item of the
// tray's bus connection is listed while the tray's item answers on the
// bus (Id "systray"), it registers that item itself, on the same
// connection and with the same path the indicator would have sent, and
// logs it once (sbItemRegistered). It checks again 6, 12, 24, 48 and
// 96 s later until the item is listed, registering it again each time it
// is not, then logs that it gave up (sbItemNotRegistered). Guaranteed:
// with a watcher that answers and keeps what is registered, the tray's
// item is listed by the first check after it is on the bus (usually the
// one 3 s after the watcher appeared: the indicator exports it as soon
// as it has the bus), whichever side of the race the indicator landed
// on. A registration the indicator makes after the tray's is a
// duplicate, which watchers ignore. A watcher that goes away cancels the
// checks (the indicator falls back to its XEmbed icon); the next one
// starts them again. ADR 0049.

// sbItemRegistered is called on GTK's thread when the tray registered its
// status item itself, seconds after the watcher appeared.
//
//export sbItemRegistered
func sbItemRegistered(seconds C.int) {
	panelLog.Warn("tray: the status item was not registered with the StatusNotifierWatcher (libayatana-appindicator's bus race); registered it again",
		"secondsAfterWatcher", int(seconds))
}

// sbItemNotRegistered is called on GTK's thread when the watcher still
// does not list the item after the last check.
//
//export sbItemNotRegistered
func sbItemNotRegistered(seconds C.int) {
	panelLog.Warn("tray: the StatusNotifierWatcher does not list the status item; no more checks",
		"secondsAfterWatcher", int(seconds))
}
