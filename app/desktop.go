//go:build !headless

package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/menu"
	"github.com/wailsapp/wails/v2/pkg/menu/keys"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	wailsruntime "github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/switchboard-hub/switchboard/app/config"
	"github.com/switchboard-hub/switchboard/app/datadir"
)

// WindowTitle is the desktop window's title.
const WindowTitle = "Switchboard"

// runDesktop runs the hub — the same engine, config, data dir and API as
// `serve` — and opens the window; it blocks until Quit (the app menu,
// Ctrl/Cmd+Q, the tray's Quit through POST /v1/shutdown, SIGINT/SIGTERM),
// then shuts the hub down gracefully. Closing the window only hides it. A
// second launch on the same data dir shows the running window and exits 0.
func runDesktop(ctx context.Context, e *env, o Options) (err error) {
	if !wailsBuilt {
		// Without these tags Wails compiles a stub whose Run fails with a
		// message that does not say what to do.
		return notBuiltError("the window is not in this build: build with `make build` " +
			"(go build -tags desktop,production,webkit2_41 .)")
	}
	w := &window{dataDir: o.DataDir}
	opts, err := w.options(ctx, e.assets)
	if err != nil {
		return err
	}
	if generatingBindings {
		// `wails generate module` runs this binary to read what is bound:
		// no hub, no data dir.
		return wails.Run(opts)
	}
	o.window = true
	h, err := startHub(ctx, e, o)
	if errors.Is(err, datadir.ErrHubRunning) {
		if ferr := focusRunning(o.DataDir); ferr == nil {
			fmt.Fprintln(e.stdio.Err, "switchboard: Switchboard is already running on this data dir: showed its window")
			return nil
		}
	}
	if stoppedStarting(ctx, err) {
		return nil // a signal before the window: nothing to quit
	}
	if err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		err = errors.Join(err, h.stop(sctx))
	}()
	h.log.Info("hub ready", "url", h.url, "dataDir", h.dataDir)
	defer h.startTray()()
	w.attach(h)
	defer w.bindings.stop()
	if err := wails.Run(opts); err != nil {
		return fmt.Errorf("window: %w", err)
	}
	return nil
}

// window is the desktop window's state beside Wails: the bindings, the
// notifications, and what is needed to remember the geometry.
type window struct {
	dataDir  string
	log      *slog.Logger
	bindings *Bindings
	notify   *notifier
	config   func() config.Config
	// hubQuit is closed when a client asks the hub to shut down (POST
	// /v1/shutdown: the tray's Quit); hubDied gets the API server's error.
	hubQuit <-chan struct{}
	hubDied <-chan error

	// quitting is set by the first OnBeforeClose: a quit is under way.
	quitting atomic.Bool
	// domReady is set by OnDomReady: the page loaded, so the window is
	// realized and its geometry can be read.
	domReady atomic.Bool

	mu   sync.Mutex
	wctx context.Context // Wails' context, set by OnStartup
	// notifier: the desktop notifications OnStartup started, closed by
	// OnShutdown; shutDown: OnShutdown ran (a notifier started after it
	// is closed at once).
	notifier desktopNotifier
	shutDown bool
	// ready: the frontend listens for the show events (EventWindowReady);
	// until then pending holds the last show asked for, to emit again.
	ready   bool
	pending *showRequest
}

// showRequest is what window.show was asked to show.
type showRequest struct{ kind, id, threadID string }

// wailsEmitter emits runtime events through Wails once the window runs.
type wailsEmitter struct{ w *window }

func (e wailsEmitter) Emit(name string, data any) {
	if ctx := e.w.ctx(); ctx != nil {
		wailsruntime.EventsEmit(ctx, name, data)
	}
}

func (w *window) ctx() context.Context {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.wctx
}

// attach wires the window to a running hub: the Bindings over its engine,
// and the notifier over the same engine and the live config.
func (w *window) attach(h *runningHub) {
	w.log = h.log
	w.config = h.currentConfig
	b := w.boundBindings() // the one Wails binds: options ran before the hub
	b.svcs, b.log = h.services, h.log
	b.liveEventBytes = func() int { return h.currentConfig().Limits.LiveEventBytes }
	b.signIn = func(next string) (string, error) {
		l, err := h.http.NewLoginLink(next)
		return l.URL, err
	}
	w.hubQuit, w.hubDied = h.quit, h.served
	w.notify = newNotifier(h.engine, nil, h.currentConfig, w.show, h.log)
}

