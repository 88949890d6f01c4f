// Command switchboard-tray is Switchboard's tray icon, a separate process
// from the window (see package tray). Build it with -tags desktop.
package main

import "github.com/switchboard-hub/switchboard/tray"

func main() { tray.Main() }
