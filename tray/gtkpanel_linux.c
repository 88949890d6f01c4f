//go:build desktop && linux

// What the tray's GTK leaves out while a panel draws its menu, and how it
// comes back: see gtkpanel_linux.go. The same watch of the panel's
// StatusNotifierWatcher drives the item check (itemcheck_linux.c).

#include <malloc.h>
#include <stdlib.h>
#include <gtk/gtk.h>
#include <atk-bridge.h>
#include "_cgo_export.h"

void sb_item_watcher_appeared(GDBusConnection *connection); // itemcheck_linux.c
void sb_item_watcher_vanished(void);

#define THEME_CSS "/org/gtk/libgtk/theme/switchboard-tray/gtk.css"

// sb_theme_register registers a copy of the compiled resource (data, len)
// and returns whether GTK will find the theme's CSS in it.
int sb_theme_register(const void *data, size_t len) {
	GBytes *bytes = g_bytes_new(data, len);
	GResource *resource = g_resource_new_from_data(bytes, NULL);
	g_bytes_unref(bytes);
	if (resource == NULL) {
		return 0;
	}
	g_resources_register(resource);
	return g_resources_get_info(THEME_CSS, G_RESOURCE_LOOKUP_FLAGS_NONE, NULL, NULL, NULL);
}

static int restore_theme, restore_bridge;
static gboolean theme_back, bridge_back;

// reload makes GtkSettings load the theme again: it does when
// gtk-theme-name is notified, reading GTK_THEME first.
static void reload(void) {
	GtkSettings *settings = gtk_settings_get_default();
	if (settings != NULL) {
		g_object_notify(G_OBJECT(settings), "gtk-theme-name");
	}
}

// vanished brings back what was left out, on GTK's thread (the default
// main context): the user's theme, and the AT-SPI bridge as gtk_init
// would have started it.
static void vanished(GDBusConnection *connection, const gchar *name, gpointer data) {
	int theme = 0, bridge = 0, started = -1;
	sb_item_watcher_vanished();
	if (restore_theme && !theme_back) {
		g_unsetenv("GTK_THEME");
		reload();
		theme_back = TRUE;
		theme = 1;
	}
	if (restore_bridge && !bridge_back) {
		g_unsetenv("NO_AT_BRIDGE");
		started = atk_bridge_adaptor_init(NULL, NULL);
		bridge_back = TRUE;
		bridge = 1;
	}
	if (theme || bridge) {
		sbPanelGone(theme, bridge, started);
	}
}

// appeared goes back to the empty theme when a watcher shows up after
// the tray started without one (a panel that starts after it, at login):
// appindicator then drops its XEmbed icon, and GTK draws nothing again.
// The bridge, once started, stays.
static void appeared(GDBusConnection *connection, const gchar *name, const gchar *owner, gpointer data) {
	sb_item_watcher_appeared(connection);
	if (restore_theme && theme_back) {
		g_setenv("GTK_THEME", "switchboard-tray", TRUE);
		reload();
		theme_back = FALSE;
		sbPanelBack();
	}
}

static gboolean start_watch(gpointer data) {
	// The name libayatana-appindicator watches to choose between the
	// panel's D-Bus item and its XEmbed fallback. "vanished" also comes
	// first when nobody owns it.
	g_bus_watch_name(G_BUS_TYPE_SESSION, "org.kde.StatusNotifierWatcher", G_BUS_NAME_WATCHER_FLAGS_NONE,
		appeared, vanished, NULL, NULL);
	return G_SOURCE_REMOVE;
}

// sb_panel_watch watches the StatusNotifierWatcher from GTK's main loop,
// once it runs, so what follows it runs on GTK's thread: restoring what
// was left out (theme, bridge: 1 if left out) and checking the status
// item's registration (itemcheck_linux.c).
void sb_panel_watch(int theme, int bridge) {
	restore_theme = theme;
	restore_bridge = bridge;
	g_idle_add(start_watch, NULL);
}

static gboolean run_queued(gpointer data) {
	sbRunQueued();
	return G_SOURCE_REMOVE;
}

// sb_on_gtk has GTK's thread run what onGTK queued (gtkpanel_linux.go).
void sb_on_gtk(void) {
	g_idle_add(run_queued, NULL);
}

// one_arena keeps every thread's malloc in glibc's main arena, unless the
// user set MALLOC_ARENA_MAX: glibc gives each thread that allocates an
// arena of its own (Go's threads calling into GTK, GTK's and GDBus's:
// ~80 KiB touched each) against a contention the tray, a few allocations
// a minute, never has. A constructor, because glibc fixes the number of
// arenas when it makes the first one, before any Go code runs.
__attribute__((constructor)) static void one_arena(void) {
	if (getenv("MALLOC_ARENA_MAX") == NULL) {
		mallopt(M_ARENA_MAX, 1);
	}
}