// show brings the window up, on a permission or a turn's thread (a click on
// its notification) or a thread (`switchboard open`): the frontend gets
// "window:showPermission" {id}, "window:showTurn" {id, threadId} or
// "window:showThread" {threadId}.
//
// Before the frontend listens (EventWindowReady) the last such request is
// also kept, and emitted again once it does (ready).
func (w *window) show(kind, id, threadID string) {
	w.mu.Lock()
	if !w.ready && kind != "" {
		w.pending = &showRequest{kind, id, threadID}
	}
	ctx := w.wctx
	w.mu.Unlock()
	if ctx == nil {
		return
	}
	wailsruntime.WindowShow(ctx)
	wailsruntime.WindowUnminimise(ctx)
	switch kind {
	case "permission":
		wailsruntime.EventsEmit(ctx, EventShowPermission, map[string]string{"id": id})
	case "turn":
		wailsruntime.EventsEmit(ctx, EventShowTurn, map[string]string{"id": id, "threadId": threadID})
	case "thread":
		wailsruntime.EventsEmit(ctx, EventShowThread, map[string]string{"threadId": threadID})
	}
}

// frontendReady is EventWindowReady: the frontend listens now; a show
// asked for before is emitted again.
func (w *window) frontendReady() {
	w.mu.Lock()
	w.ready = true
	p := w.pending
	w.pending = nil
	w.mu.Unlock()
	if p != nil {
		w.show(p.kind, p.id, p.threadID)
	}
}

// menu hands a Thread menu choice to the frontend (EventMenu).
func (w *window) menu(action string) {
	if ctx := w.ctx(); ctx != nil {
		wailsruntime.EventsEmit(ctx, EventMenu, map[string]string{"action": action})
	}
}

// focusScript reports the page's focus to Go as "window:focus" (true or
// false) and the thread it shows as "window:thread" (the id in the
// location hash "#/t/<id>", "" for none; on hashchange and on the
// router's history.pushState/replaceState, which fire no hashchange), for
// the notifier's rule (app/notify.go): nothing about the thread shown in
// a focused window. It is injected on DOM ready, so the frontend need not
// know.
const focusScript = `(function(){var r=window.runtime;if(!r||window.__sbFocus)return;window.__sbFocus=1;` +
	`var s=function(){r.EventsEmit("window:focus",document.hasFocus()&&!document.hidden)};` +
	`window.addEventListener("focus",s);window.addEventListener("blur",s);` +
	`document.addEventListener("visibilitychange",s);s();` +
	`var t=function(){var m=/^#\/t\/([^/?#]+)$/.exec(location.hash),id="";if(m){try{id=decodeURIComponent(m[1])}catch(e){}}r.EventsEmit("window:thread",id)};` +
	`["pushState","replaceState"].forEach(function(k){var f=history[k];history[k]=function(){var v=f.apply(this,arguments);t();return v}});` +
	`window.addEventListener("hashchange",t);t();})()`

// appMenu is the window's native menu bar on goos: on macOS and Windows
// a Switchboard menu (Show Window, Quit with Cmd/Ctrl+Q) and a Thread menu
// whose items the frontend runs on the shown thread (EventMenu). On Linux
// none (nil): a GTK menu bar does not follow the app's theme (a light bar
// over a dark window) and cost the web view its height; the app's toolbar,
// the thread's actions menu and the command palette (Ctrl+K) offer every
// item, and the page's keymap quits on Ctrl+Q (ADR 0034).
func (w *window) appMenu(goos string, quit func(*menu.CallbackData)) *menu.Menu {
	if goos == "linux" {
		return nil
	}
	appMenu := menu.NewMenu()
	sub := appMenu.AddSubmenu("Switchboard")
	sub.AddText("Show Window", nil, func(*menu.CallbackData) { w.show("", "", "") })
	sub.AddSeparator()
	sub.AddText("Quit", keys.CmdOrCtrl("q"), quit)
	// The shown thread's actions, as its actions menu has them: reachable
	// from the keyboard without hunting for the buttons.
	th := appMenu.AddSubmenu("Thread")
	th.AddText("Export as Markdown…", nil, func(*menu.CallbackData) { w.menu(MenuExportMarkdown) })
	th.AddText("Export as JSON Lines…", nil, func(*menu.CallbackData) { w.menu(MenuExportJSONL) })
	th.AddText("Open in Browser", nil, func(*menu.CallbackData) { w.menu(MenuOpenInBrowser) })
	return appMenu
}

