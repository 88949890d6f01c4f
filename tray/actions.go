package tray

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
	"github.com/switchboard-hub/switchboard/tray/autostart"
)

// Do carries out a click's action. Errors are logged, never fatal: the
// menu follows the hub's events whatever happened. ActQuitTray is the
// caller's to handle.
func (w *Watcher) Do(ctx context.Context, a Action) {
	var err error
	switch a.Kind {
	case ActNone, ActQuitTray:
		return
	case ActDecide:
		err = w.Decide(ctx, a.Permission, a.Decision)
		if client.IsCode(err, hub.CodeConflict) || client.IsCode(err, hub.CodeNotFound) {
			w.log().Info("tray: the permission was already decided or is gone", "permission", a.Permission)
			return
		}
	case ActCancel:
		err = w.CancelTurn(ctx, a.Turn)
	case ActOpen:
		if a.Thread != "" {
			err = w.OpenThread(ctx, a.Thread)
		} else {
			err = w.Open(ctx)
		}
	case ActQuitHub:
		err = w.QuitHub(ctx)
	}
	if err != nil {
		w.log().Warn("tray: action failed", "action", a.String(), "err", err)
		return
	}
	w.log().Info("tray: action done", "action", a.String())
}

// Open opens Switchboard. A hub answering inside the desktop app
// (hub.json's window) gets its window raised: the app is launched again,
// which shows the running instance's window and exits. A hub answering
// beside `serve` gets the browser UI through a one-time login link
// (POST /v1/auth/codes: GET /auth?code=…, single use, 30 s), so no token
// is ever on the opener's command line, visible in /proc to every local
// user. Without a hub it starts the desktop app: the switchboard binary
// beside switchboard-tray, else the one on PATH, on the same data dir.
func (w *Watcher) Open(ctx context.Context) error { return w.open(ctx, "") }

// OpenThread is Open showing one thread: the window shows it (through
// `switchboard open THREAD`, which hands it to the running app), a
// browser opens /#/t/<thread> through the one-time link. Without a hub
// it starts the app.
func (w *Watcher) OpenThread(ctx context.Context, threadID string) error {
	return w.open(ctx, threadID)
}

func (w *Watcher) open(ctx context.Context, threadID string) error {
	if h, err := client.Discover(w.DataDir); err == nil {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		c := w.clientFor(h)
		if c.Healthz(ctx) == nil {
			if h.Window {
				return startApp(w.DataDir, threadID)
			}
			next := "/"
			if threadID != "" {
				next = "/#/t/" + threadID
			}
			link, err := c.LoginLink(ctx, next)
			if err != nil {
				return fmt.Errorf("asking the hub for a login link: %w", err)
			}
			return openURL(link)
		}
	}
	return startApp(w.DataDir, "")
}

// openURL hands u to the desktop's browser, in childEnv. A variable for
// tests. u is a one-time login link at most, never the token.
var openURL = func(u string) error { return client.OpenBrowser(u, childEnv) }

// startApp starts the desktop app on dataDir, or, for a thread, `switchboard
// open --data-dir DIR THREAD` (which shows it in the running app's
// window). A variable for tests.
var startApp = func(dataDir, threadID string) error {
	bin, err := appBinary()
	if err != nil {
		return err
	}
	if threadID != "" {
		return startDetached(exec.Command(bin, "open", "--data-dir", dataDir, threadID), "starting switchboard open")
	}
	return startDetached(exec.Command(bin, "--data-dir", dataDir), "starting switchboard")
}

// appBinary is the switchboard binary beside this one, else on PATH.
func appBinary() (string, error) {
	if p := autostart.Find("switchboard"); p != "" {
		return p, nil
	}
	return "", errors.New("cannot find the switchboard binary beside switchboard-tray or on PATH")
}

// childEnv, when not nil, is the environment of what the tray starts:
// the one it was started with, before it changed its own for GTK (noGL,
// whilePanelDraws).
var childEnv []string

// startDetached starts cmd without waiting for it (it is reaped when it
// exits), in childEnv when cmd sets no environment of its own.
func startDetached(cmd *exec.Cmd, what string) error {
	if cmd.Env == nil && childEnv != nil {
		cmd.Env = childEnv
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	go cmd.Wait()
	return nil
}
