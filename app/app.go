// Package app is Switchboard's composition root: it reads the command line,
// wires the hub, the store and the ACP client together, and is the only
// package (with main) that imports Wails.
//
// Subcommands (commands.go is the table; TestPackageDocNamesEveryCommand
// keeps this list to it):
//
//	switchboard [flags]          the desktop app (a Wails window)
//	switchboard serve [flags]    the headless hub: the HTTP/SSE API on --listen
//	switchboard acp [flags]      the editor bridge (an ACP agent on stdio)
//	switchboard agents           install, remove npm agents and Node in the data dir
//	switchboard hosts            other machines' hubs over the user's ssh: add, list, remove
//	switchboard open             open a thread in the window, else the browser
//	switchboard db compact       deleted threads' text leaves the database files
//	switchboard token rotate     a new API token, the old one refused at once
//	switchboard version          print the version, commit and build date
//	switchboard help             the usage
//
// The window lives behind the build tag split: desktop.go (!headless) imports
// Wails, desktop_headless.go (headless) does not, so
// `CGO_ENABLED=0 go build -tags headless .` is a binary with no GUI library.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"syscall"

	"github.com/switchboard-hub/switchboard/acp"
)

// The build's identity, set at link time by make (build/version.sh):
//
//	go build -ldflags "-X github.com/switchboard-hub/switchboard/app.version=1.2.3 \
//	  -X github.com/switchboard-hub/switchboard/app.commit=<sha> \
//	  -X github.com/switchboard-hub/switchboard/app.buildDate=2026-01-02T03:04:05Z"
var (
	version   = "dev"
	commit    = "" // the git commit, with "-dirty" when the tree had changes
	buildDate = "" // when it was built, RFC 3339 in UTC
)

// Version reports the version the binary was built as ("dev" by default).
func Version() string { return version }

// Assets is what main embeds for the app.
type Assets struct {
	// Frontend holds the built frontend under frontend/dist.
	Frontend fs.FS
	// Icon is build/appicon.png, the window icon.
	Icon []byte
}

// Stdio is the standard streams a command uses.
type Stdio struct {
	In       io.Reader
	Out, Err io.Writer
}

// Main runs the command line in os.Args and exits with its status.
// SIGINT and SIGTERM cancel the command's context: every command shuts down
// cleanly on either.
func Main(assets Assets) {
	if len(os.Args) > 1 && os.Args[1] == acp.SupervisorArg {
		// Hidden: the hub re-executes itself in front of each agent and
		// terminal command (acp.Supervisor, ADR 0029). Never returns.
		acp.SuperviseMain(os.Args[2:])
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Run(ctx, os.Args[1:], Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}, assets)
	stop()
	os.Exit(code)
}

// Exit statuses.
const (
	exitOK    = 0
	exitError = 1 // the command ran and failed
	exitUsage = 2 // bad command line, or a command this build does not have yet
)

// Run runs one command line (without the program name) and returns the exit
// status. Errors go to stdio.Err as "switchboard <command>: <error>".
func Run(ctx context.Context, args []string, stdio Stdio, assets Assets) int {
	cmd, rest := lookup(args)
	if cmd == nil {
		fmt.Fprintf(stdio.Err, "switchboard: unknown command %q\n\n", args[0])
		usage(stdio.Err)
		return exitUsage
	}
	err := cmd.run(ctx, &env{stdio: stdio, assets: assets}, rest)
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errHelp):
		return exitOK
	case errors.Is(err, errUsage):
		// The flag package has already said what was wrong.
		return exitUsage
	}
	prog := "switchboard"
	if cmd.name != "" {
		prog += " " + cmd.name
	}
	fmt.Fprintf(stdio.Err, "%s: %v\n", prog, err)
	var nb notBuiltError
	if errors.As(err, &nb) {
		return exitUsage
	}
	return exitError
}

// env is what a command gets besides its arguments.
type env struct {
	stdio  Stdio
	assets Assets
}

// notBuiltError is returned by a command whose machinery is not in this
// binary (a placeholder, or a build tag that left it out). It exits 2.
type notBuiltError string

func (e notBuiltError) Error() string { return string(e) }