// options describes the window. When ctx is done, a client asks the hub
// to shut down (the tray's Quit: POST /v1/shutdown) or the API server
// fails, the window quits as if Quit was chosen, and runDesktop stops the
// hub. Wails also quits on SIGINT and SIGTERM by itself (and prints
// "Ctrl+C detected"), so a signal asks twice: only the first quit goes on
// (beforeClose).
func (w *window) options(ctx context.Context, a Assets) (*options.App, error) {
	dist, err := fs.Sub(a.Frontend, "frontend/dist")
	if err != nil {
		return nil, fmt.Errorf("frontend: %w", err)
	}
	if _, err := fs.Stat(dist, "index.html"); err != nil && !generatingBindings {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errors.New("frontend/dist/index.html is missing: build the frontend first " +
				"(make frontend), then this binary")
		}
		return nil, fmt.Errorf("frontend: %w", err)
	}
	width, height := defaultWidth, defaultHeight
	state, remembered := loadWindowState(w.dataDir)
	startState := options.Normal
	if remembered {
		width, height = state.Width, state.Height
		if state.Maximised {
			startState = options.Maximised
		}
	}
	stopped := make(chan struct{})
	quit := func(*menu.CallbackData) {
		if ctx := w.ctx(); ctx != nil {
			wailsruntime.Quit(ctx)
		}
	}
	return &options.App{
		Title:             WindowTitle,
		Width:             width,
		Height:            height,
		MinWidth:          minWidth,
		MinHeight:         minHeight,
		WindowStartState:  startState,
		HideWindowOnClose: true, // the hub and the tray keep running; Quit ends them
		Menu:              w.appMenu(runtime.GOOS, quit),
		BackgroundColour:  &options.RGBA{R: 0x16, G: 0x18, B: 0x1d, A: 0xff},
		AssetServer:       &assetserver.Options{Assets: dist, Middleware: windowCSP},
		Bind:              []any{w.boundBindings()},
		ErrorFormatter:    formatError,
		SingleInstanceLock: &options.SingleInstanceLock{
			UniqueId: instanceID(w.dataDir),
			OnSecondInstanceLaunch: func(d options.SecondInstanceData) {
				if id := threadToOpen(d.Args); id != "" {
					w.show("thread", "", id) // `switchboard open THREAD`
					return
				}
				w.show("", "", "")
			},
		},
		OnStartup: func(wctx context.Context) {
			w.mu.Lock()
			w.wctx = wctx
			w.mu.Unlock()
			wailsruntime.EventsOn(wctx, EventWindowReady, func(...any) { w.frontendReady() })
			if remembered && !state.Maximised {
				wailsruntime.WindowSetPosition(wctx, state.X, state.Y)
			}
			if w.notify != nil {
				wn := startDesktopNotifications(wctx, w.log, func(id, action string) {
					w.notify.respond(ctx, id, action)
				})
				if wn != nil && w.keepNotifier(wn) {
					w.notify.send = wn
					go w.notify.run(ctx)
				}
				wailsruntime.EventsOn(wctx, "window:focus", func(data ...any) {
					f, _ := firstArg(data).(bool)
					w.notify.focused.Store(f)
					w.log.Debug("window: focus", "focused", f)
				})
				wailsruntime.EventsOn(wctx, "window:thread", func(data ...any) {
					id, _ := firstArg(data).(string)
					w.notify.viewing.Store(id)
					w.log.Debug("window: shows", "thread", id)
				})
			}
			go func() {
				select {
				case <-ctx.Done():
				case <-w.hubQuit:
					w.log.Info("shutdown requested over the API")
				case err := <-w.hubDied:
					w.log.Error("http server stopped", "err", err)
				case <-stopped:
					return
				}
				wailsruntime.Quit(wctx)
			}()
		},
		OnDomReady: func(wctx context.Context) {
			w.domReady.Store(true)
			wailsruntime.WindowExecJS(wctx, focusScript)
		},
		// Quit (menu, Ctrl/Cmd+Q, a signal) comes here first: remember the
		// geometry, then let the window close and runDesktop stop the hub.
		OnBeforeClose: func(wctx context.Context) bool {
			return w.beforeClose(wctx, w.saveGeometry)
		},
		OnShutdown: func(context.Context) {
			close(stopped)
			w.closeNotifier()
		},
		Linux: &linux.Options{
			Icon:        a.Icon,
			ProgramName: "switchboard", // matches build/linux/switchboard.desktop
			// Wails' own default when Linux is nil: GPU compositing in
			// WebKitGTK crashes or paints nothing on some drivers (wails#2977).
			WebviewGpuPolicy: linux.WebviewGpuPolicyNever,
		},
	}, nil
}

