//go:build !headless

package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	wailsruntime "github.com/wailsapp/wails/v2/pkg/runtime"
)

// WindowTitle is the desktop window's title.
const WindowTitle = "Switchboard"

// runDesktop runs the hub — the same engine, config, data dir and API as
// `serve` — and opens the window; it blocks until the window is closed or
// ctx is done, then shuts the hub down gracefully.
func runDesktop(ctx context.Context, e *env, o Options) (err error) {
	if !wailsBuilt {
		// Without these tags Wails compiles a stub whose Run fails with a
		// message that does not say what to do.
		return notBuiltError("the window is not in this build: build with `make build` " +
			"(go build -tags desktop,production,webkit2_41 .)")
	}
	opts, err := windowOptions(ctx, e.assets)
	if err != nil {
		return err
	}
	h, err := startHub(ctx, e, o)
	if err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		err = errors.Join(err, h.stop(sctx))
	}()
	h.log.Info("hub ready", "url", h.url, "dataDir", h.dataDir)
	if err := wails.Run(opts); err != nil {
		return fmt.Errorf("window: %w", err)
	}
	return nil
}

// windowOptions describes the window. When ctx is done the window quits, as
// if closed, so whatever ends the app's context (a signal, a fatal hub error)
// ends the window. (Wails also quits on SIGINT and SIGTERM by itself, and
// prints "Ctrl+C detected"; quitting twice is harmless.)
func windowOptions(ctx context.Context, a Assets) (*options.App, error) {
	dist, err := fs.Sub(a.Frontend, "frontend/dist")
	if err != nil {
		return nil, fmt.Errorf("frontend: %w", err)
	}
	if _, err := fs.Stat(dist, "index.html"); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errors.New("frontend/dist/index.html is missing: build the frontend first " +
				"(make frontend), then this binary")
		}
		return nil, fmt.Errorf("frontend: %w", err)
	}
	stopped := make(chan struct{})
	return &options.App{
		Title:            WindowTitle,
		Width:            1200,
		Height:           800,
		MinWidth:         640,
		MinHeight:        480,
		BackgroundColour: &options.RGBA{R: 0x16, G: 0x18, B: 0x1d, A: 0xff},
		AssetServer:      &assetserver.Options{Assets: dist},
		OnStartup: func(wctx context.Context) {
			go func() {
				select {
				case <-ctx.Done():
					wailsruntime.Quit(wctx)
				case <-stopped:
				}
			}()
		},
		OnShutdown: func(context.Context) { close(stopped) },
		Linux: &linux.Options{
			Icon:        a.Icon,
			ProgramName: "switchboard", // matches build/linux/switchboard.desktop
			// Wails' own default when Linux is nil: GPU compositing in
			// WebKitGTK crashes or paints nothing on some drivers (wails#2977).
			WebviewGpuPolicy: linux.WebviewGpuPolicyNever,
		},
	}, nil
}
