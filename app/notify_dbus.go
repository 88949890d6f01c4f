//go:build linux && !headless

package app

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"

	"github.com/godbus/dbus/v5"

	"github.com/switchboard-hub/switchboard/app/notify"
)

// On Linux the app speaks org.freedesktop.Notifications itself instead of
// through Wails v2.16, whose handler takes ActionInvoked from any sender on
// the session bus (any local process could click Approve) and passes the
// text on as markup.

const (
	fdoNotifications     = "org.freedesktop.Notifications"
	fdoNotificationsPath = dbus.ObjectPath("/org/freedesktop/Notifications")
	fdoBus               = "org.freedesktop.DBus"
	// fdoDefaultAction is the action key a click on the notification
	// itself invokes.
	fdoDefaultAction = "default"
	// fdoUrgencyCritical is the urgency hint's critical level (a byte:
	// 0 low, 1 normal, 2 critical): servers keep such a notification
	// until it is answered.
	fdoUrgencyCritical = byte(2)
)

// dbusNotifier shows notifications through the owner of
// org.freedesktop.Notifications and accepts their ActionInvoked signals
// only from that owner (the bus sets a message's sender: it cannot be
// forged), only for notifications it showed, and only for the actions it
// offered. It is safe for concurrent use.
type dbusNotifier struct {
	conn    *dbus.Conn
	log     *slog.Logger
	respond func(id, action string)
	app     string
	signals chan *dbus.Signal

	mu sync.Mutex
	// owner is the unique name owning org.freedesktop.Notifications ("":
	// unknown or none), from GetNameOwner and NameOwnerChanged.
	owner string
	// shown maps the server's notification ids to ours and the action
	// keys offered; byID is the reverse, for Remove and replaces_id.
	shown map[uint32]shownNotification
	byID  map[string]uint32
}

type shownNotification struct {
	id      string
	actions map[string]string // action key → our action id
}

// startDesktopNotifications connects to the session bus and listens for
// the notification server's signals. It returns nil when there is no
// session bus: the app runs on without notifications.
func startDesktopNotifications(_ context.Context, log *slog.Logger, respond func(id, action string)) desktopNotifier {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		log.Warn("desktop notifications are off", "err", err)
		return nil
	}
	d, err := newDBusNotifier(conn, "switchboard", log, respond)
	if err != nil {
		conn.Close()
		log.Warn("desktop notifications are off", "err", err)
		return nil
	}
	return d
}

// newDBusNotifier listens on conn (which it then owns) for the signals of
// org.freedesktop.Notifications' owner, answering each invoked action with
// respond(our id, our action) on its own goroutine.
func newDBusNotifier(conn *dbus.Conn, app string, log *slog.Logger, respond func(id, action string)) (*dbusNotifier, error) {
	d := &dbusNotifier{conn: conn, log: log, respond: respond, app: app,
		signals: make(chan *dbus.Signal, 64), shown: map[uint32]shownNotification{}, byID: map[string]uint32{}}
	// The bus resolves sender=<well-known name> to its owner at delivery;
	// the loop checks the sender again, since a signal sent to this
	// connection directly (unicast) reaches it whatever the match rules.
	for _, member := range []string{"ActionInvoked", "NotificationClosed"} {
		if err := conn.AddMatchSignal(dbus.WithMatchSender(fdoNotifications), dbus.WithMatchObjectPath(fdoNotificationsPath),
			dbus.WithMatchInterface(fdoNotifications), dbus.WithMatchMember(member)); err != nil {
			return nil, fmt.Errorf("notifications: %w", err)
		}
	}
	if err := conn.AddMatchSignal(dbus.WithMatchSender(fdoBus), dbus.WithMatchInterface(fdoBus),
		dbus.WithMatchMember("NameOwnerChanged"), dbus.WithMatchArg(0, fdoNotifications)); err != nil {
		return nil, fmt.Errorf("notifications: %w", err)
	}
	conn.Signal(d.signals)
	d.resolveOwner()
	go d.loop()
	return d, nil
}

// resolveOwner asks the bus who owns org.freedesktop.Notifications now
// (none yet is fine: Notify may start the server, and then we ask again).
func (d *dbusNotifier) resolveOwner() {
	var owner string
	if err := d.conn.BusObject().Call(fdoBus+".GetNameOwner", 0, fdoNotifications).Store(&owner); err != nil {
		owner = ""
	}
	d.setOwner(owner)
}

// setOwner records a new owner; the notifications the old one showed are
// forgotten (their actions can no longer come from their server).
func (d *dbusNotifier) setOwner(owner string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if owner == d.owner {
		return
	}
	if d.owner != "" {
		clear(d.shown)
		clear(d.byID)
	}
	d.owner = owner
}

