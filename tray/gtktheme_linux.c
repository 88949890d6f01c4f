//go:build desktop && linux

// The tray's empty GTK theme and its way back: see gtktheme_linux.go.

#include <gtk/gtk.h>
#include "_cgo_export.h"

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

static gboolean restored;

// restore drops GTK_THEME and makes GTK load the theme again: GtkSettings
// reloads it when gtk-theme-name is notified, and reads GTK_THEME first.
// Runs on GTK's thread (the default main context), once.
static void restore(GDBusConnection *connection, const gchar *name, gpointer data) {
	if (restored) {
		return;
	}
	restored = TRUE;
	g_unsetenv("GTK_THEME");
	GtkSettings *settings = gtk_settings_get_default();
	if (settings != NULL) {
		g_object_notify(G_OBJECT(settings), "gtk-theme-name");
	}
	sbThemeRestored();
}

static gboolean start_watch(gpointer data) {
	// The name libayatana-appindicator watches to choose between the
	// panel's D-Bus item and its XEmbed fallback. "vanished" also comes
	// first when nobody owns it.
	g_bus_watch_name(G_BUS_TYPE_SESSION, "org.kde.StatusNotifierWatcher", G_BUS_NAME_WATCHER_FLAGS_NONE,
		NULL, restore, NULL, NULL);
	return G_SOURCE_REMOVE;
}

// sb_theme_watch watches the StatusNotifierWatcher from GTK's main loop,
// once it runs, so restore runs on GTK's thread.
void sb_theme_watch(void) {
	g_idle_add(start_watch, NULL);
}
