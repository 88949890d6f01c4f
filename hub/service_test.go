package hub

import "testing"

// TestDecidedByOf: a proved surface is recorded as itself; anything else,
// a surface name in the client id included, is "client:<id>".
func TestDecidedByOf(t *testing.T) {
	for _, tt := range []struct {
		c    Caller
		want string
	}{
		{Caller{ClientID: "window", Surface: SurfaceWindow}, "window"},
		{Caller{ClientID: "window", Surface: SurfaceNotification}, "notification"},
		{Caller{ClientID: "b-1", Surface: SurfaceBrowser}, "browser"},
		{Caller{ClientID: "switchboard-tray", Surface: SurfaceTray}, "tray"},
		{Caller{ClientID: "window"}, "client:window"},
		{Caller{ClientID: "tray"}, "client:tray"},
		{Caller{ClientID: "acp-zed", Surface: "editor"}, "client:acp-zed"},
		{Caller{ClientID: "x", Surface: "timeout"}, "client:x"},
	} {
		if got := DecidedByOf(tt.c); got != tt.want {
			t.Errorf("DecidedByOf(%+v) = %q, want %q", tt.c, got, tt.want)
		}
	}
}
