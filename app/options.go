package app

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/switchboard-hub/switchboard/app/config"
)

// Options is what the command line says, before the config file is read.
// An empty field was not given; resolve fills in the defaults.
type Options struct {
	Config  string // --config: the config file
	DataDir string // --data-dir, else $SWITCHBOARD_DATA_DIR, else defaultDataDir
	// Listen is --listen: the hub's HTTP address. Empty: the config
	// file's listen (whose default is config.DefaultListen) applies.
	Listen string
	// Socket is --socket: serve the API on this unix socket (in a 0700
	// folder) instead of TCP; a host's hub, reached through the ssh link.
	Socket string
	// Daemon is serve's --daemon: start the hub detached (app/daemon).
	Daemon bool

	// window is set by the desktop app: the hub runs behind a window.
	window bool
}

// register adds the flags to fs; listen says whether the command serves.
func (o *Options) register(fs *flag.FlagSet, listen bool) {
	fs.StringVar(&o.Config, "config", "", "read the config from `FILE`")
	fs.StringVar(&o.DataDir, "data-dir", "", "keep the database, token and hub.json in `DIR`\n(default $SWITCHBOARD_DATA_DIR, else "+dataDirHint()+")")
	if listen {
		fs.StringVar(&o.Listen, "listen", "", "serve the HTTP/SSE API on `ADDR` (default: the config file's listen, else "+config.DefaultListen+")")
		fs.StringVar(&o.Socket, "socket", "", "serve the API on the unix socket `PATH` only (its folder made 0700), not on TCP")
	}
}

// resolve applies the environment and the defaults to what the flags left
// empty. The config file, once read, sits between the two.
func (o *Options) resolve() error {
	if o.DataDir == "" {
		o.DataDir = os.Getenv("SWITCHBOARD_DATA_DIR")
	}
	if o.DataDir == "" {
		d, err := defaultDataDir()
		if err != nil {
			return fmt.Errorf("data dir: %w (set --data-dir)", err)
		}
		o.DataDir = d
	}
	d, err := filepath.Abs(o.DataDir)
	if err != nil {
		return fmt.Errorf("data dir: %w", err)
	}
	o.DataDir = d
	// Listen stays empty when not given: the config file, read later,
	// says where to listen (startHub).
	return nil
}

// defaultDataDir is $XDG_DATA_HOME/switchboard (~/.local/share/switchboard)
// on Linux and the BSDs, and the user config dir's switchboard folder
// elsewhere (~/Library/Application Support, %AppData%).
func defaultDataDir() (string, error) {
	switch runtime.GOOS {
	case "darwin", "windows", "ios", "android", "plan9":
		d, err := os.UserConfigDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(d, "switchboard"), nil
	}
	if d := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "switchboard"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "share", "switchboard"), nil
}

func dataDirHint() string {
	switch runtime.GOOS {
	case "darwin", "windows", "ios", "android", "plan9":
		return "the user config dir's switchboard folder"
	}
	return "$XDG_DATA_HOME/switchboard"
}

// errHelp and errUsage end a command whose flags asked for help (exit 0) or
// were wrong (exit 2); the flag package has printed the message already.
var (
	errHelp  = errors.New("help requested")
	errUsage = errors.New("usage error")
)

func newFlagSet(e *env, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet("switchboard "+name, flag.ContinueOnError)
	fs.SetOutput(e.stdio.Err)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: %s\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args and refuses positional arguments: no command takes any.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return errUsage
	}
	return nil
}