// beforeClose is OnBeforeClose: the first quit saves the geometry (save)
// and lets the window close; every later one (a SIGTERM is two quits: Wails'
// own signal handler and ctx's) is cancelled and touches no GTK. On Linux
// Wails runs it on a goroutine of its own and then calls gtk_main_quit off
// the main thread: a second quit raced the main loop's end and the window's
// destruction (Gtk-CRITICAL "gtk_main_quit: assertion 'main_loops != NULL'
// failed" on every SIGTERM, and at worst a SIGSEGV in gtk_main_quit: exit
// 2). save must not return before GTK's main loop runs (saveGeometry
// waits for it): a gtk_main_quit before gtk_main is lost, and with the
// later quits cancelled an early SIGTERM would never end the app.
func (w *window) beforeClose(wctx context.Context, save func(context.Context)) (cancel bool) {
	if w.quitting.Swap(true) {
		return true
	}
	save(wctx)
	return false
}

// keepNotifier records the notifier OnStartup started, for OnShutdown to
// close; if OnShutdown ran already (an early quit), it closes it and
// reports false.
func (w *window) keepNotifier(n desktopNotifier) bool {
	w.mu.Lock()
	shutDown := w.shutDown
	if !shutDown {
		w.notifier = n
	}
	w.mu.Unlock()
	if shutDown {
		n.close()
	}
	return !shutDown
}

// closeNotifier is OnShutdown's: it closes the notifier, if one started.
func (w *window) closeNotifier() {
	w.mu.Lock()
	n := w.notifier
	w.notifier, w.shutDown = nil, true
	w.mu.Unlock()
	if n != nil {
		n.close()
	}
}

// desktopNotifier shows desktop notifications: D-Bus on Linux
// (notify_dbus.go), Wails' service elsewhere (notify_wails.go).
type desktopNotifier interface {
	notifySender
	close()
}

// boundBindings is what Wails binds. Before attach (the binding generator
// runs the app without a hub) it is a Bindings with no service: Wails only
// reads its method set.
func (w *window) boundBindings() *Bindings {
	if w.bindings == nil {
		w.bindings = &Bindings{ctx: context.Background(), emit: wailsEmitter{w}, log: slog.New(slog.DiscardHandler)}
	}
	return w.bindings
}

// saveGeometry writes the window's size and position to the data dir. It
// first asks GTK's main loop for the size, so it returns only once that
// loop runs (beforeClose needs it). Before the page loaded (an early quit)
// it saves nothing: Wails reads "maximised" off the main thread, from a
// window GTK may still be building (a Gdk-CRITICAL, a wrong geometry).
func (w *window) saveGeometry(wctx context.Context) {
	var s windowState
	s.Width, s.Height = wailsruntime.WindowGetSize(wctx) // on the main loop
	if !w.domReady.Load() {
		return
	}
	s.Maximised = wailsruntime.WindowIsMaximised(wctx)
	s.X, s.Y = wailsruntime.WindowGetPosition(wctx)
	if s.Maximised {
		// Keep the size it had before, for when it is unmaximised.
		if prev, ok := loadWindowState(w.dataDir); ok {
			s.X, s.Y, s.Width, s.Height = prev.X, prev.Y, prev.Width, prev.Height
		} else {
			s.Width, s.Height = defaultWidth, defaultHeight
		}
	}
	if err := saveWindowState(w.dataDir, s); err != nil && w.log != nil {
		w.log.Warn("window geometry not saved", "err", err)
	}
}

func firstArg(data []any) any {
	if len(data) == 0 {
		return nil
	}
	return data[0]
}
