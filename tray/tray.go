// Package tray is switchboard-tray, the tray helper: its own process, a
// client of the hub's HTTP/SSE API like any other, through hub/client (the
// one Go client of the API). It is not part of the switchboard binary
// because getlantern/systray and Wails cannot share a process on macOS
// (both define AppDelegate). Of the module it imports only hub (the API's
// types) and hub/client (app/deps_test.go enforces it).
//
// The systray code needs cgo and libayatana-appindicator3 and is built only
// with the desktop tag (as the window is); without it switchboard-tray is a
// stub that says so, and go vet and go test need no GUI library.
//
// The pieces, from the wire to the panel:
//
//   - hub/client (not in this package): discovery (<data-dir>/hub.json and
//     token), the typed calls, the API's errors and the event stream.
//   - watch.go: Watcher, the tray's use of hub/client (always ?scope=all,
//     X-Client-ID switchboard-tray, and the secret of the app that
//     started it, if any, in X-Switchboard-Tray). It owns a Model: it connects, snapshots, follows
//     GET /v1/events, resumes with Last-Event-ID, reconnects with backoff
//     and publishes menus at most every 100 ms.
//   - model.go: Model, a pure state machine from a snapshot and events to
//     a Menu (icon state, title, tooltip, status line, permission and turn
//     entries); it decodes the event payload fields it reads.
//   - menu.go: layout, which maps Menus onto the fixed entries systray
//     can show, and clicks back to Actions; actions.go carries them out.
//   - systray.go (desktop tag): the panel, through getlantern/systray;
//     gtkpanel_linux.go, what GTK leaves out while a panel draws the menu;
//     itemcheck_linux.go, that the panel's StatusNotifierWatcher lists
//     the tray's item (libayatana-appindicator's bus race, ADR 0049).
package tray

// The empty GTK theme the tray embeds (gtkpanel_linux.go), compiled from
// gtktheme/; TestGTKThemeResource checks it is current.
//go:generate glib-compile-resources --sourcedir=gtktheme --target=gtktheme/gtktheme.gresource gtktheme/gtktheme.gresource.xml

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
)

// version is set at link time, as the switchboard binary's is (make:
// -X github.com/switchboard-hub/switchboard/tray.version=…).
var version = "dev"

// versionOut is where --version prints (a variable for tests).
var versionOut io.Writer = os.Stdout

// Tooltip is the tray icon's tooltip before the first menu is shown.
const Tooltip = "Switchboard"

// Options is switchboard-tray's command line.
type Options struct {
	DataDir string // where hub.json tells the hub's address
	// SecretFD is the descriptor the app that started the tray passes its
	// per-launch secret on (--secret-fd; -1: none, a tray started by hand).
	SecretFD int
	secret   string // read from SecretFD by Run
}

// Main runs switchboard-tray with os.Args and exits.
func Main() {
	oneProc()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Run(ctx, os.Args[1:], os.Stderr)
	stop()
	os.Exit(code)
}

// oneProc runs the tray's goroutines on one P (GOMAXPROCS=1) unless the
// user set GOMAXPROCS: it waits on the hub and on clicks and has no work
// for two, and each P keeps its own cache of heap spans (one per size
// class), ~0.3 MiB of the tray's memory on a machine of two cores and
// more on bigger ones (docs/PERFORMANCE.md "The desktop's footprint").
// GTK's loop, in a cgo call, holds no P.
func oneProc() {
	if _, set := os.LookupEnv("GOMAXPROCS"); !set {
		runtime.GOMAXPROCS(1)
	}
}

// Run parses args, shows the tray until ctx is done or the user quits, and
// returns the exit status.
func Run(ctx context.Context, args []string, stderr io.Writer) int {
	var o Options
	fs := flag.NewFlagSet("switchboard-tray", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.DataDir, "data-dir", "", "find the hub through `DIR`/hub.json\n(default $SWITCHBOARD_DATA_DIR, else $XDG_DATA_HOME/switchboard)")
	showVersion := fs.Bool("version", false, "print the version and exit")
	fs.IntVar(&o.SecretFD, "secret-fd", -1, "read the secret of the app that starts the tray from descriptor `N`\n(the app passes it; its decisions are then the tray's)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "switchboard-tray: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *showVersion {
		fmt.Fprintf(versionOut, "switchboard-tray %s\n", version)
		return 0
	}
	if err := o.resolve(); err != nil {
		fmt.Fprintf(stderr, "switchboard-tray: %v\n", err)
		return 1
	}
	if o.SecretFD >= 0 {
		s, err := readSecret(o.SecretFD)
		if err != nil {
			fmt.Fprintf(stderr, "switchboard-tray: %v\n", err)
			return 1
		}
		o.secret = s
	}
	if err := run(ctx, o); err != nil {
		fmt.Fprintf(stderr, "switchboard-tray: %v\n", err)
		if errors.Is(err, errNoTray) {
			return 2
		}
		return 1
	}
	return 0
}

// resolve fills in the data dir as switchboard does (API.md: flag, then
// $SWITCHBOARD_DATA_DIR, then $XDG_DATA_HOME/switchboard or the OS's own).
func (o *Options) resolve() error {
	if o.DataDir == "" {
		o.DataDir = os.Getenv("SWITCHBOARD_DATA_DIR")
	}
	if o.DataDir == "" {
		switch runtime.GOOS {
		case "darwin", "windows":
			d, err := os.UserConfigDir()
			if err != nil {
				return fmt.Errorf("data dir: %w (set --data-dir)", err)
			}
			o.DataDir = filepath.Join(d, "switchboard")
		default:
			if d := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
				o.DataDir = filepath.Join(d, "switchboard")
				break
			}
			home, err := os.UserHomeDir()
			if err != nil {
				return fmt.Errorf("data dir: %w (set --data-dir)", err)
			}
			o.DataDir = filepath.Join(home, ".local", "share", "switchboard")
		}
	}
	d, err := filepath.Abs(o.DataDir)
	if err != nil {
		return fmt.Errorf("data dir: %w", err)
	}
	o.DataDir = d
	return nil
}

// maxSecret bounds what readSecret reads.
const maxSecret = 1024

// readSecret reads the app's per-launch secret from descriptor fd (0:
// stdin) to EOF and closes it. The secret is printable ASCII, 16 to maxSecret bytes.
func readSecret(fd int) (string, error) {
	f := os.NewFile(uintptr(fd), "secret")
	if fd == 0 {
		// Stdin (how the app passes it on Windows, where a descriptor
		// number is no handle).
		f = os.Stdin
	}
	if f == nil {
		return "", fmt.Errorf("--secret-fd %d: not a descriptor", fd)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSecret+1))
	if err != nil {
		return "", fmt.Errorf("--secret-fd %d: %w", fd, err)
	}
	s := strings.TrimSpace(string(b))
	if len(s) < 16 || len(s) > maxSecret || strings.IndexFunc(s, func(r rune) bool { return r <= ' ' || r > '~' }) >= 0 {
		return "", fmt.Errorf("--secret-fd %d: not a secret (%d bytes)", fd, len(b))
	}
	return s, nil
}

// errNoTray: this build has no tray (built without the desktop tag).
var errNoTray = errors.New("the tray is not in this build: build with `make build` " +
	"(go build -tags desktop ./tray/cmd/switchboard-tray; needs cgo and libayatana-appindicator3-dev)")
