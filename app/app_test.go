package app

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	assets := Assets{Frontend: fstest.MapFS{"frontend/dist/index.html": {Data: []byte("<title>Switchboard</title>")}}}
	code = Run(context.Background(), args, Stdio{In: strings.NewReader(""), Out: &out, Err: &errOut}, assets)
	return code, out.String(), errOut.String()
}

func TestRun(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string // substring
		wantStderr string // substring
	}{
		{"version", []string{"version"}, 0, "switchboard dev\n", ""},
		{"dash dash version", []string{"--version"}, 0, "switchboard dev\n", ""},
		{"help", []string{"help"}, 0, "switchboard serve", ""},
		{"dash h", []string{"-h"}, 0, "switchboard acp", ""},
		{"serve with a missing --config", []string{"serve", "--config", "/nonexistent/c.yaml", "--listen", "127.0.0.1:0"}, 1, "", "config /nonexistent/c.yaml"},
		{"serve help", []string{"serve", "-h"}, 0, "", "-listen"},
		{"serve refuses arguments", []string{"serve", "now"}, 2, "", `unexpected argument "now"`},
		{"serve refuses unknown flags", []string{"serve", "--port", "1"}, 2, "", "flag provided but not defined: -port"},
		{"acp needs --agent", []string{"acp"}, 2, "", "the --agent flag is required"},
		{"acp has no listen flag", []string{"acp", "--listen", "x"}, 2, "", "flag provided but not defined: -listen"},
		{"desktop is not in a test build", nil, 2, "", "switchboard: the "},
		{"desktop takes the flags", []string{"--data-dir", "d", "--listen", "127.0.0.1:0", "--config", "c"}, 2, "", "not in this build"},
		{"unknown command", []string{"frobnicate"}, 2, "", `unknown command "frobnicate"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("SWITCHBOARD_DATA_DIR", t.TempDir())
			code, stdout, stderr := run(t, tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.wantCode, stderr)
			}
			if !strings.Contains(stdout, tt.wantStdout) {
				t.Errorf("stdout %q, want it to contain %q", stdout, tt.wantStdout)
			}
			if !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("stderr %q, want it to contain %q", stderr, tt.wantStderr)
			}
		})
	}
}

// A stamped build prints its version, commit and build date.
func TestVersionStamped(t *testing.T) {
	defer func(v, c, d string) { version, commit, buildDate = v, c, d }(version, commit, buildDate)
	version, commit, buildDate = "0.0.0~git20260102.abc1234", "abc1234def", "2026-01-02T03:04:05Z"
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		code, stdout, _ := run(t, args...)
		want := "switchboard 0.0.0~git20260102.abc1234\ncommit abc1234def\nbuilt 2026-01-02T03:04:05Z\n"
		if code != 0 || stdout != want {
			t.Errorf("%v: exit %d, stdout %q, want 0 and %q", args, code, stdout, want)
		}
	}
}

func TestOptionsResolve(t *testing.T) {
	home := t.TempDir()
	tests := []struct {
		name        string
		flags       Options
		env, xdg    string
		wantDataDir string
		wantListen  string
	}{
		// No --listen: empty, so that the config file's listen applies.
		{"defaults", Options{}, "", "", filepath.Join(home, ".local", "share", "switchboard"), ""},
		{"xdg", Options{}, "", "/xdg", "/xdg/switchboard", ""},
		{"relative xdg is ignored", Options{}, "", "xdg", filepath.Join(home, ".local", "share", "switchboard"), ""},
		{"env beats xdg", Options{}, "/env", "/xdg", "/env", ""},
		{"flag beats env", Options{DataDir: "/flag", Listen: "127.0.0.1:9"}, "/env", "/xdg", "/flag", "127.0.0.1:9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("HOME", home)
			t.Setenv("SWITCHBOARD_DATA_DIR", tt.env)
			t.Setenv("XDG_DATA_HOME", tt.xdg)
			o := tt.flags
			if err := o.resolve(); err != nil {
				t.Fatal(err)
			}
			if o.DataDir != tt.wantDataDir || o.Listen != tt.wantListen {
				t.Errorf("got data dir %q, listen %q; want %q, %q", o.DataDir, o.Listen, tt.wantDataDir, tt.wantListen)
			}
		})
	}
}

func TestResolveMakesDataDirAbsolute(t *testing.T) {
	o := Options{DataDir: "rel"}
	if err := o.resolve(); err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(o.DataDir) || filepath.Base(o.DataDir) != "rel" {
		t.Errorf("data dir %q, want an absolute path ending in rel", o.DataDir)
	}
}

// The config file's listen applies when --listen is not given, and
// --listen wins over it. (Regression: resolve used to fill in the default
// address, so the config's listen was never used.)
func TestServeListenFromConfigOrFlag(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(config, []byte("listen: 127.0.0.1:0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	flagAddr := free.Addr().String()
	free.Close()
	for _, tt := range []struct {
		name, flag, wantPort string
	}{
		{"config", "", ""}, // any port the kernel picks, not 8686
		{"flag beats config", flagAddr, flagAddr[strings.LastIndex(flagAddr, ":")+1:]},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := Options{DataDir: filepath.Join(dir, tt.name), Config: config, Listen: tt.flag}
			if err := o.resolve(); err != nil {
				t.Fatal(err)
			}
			h, err := startHub(context.Background(), &env{stdio: Stdio{Err: io.Discard}}, o)
			if err != nil {
				t.Fatal(err)
			}
			defer h.stop(context.Background())
			u, err := url.Parse(h.url)
			if err != nil {
				t.Fatal(err)
			}
			if port := u.Port(); port == "8686" || port == "0" || tt.wantPort != "" && port != tt.wantPort {
				t.Errorf("hub listens at %s, want port %q (config listen 127.0.0.1:0, --listen %q)", h.url, tt.wantPort, tt.flag)
			}
		})
	}
}

// SIGINT or SIGTERM during start-up (the context cancelled before the hub
// is up) is a stop asked for: exit 0, no "context canceled" error, the
// data dir released.
func TestServeStoppedWhileStarting(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(config, []byte("registry:\n  url: \"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stderr strings.Builder
	code := Run(ctx, []string{"serve", "--data-dir", data, "--config", config, "--listen", "127.0.0.1:0"},
		Stdio{In: strings.NewReader(""), Out: io.Discard, Err: &stderr}, Assets{})
	if code != exitOK || strings.Contains(stderr.String(), "context canceled") {
		t.Errorf("serve stopped while starting: exit %d, stderr:\n%s\nwant 0 and no error", code, stderr.String())
	}
	o := Options{DataDir: data, Config: config, Listen: "127.0.0.1:0"}
	if err := o.resolve(); err != nil {
		t.Fatal(err)
	}
	h, err := startHub(context.Background(), &env{stdio: Stdio{Err: io.Discard}}, o)
	if err != nil {
		t.Fatalf("the data dir was not released: %v", err)
	}
	h.stop(context.Background())
}

// The package doc lists every subcommand of the dispatch table.
func TestPackageDocNamesEveryCommand(t *testing.T) {
	b, err := os.ReadFile("app.go")
	if err != nil {
		t.Fatal(err)
	}
	doc, _, _ := strings.Cut(string(b), "\npackage app")
	for _, c := range commands() {
		if c.name == "" {
			continue
		}
		if !strings.Contains(doc, "//\tswitchboard "+c.name+" ") {
			t.Errorf("the package doc in app.go does not list `switchboard %s`", c.name)
		}
	}
}
