//go:build linux

package tray

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/prop"
)

// A tray whose status item did not get registered with the panel's
// watcher registers it itself (itemcheck_linux.go). The watcher here
// answers the indicator's RegisterStatusNotifierItem and forgets it: the
// panel then sees what it sees when libayatana-appindicator lost its bus
// race (it never calls), an item exported on the bus that no watcher
// lists, but on every run rather than now and then under load. The tray
// registers it again, once, on its own connection and path, and the
// panel reads its menu.
func TestDBusTrayRegistersAgain(t *testing.T) {
	needTools(t)
	bin := buildTray(t)
	tmp := t.TempDir()
	env := desktopSession(t, tmp)
	w := startForgetfulWatcher(t, busAddress(env))
	tray := startTray(t, env, bin, "--data-dir", filepath.Join(tmp, "no-hub"))

	conn, err := dbus.Connect(busAddress(env))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	sni := findStatusItem(t, conn)
	waitTray(t, tray, "the not-running menu", func() bool { return sni.label(t, 0) == "Switchboard is not running" })

	calls := w.registrations()
	if len(calls) != 2 || calls[0] != calls[1] || calls[1] != sni.service+string(sni.path) {
		t.Fatalf("RegisterStatusNotifierItem calls %q, want the indicator's (forgotten) and the tray's, both for %s%s", calls, sni.service, sni.path)
	}
	const msg = "the status item was not registered with the StatusNotifierWatcher"
	if n := strings.Count(tray.log(), msg); n != 1 {
		t.Fatalf("the tray logged %q %d times, want once:\n%s", msg, n, tray.log())
	}
}

// forgetfulWatcher is an org.kde.StatusNotifierWatcher that forgets the
// first item registered with it.
type forgetfulWatcher struct {
	mu    sync.Mutex
	calls []string // "<sender><path>" per RegisterStatusNotifierItem
	props *prop.Properties
}

func (w *forgetfulWatcher) registrations() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.calls...)
}

// RegisterStatusNotifierItem is the watcher's method; an item given as a
// path is on the sender's connection.
func (w *forgetfulWatcher) RegisterStatusNotifierItem(sender dbus.Sender, service string) *dbus.Error {
	item := service
	if strings.HasPrefix(service, "/") {
		item = string(sender) + service
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls = append(w.calls, item)
	if len(w.calls) == 1 {
		return nil
	}
	items := w.props.GetMust("org.kde.StatusNotifierWatcher", "RegisteredStatusNotifierItems").([]string)
	w.props.SetMust("org.kde.StatusNotifierWatcher", "RegisteredStatusNotifierItems", append(items, item))
	return nil
}

// startForgetfulWatcher owns org.kde.StatusNotifierWatcher on the bus at
// addr until the test ends.
func startForgetfulWatcher(t *testing.T, addr string) *forgetfulWatcher {
	t.Helper()
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	const iface, path = "org.kde.StatusNotifierWatcher", dbus.ObjectPath("/StatusNotifierWatcher")
	w := &forgetfulWatcher{}
	if err := conn.Export(w, path, iface); err != nil {
		t.Fatal(err)
	}
	w.props, err = prop.Export(conn, path, prop.Map{iface: {
		"RegisteredStatusNotifierItems":  {Value: []string{}, Emit: prop.EmitFalse},
		"IsStatusNotifierHostRegistered": {Value: true, Emit: prop.EmitFalse},
		"ProtocolVersion":                {Value: int32(0), Emit: prop.EmitFalse},
	}})
	if err != nil {
		t.Fatal(err)
	}
	reply, err := conn.RequestName(iface, dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("owning %s: %v (reply %d)", iface, err, reply)
	}
	return w
}
