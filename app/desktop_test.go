//go:build !headless

package app

import (
	"context"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
)

func TestWindowOptions(t *testing.T) {
	frontend := fstest.MapFS{"frontend/dist/index.html": {Data: []byte("<title>Switchboard</title>")}}
	opts, err := windowOptions(context.Background(), Assets{Frontend: frontend, Icon: []byte("png")})
	if err != nil {
		t.Fatal(err)
	}
	if opts.Title != "Switchboard" {
		t.Errorf("title %q, want Switchboard", opts.Title)
	}
	// The asset server is rooted at frontend/dist.
	if _, err := fs.Stat(opts.AssetServer.Assets, "index.html"); err != nil {
		t.Errorf("assets: %v", err)
	}
	if opts.Linux == nil || string(opts.Linux.Icon) != "png" {
		t.Errorf("linux options %+v, want the icon", opts.Linux)
	}
	if opts.OnStartup == nil || opts.OnShutdown == nil {
		t.Error("no OnStartup/OnShutdown: SIGTERM would not close the window")
	}
}

func TestWindowOptionsWithoutFrontend(t *testing.T) {
	// A fresh clone has only frontend/dist/.gitkeep until make frontend.
	frontend := fstest.MapFS{"frontend/dist/.gitkeep": {}}
	_, err := windowOptions(context.Background(), Assets{Frontend: frontend})
	if err == nil || !strings.Contains(err.Error(), "make frontend") {
		t.Fatalf("err %v, want one that says to run make frontend", err)
	}
}
