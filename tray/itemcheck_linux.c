//go:build desktop && linux

// Sees that the tray's status item gets registered with the panel's
// StatusNotifierWatcher, and registers it itself when
// libayatana-appindicator lost the race that does it: see
// itemcheck_linux.go. Everything here runs on GTK's thread (the default
// main context), called from the watch in gtkpanel_linux.c.

#include <string.h>
#include <gio/gio.h>
#include "_cgo_export.h"

#define WATCHER_NAME "org.kde.StatusNotifierWatcher"
#define WATCHER_PATH "/StatusNotifierWatcher"
#define WATCHER_IFACE "org.kde.StatusNotifierWatcher"
#define ITEM_IFACE "org.kde.StatusNotifierItem"

// The item getlantern/systray makes: app_indicator_new("systray", …), which
// libayatana-appindicator exports at /org/ayatana/NotificationItem/<id>.
#define ITEM_ID "systray"
#define ITEM_PATH "/org/ayatana/NotificationItem/" ITEM_ID

// FIRST_CHECK is how long libayatana-appindicator has to register the
// item by itself after the watcher appears; each further check waits
// twice as long as the one before, up to CHECKS checks (~3 min in all).
#define FIRST_CHECK 3
#define CHECKS 6

static GDBusConnection *bus;  // the session bus, shared with the indicator
static GCancellable *current; // this appearance's calls; NULL: no watcher
static guint timer;           // the next check, 0: none
static int checks;            // checks made since the watcher appeared
static gboolean registered;   // registered by us since the watcher appeared
static gint64 appeared_at;    // when the watcher appeared (monotonic, µs)

// since is how many seconds ago the watcher appeared.
static int since(void) {
	return (int)((g_get_monotonic_time() - appeared_at) / G_USEC_PER_SEC);
}

static void check_later(void);

// stop forgets the current watcher: its next check and calls in flight.
static void stop(void) {
	if (timer != 0) {
		g_source_remove(timer);
		timer = 0;
	}
	if (current != NULL) {
		g_cancellable_cancel(current);
		g_clear_object(&current);
	}
}

// finished reports whether a call's error means this appearance is over
// (the watcher went, or another appeared), freeing the error if so.
static gboolean finished(GError *error) {
	if (error != NULL && g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED)) {
		g_error_free(error);
		return TRUE;
	}
	return FALSE;
}

static void registered_cb(GObject *source, GAsyncResult *res, gpointer data) {
	GError *error = NULL;
	GVariant *reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), res, &error);
	if (finished(error)) {
		return;
	}
	if (reply != NULL) {
		g_variant_unref(reply);
		if (!registered) {
			registered = TRUE;
			sbItemRegistered(since());
		}
	} else {
		g_error_free(error);
	}
	check_later(); // to see the watcher lists it now
}

// id_cb: the item answered (or not) for its Id; an item that answers as
// ours is exported and can be registered, one that does not is not yet
// (libayatana-appindicator exports it once it has the bus).
static void id_cb(GObject *source, GAsyncResult *res, gpointer data) {
	GError *error = NULL;
	GVariant *reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), res, &error);
	if (finished(error)) {
		return;
	}
	gboolean ours = FALSE;
	if (reply != NULL) {
		GVariant *v = NULL;
		g_variant_get(reply, "(v)", &v);
		ours = g_variant_is_of_type(v, G_VARIANT_TYPE_STRING) && strcmp(g_variant_get_string(v, NULL), ITEM_ID) == 0;
		g_variant_unref(v);
		g_variant_unref(reply);
	} else {
		g_error_free(error);
	}
	if (!ours) {
		check_later();
		return;
	}
	g_dbus_connection_call(bus, WATCHER_NAME, WATCHER_PATH, WATCHER_IFACE, "RegisterStatusNotifierItem",
		g_variant_new("(s)", ITEM_PATH), NULL, G_DBUS_CALL_FLAGS_NONE, -1, current, registered_cb, NULL);
}

// listed reports whether items (RegisteredStatusNotifierItems) holds one
// of this connection's: "<unique name>" or "<unique name>/<path>".
static gboolean listed(GVariant *items) {
	const gchar *me = g_dbus_connection_get_unique_name(bus);
	size_t n = me != NULL ? strlen(me) : 0;
	gboolean found = FALSE;
	GVariantIter iter;
	const gchar *item;
	g_variant_iter_init(&iter, items);
	while (n > 0 && !found && g_variant_iter_next(&iter, "&s", &item)) {
		found = strncmp(item, me, n) == 0 && (item[n] == '\0' || item[n] == '/');
	}
	return found;
}

static void items_cb(GObject *source, GAsyncResult *res, gpointer data) {
	GError *error = NULL;
	GVariant *reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), res, &error);
	if (finished(error)) {
		return;
	}
	if (reply == NULL) { // a watcher that does not answer: ask again later
		g_error_free(error);
		check_later();
		return;
	}
	GVariant *items = NULL;
	g_variant_get(reply, "(v)", &items);
	gboolean ok = g_variant_is_of_type(items, G_VARIANT_TYPE_STRING_ARRAY) && listed(items);
	g_variant_unref(items);
	g_variant_unref(reply);
	if (ok) {
		return; // registered: nothing more to do until the watcher changes
	}
	g_dbus_connection_call(bus, g_dbus_connection_get_unique_name(bus), ITEM_PATH, "org.freedesktop.DBus.Properties", "Get",
		g_variant_new("(ss)", ITEM_IFACE, "Id"), G_VARIANT_TYPE("(v)"), G_DBUS_CALL_FLAGS_NONE, -1, current, id_cb, NULL);
}

static gboolean check(gpointer data) {
	timer = 0;
	checks++;
	g_dbus_connection_call(bus, WATCHER_NAME, WATCHER_PATH, "org.freedesktop.DBus.Properties", "Get",
		g_variant_new("(ss)", WATCHER_IFACE, "RegisteredStatusNotifierItems"), G_VARIANT_TYPE("(v)"),
		G_DBUS_CALL_FLAGS_NONE, -1, current, items_cb, NULL);
	return G_SOURCE_REMOVE;
}

// check_later checks again, or gives up after CHECKS checks.
static void check_later(void) {
	if (checks >= CHECKS) {
		sbItemNotRegistered(since());
		return;
	}
	timer = g_timeout_add_seconds(FIRST_CHECK << checks, check, NULL);
}

// sb_item_watcher_appeared starts checking the item against the watcher
// that now owns its name on connection.
void sb_item_watcher_appeared(GDBusConnection *connection) {
	stop();
	if (bus == NULL) {
		bus = g_object_ref(connection);
	}
	current = g_cancellable_new();
	checks = 0;
	registered = FALSE;
	appeared_at = g_get_monotonic_time();
	timer = g_timeout_add_seconds(FIRST_CHECK, check, NULL);
}

// sb_item_watcher_vanished stops checking: no watcher, nothing to register
// with (libayatana-appindicator falls back to its XEmbed icon).
void sb_item_watcher_vanished(void) {
	stop();
}
