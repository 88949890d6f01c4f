package app

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/switchboard-hub/switchboard/app/editorbridge"
	"github.com/switchboard-hub/switchboard/hub"
)

// A command is one subcommand of switchboard.
type command struct {
	name    string // "" for the desktop app, the default
	summary string
	run     func(ctx context.Context, e *env, args []string) error
}

// commands is the dispatch table, in the order usage lists them. (A function,
// not a variable: help refers back to it.)
func commands() []command {
	return []command{
		{"", "open the desktop app (the default)", withOptions("", true, runDesktop)},
		{"serve", "run the hub headless: the HTTP/SSE API on --listen", withOptions("serve", true, serve)},
		{"acp", "run the editor bridge: an ACP agent on stdio that talks to the hub", runBridgeCommand},
		{"agents", "agents install ID | remove ID | install-node: npm agents into the data dir", runAgentsCommand},
		{"open", "open a thread: in the window, else in the browser (a one-time login link)", runOpenCommand},
		{"db", "db compact: deleted threads' text leaves the database files", runDBCommand},
		{"hosts", "hosts add NAME SSH | list | status | remove NAME | connect NAME: other machines over ssh", runHostsCommand},
		{"token", "rotate: a new API token; a running hub refuses the old one at once", runTokenCommand},
		{"version", "print the version, commit and build date (also --version)", runVersionCommand},
		{"help", "show this help", runHelpCommand},
	}
}

// lookup picks the command for args and returns it with its arguments.
// No argument, or a first argument that is a flag, is the desktop app.
// It returns nil for an unknown command.
func lookup(args []string) (*command, []string) {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && isHelpFlag(args[0]) {
			return find("help"), args[1:]
		}
		if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
			return find("version"), args[1:]
		}
		return find(""), args
	}
	if c := find(args[0]); c != nil && c.name != "" {
		return c, args[1:]
	}
	return nil, nil
}

func find(name string) *command {
	for _, c := range commands() {
		if c.name == name {
			return &c
		}
	}
	return nil
}

func isHelpFlag(s string) bool {
	switch s {
	case "-h", "-help", "--help":
		return true
	}
	return false
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "Switchboard %s, a desktop hub for coding agents.\n\nUsage:\n", version)
	for _, c := range commands() {
		name := "switchboard " + c.name
		if c.name == "" {
			name = "switchboard"
		}
		fmt.Fprintf(w, "  %-22s %s\n", name, c.summary)
	}
	fmt.Fprintf(w, "\nRun 'switchboard COMMAND -h' for a command's flags.\n")
}

func runHelpCommand(_ context.Context, e *env, _ []string) error {
	usage(e.stdio.Out)
	return nil
}

func runVersionCommand(_ context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "version", "switchboard version")
	if err := parse(fs, args); err != nil {
		return err
	}
	fmt.Fprint(e.stdio.Out, versionText())
	return nil
}

// versionText is what `switchboard version` (and --version) prints: the
// version, then the commit and the build date (UTC) when the build was
// stamped with them (make does; a bare go build is "dev" alone).
func versionText() string {
	s := "switchboard " + version + "\n"
	if commit != "" {
		s += "commit " + commit + "\n"
	}
	if buildDate != "" {
		s += "built " + buildDate + "\n"
	}
	return s
}

// withOptions makes a command that parses the common flags (--listen only
// if listen), applies the defaults and calls run.
func withOptions(name string, listen bool, run func(context.Context, *env, Options) error) func(context.Context, *env, []string) error {
	return func(ctx context.Context, e *env, args []string) error {
		var o Options
		fs := newFlagSet(e, name, strings.TrimSpace("switchboard "+name)+" [flags]")
		o.register(fs, listen)
		if name == "serve" {
			fs.BoolVar(&o.Daemon, "daemon", false, "start the hub detached (a new session, output to <data-dir>/hub.log) and return; one already running is reused")
		}
		if err := parse(fs, args); err != nil {
			return err
		}
		if err := o.resolve(); err != nil {
			return err
		}
		return run(ctx, e, o)
	}
}

// runBridgeCommand is `switchboard acp --agent ID [flags]`: the common flags
// (without --listen) plus the required --agent.
func runBridgeCommand(ctx context.Context, e *env, args []string) error {
	var o Options
	var agent string
	autoStart := true
	fs := newFlagSet(e, "acp", "switchboard acp --agent ID [flags]")
	o.register(fs, false)
	fs.StringVar(&agent, "agent", "", "relay to the hub's agent `ID` (an id of GET /v1/agents, e.g. claude)")
	fs.BoolVar(&autoStart, "start-hub", true, "start `switchboard serve` in the background when no hub runs")
	var host string
	fs.StringVar(&host, "host", "", "run the agent on host `NAME` (a host the hub links to; its agent, its files)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if agent == "" {
		fmt.Fprintf(fs.Output(), "the --agent flag is required\n")
		fs.Usage()
		return errUsage
	}
	if host == hub.LocalHost {
		host = ""
	}
	if host != "" && !hub.ValidHostName(host) {
		fmt.Fprintf(fs.Output(), "--host %q: a host's name is [a-z0-9-]{1,32}\n", host)
		return errUsage
	}
	if err := o.resolve(); err != nil {
		return err
	}
	return editorbridge.Run(ctx, editorbridge.Options{
		DataDir: o.DataDir, Config: o.Config, Agent: agent, Host: host, StartHub: autoStart, Version: version,
		Stdin: e.stdio.In, Stdout: e.stdio.Out, Stderr: e.stdio.Err,
	})
}
