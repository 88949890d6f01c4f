package app

import (
	"encoding/json"
	"flag"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// fakeTrayOutEnv, when set, makes this test binary a fake tray child: it
// writes what it was given (argv, env, the secret read from --secret-fd)
// as JSON to that file, then waits for SIGTERM.
const fakeTrayOutEnv = "SWITCHBOARD_FAKE_TRAY_OUT"

type fakeTrayReport struct {
	Args, Env []string
	Secret    string
}

func runFakeTrayIfRequested() {
	out := os.Getenv(fakeTrayOutEnv)
	if out == "" {
		return
	}
	fs := flag.NewFlagSet("fake-tray", flag.ExitOnError)
	fs.String("data-dir", "", "")
	fd := fs.Int("secret-fd", -1, "")
	fs.Parse(os.Args[1:])
	rep := fakeTrayReport{Args: os.Args, Env: os.Environ()}
	if *fd >= 0 {
		b, _ := io.ReadAll(os.NewFile(uintptr(*fd), "secret"))
		rep.Secret = string(b)
	}
	b, _ := json.Marshal(rep)
	os.WriteFile(out+".tmp", b, 0o600)
	os.Rename(out+".tmp", out)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM)
	<-sig
	os.Exit(0)
}