func (d *dbusNotifier) loop() {
	for sig := range d.signals {
		switch sig.Name {
		case fdoBus + ".NameOwnerChanged":
			// Only the bus itself speaks for names.
			if sig.Sender != fdoBus || len(sig.Body) != 3 {
				continue
			}
			if name, _ := sig.Body[0].(string); name == fdoNotifications {
				owner, _ := sig.Body[2].(string)
				d.setOwner(owner)
			}
		case fdoNotifications + ".ActionInvoked":
			d.actionInvoked(sig)
		case fdoNotifications + ".NotificationClosed":
			if sid, ok := d.fromServer(sig); ok {
				d.forget(sid)
			}
		}
	}
}

// fromServer reads the notification id of a signal from the owner of
// org.freedesktop.Notifications about a notification we showed.
func (d *dbusNotifier) fromServer(sig *dbus.Signal) (uint32, bool) {
	if sig.Path != fdoNotificationsPath || len(sig.Body) < 2 {
		return 0, false
	}
	sid, ok := sig.Body[0].(uint32)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.owner == "" || sig.Sender != d.owner {
		if ok {
			d.log.Warn("notification signal from a process that is not the notification server; ignored",
				"sender", sig.Sender, "owner", d.owner, "signal", sig.Name)
		}
		return 0, false
	}
	_, shown := d.shown[sid]
	return sid, ok && shown
}

func (d *dbusNotifier) actionInvoked(sig *dbus.Signal) {
	sid, ok := d.fromServer(sig)
	if !ok {
		return
	}
	key, _ := sig.Body[1].(string)
	d.mu.Lock()
	n := d.shown[sid]
	action, offered := n.actions[key]
	if offered {
		delete(d.shown, sid)
		delete(d.byID, n.id)
	}
	d.mu.Unlock()
	if offered {
		go d.respond(n.id, action)
	}
}

func (d *dbusNotifier) forget(sid uint32) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if n, ok := d.shown[sid]; ok {
		delete(d.shown, sid)
		if d.byID[n.id] == sid {
			delete(d.byID, n.id)
		}
	}
}

// Send shows n, replacing a notification of the same id still shown. The
// body is escaped (the spec's body markup); the summary, plain text for
// most servers and markup for some, gets no markup characters at all.
func (d *dbusNotifier) Send(n notify.Notification) error {
	actions := []string{fdoDefaultAction, "Open"}
	offered := map[string]string{fdoDefaultAction: notify.ActionDefault}
	if n.Approve {
		actions = append(actions, notify.ActionApprove, "Approve", notify.ActionDeny, "Deny")
		offered[notify.ActionApprove], offered[notify.ActionDeny] = notify.ActionApprove, notify.ActionDeny
		if !n.Once {
			actions = append(actions, notify.ActionRemember, "Always allow here")
			offered[notify.ActionRemember] = notify.ActionRemember
		}
	}
	for i, label := range n.Choices {
		key := notify.ActionAnswer + strconv.Itoa(i)
		actions = append(actions, key, label)
		offered[key] = key
	}
	hints := map[string]dbus.Variant{"x-notification-id": dbus.MakeVariant(n.ID)}
	if n.Critical {
		hints["urgency"] = dbus.MakeVariant(fdoUrgencyCritical)
	}
	d.mu.Lock()
	replaces := d.byID[n.ID]
	d.mu.Unlock()
	var sid uint32
	err := d.conn.Object(fdoNotifications, fdoNotificationsPath).Call(fdoNotifications+".Notify", 0,
		d.app, replaces, "", plainSummary(n.Title), escapeMarkup(n.Body), actions, hints, int32(-1)).Store(&sid)
	if err != nil {
		return fmt.Errorf("notify: %w", err)
	}
	d.mu.Lock()
	unknown := d.owner == ""
	d.mu.Unlock()
	if unknown { // the call may have started the server
		d.resolveOwner()
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if replaces != 0 && replaces != sid {
		delete(d.shown, replaces)
	}
	d.shown[sid] = shownNotification{id: n.ID, actions: offered}
	d.byID[n.ID] = sid
	return nil
}

// Remove closes the notification id if it is shown.
func (d *dbusNotifier) Remove(id string) {
	d.mu.Lock()
	sid, ok := d.byID[id]
	if ok {
		delete(d.byID, id)
		delete(d.shown, sid)
	}
	d.mu.Unlock()
	if ok {
		d.conn.Object(fdoNotifications, fdoNotificationsPath).Call(fdoNotifications+".CloseNotification", 0, sid)
	}
}

// close disconnects; the bus connection's end closes the signal channel,
// which ends the loop.
func (d *dbusNotifier) close() { d.conn.Close() }

// markupEscaper escapes the characters the notification spec's body
// markup gives meaning to.
var markupEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func escapeMarkup(s string) string { return markupEscaper.Replace(s) }

// summaryCleaner makes a summary safe both where it is plain text (the
// spec) and where a server formats it as markup (dunst, mako): no markup
// characters, one line.
var summaryCleaner = strings.NewReplacer("&", "＆", "<", "‹", ">", "›", "\n", " ", "\r", " ")

func plainSummary(s string) string { return summaryCleaner.Replace(s) }
