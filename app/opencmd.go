package app

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

// runOpenCommand is `switchboard open [flags] THREAD`: it shows the thread
// where the user works. A hub inside the desktop app shows it in its
// window (the second launch hands its arguments over, as Wails'
// single-instance lock does); a headless hub opens it in the browser
// through a one-time login link to /#/t/<id> (never the token; --print
// writes the link instead of starting a browser).
func runOpenCommand(ctx context.Context, e *env, args []string) error {
	var o Options
	fs := newFlagSet(e, "open", "switchboard open [flags] THREAD")
	o.register(fs, false)
	browser := fs.Bool("browser", false, "open it in the browser even when the desktop app runs the hub")
	printLink := fs.Bool("print", false, "print the one-time login link (valid 30 s) instead of opening a browser")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(e.stdio.Err, "usage: switchboard open [flags] THREAD")
		return errUsage
	}
	id := threadArg(fs.Arg(0))
	if err := o.resolve(); err != nil {
		return err
	}
	h, err := client.Discover(o.DataDir)
	if err != nil {
		return fmt.Errorf("no hub is running on %s: start Switchboard first (%w)", o.DataDir, err)
	}
	c := client.New(o.DataDir, client.Options{ClientID: "switchboard-cli", All: true})
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if _, err := c.Thread(ctx, id); err != nil {
		if client.IsCode(err, hub.CodeNotFound) {
			return fmt.Errorf("no thread %s on the hub", id)
		}
		return err
	}
	if h.Window && !*browser && !*printLink {
		if err := showInRunningWindow(o.DataDir, id); err == nil {
			fmt.Fprintf(e.stdio.Err, "switchboard: showed thread %s in the window\n", id)
			return nil
		}
	}
	link, err := c.LoginLink(ctx, ThreadPath(id))
	if err != nil {
		return fmt.Errorf("asking the hub for a login link: %w", err)
	}
	if *printLink {
		fmt.Fprintln(e.stdio.Out, link)
		return nil
	}
	return openBrowser(link)
}

// threadArg is the thread id in what the user gave: an id, or a link to
// one (…/#/t/<id>).
func threadArg(s string) string {
	if i := strings.LastIndex(s, "#/t/"); i >= 0 {
		s = s[i+len("#/t/"):]
	}
	return strings.TrimSpace(s)
}

// threadToOpen is the thread a second launch asks the running window to
// show: the last argument of `switchboard open … THREAD`, else "".
func threadToOpen(args []string) string {
	if len(args) < 2 || args[0] != "open" {
		return ""
	}
	last := args[len(args)-1]
	if strings.HasPrefix(last, "-") {
		return ""
	}
	return threadArg(last)
}

// openBrowser hands u, a one-time login link, to the desktop's browser.
// A variable for tests.
var openBrowser = func(u string) error { return client.OpenBrowser(u, nil) }
