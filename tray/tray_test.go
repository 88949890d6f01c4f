package tray

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

func TestRunFlags(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStderr string
	}{
		{"help", []string{"-h"}, 0, "-data-dir"},
		{"unknown flag", []string{"--listen", "x"}, 2, "flag provided but not defined"},
		{"argument", []string{"now"}, 2, `unexpected argument "now"`},
		// Tests build without the desktop tag: the stub says how to get a tray.
		{"data dir accepted", []string{"--data-dir", "d"}, 2, "not in this build"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			if code := Run(context.Background(), tt.args, &stderr); code != tt.wantCode {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.wantCode, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("stderr %q, want it to contain %q", stderr.String(), tt.wantStderr)
			}
		})
	}
}

func TestRunVersion(t *testing.T) {
	var out, stderr bytes.Buffer
	defer func(w io.Writer) { versionOut = w }(versionOut)
	versionOut = &out
	if code := Run(context.Background(), []string{"--version"}, &stderr); code != 0 || out.String() != "switchboard-tray dev\n" {
		t.Errorf("--version: exit %d, stdout %q (stderr %q), want 0 and %q", code, out.String(), stderr.String(), "switchboard-tray dev\n")
	}
}

func TestResolveDataDir(t *testing.T) {
	t.Setenv("SWITCHBOARD_DATA_DIR", "")
	t.Setenv("XDG_DATA_HOME", "/xdg")
	var o Options
	if err := o.resolve(); err != nil {
		t.Fatal(err)
	}
	if o.DataDir != "/xdg/switchboard" {
		t.Errorf("data dir %q, want /xdg/switchboard", o.DataDir)
	}
}
