//go:build linux && !headless

package app

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/godbus/dbus/v5"
)

// focusRunning asks the desktop app already running on dataDir to show its
// window, over the session-bus object Wails' SingleInstanceLock exports
// (the message a second Wails instance would send before exiting).
func focusRunning(dataDir string) error {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return fmt.Errorf("session bus: %w", err)
	}
	defer conn.Close()
	id := "wails_app_" + strings.NewReplacer("-", "_", ".", "_").Replace(instanceID(dataDir))
	name, path := "org."+id+".SingleInstance", dbus.ObjectPath("/org/"+id+"/SingleInstance")
	wd, _ := os.Getwd()
	msg, _ := json.Marshal(struct {
		Args             []string
		WorkingDirectory string
	}{os.Args[1:], wd})
	return conn.Object(name, path).Call(name+".SendMessage", 0, string(msg)).Store()
}
