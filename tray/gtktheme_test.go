//go:build linux

package tray

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The compiled theme resource the tray embeds (gtkpanel_linux.go) is the
// one its sources make: a change to gtktheme/gtk.css or its .xml without
// `go generate ./tray/` fails here. glib-compile-resources comes with
// GTK's development files (libglib2.0-dev-bin, under libgtk-3-dev).
func TestGTKThemeResource(t *testing.T) {
	tool, err := exec.LookPath("glib-compile-resources")
	if err != nil {
		if os.Getenv("SWITCHBOARD_TRAY_E2E") == "require" {
			t.Fatal("glib-compile-resources is missing (apt-get install libgtk-3-dev)")
		}
		t.Skip("glib-compile-resources is missing (apt-get install libgtk-3-dev)")
	}
	target := filepath.Join(t.TempDir(), "gtktheme.gresource")
	cmd := exec.Command(tool, "--sourcedir=gtktheme", "--target="+target, "gtktheme/gtktheme.gresource.xml")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("glib-compile-resources: %v\n%s", err, out)
	}
	want, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("gtktheme/gtktheme.gresource")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("gtktheme/gtktheme.gresource is not what its sources compile to: run go generate ./tray/")
	}
	if !bytes.Contains(got, []byte("switchboard-tray")) || !bytes.Contains(got, []byte("gtk.css")) {
		t.Fatal("the resource has no switchboard-tray theme's gtk.css")
	}
}
