package tray

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
	"github.com/switchboard-hub/switchboard/hub"
)

// stubOpeners replaces the browser and app launchers for a test.
func stubOpeners(t *testing.T) (urls, starts *[]string) {
	t.Helper()
	var mu sync.Mutex
	urls, starts = new([]string), new([]string)
	oldURL, oldApp := openURL, startApp
	openURL = func(u string) error { mu.Lock(); defer mu.Unlock(); *urls = append(*urls, u); return nil }
	startApp = func(d, thread string) error {
		mu.Lock()
		defer mu.Unlock()
		if thread != "" {
			d += " open " + thread
		}
		*starts = append(*starts, d)
		return nil
	}
	t.Cleanup(func() { openURL, startApp = oldURL, oldApp })
	return urls, starts
}

func TestOpen(t *testing.T) {
	urls, starts := stubOpeners(t)
	h := newFakeHub(t)
	w := &Watcher{DataDir: h.dir, Log: quietLog()}
	w.Do(context.Background(), Action{Kind: ActOpen})
	// The opener's argv (visible in /proc to every local user) holds a
	// one-time code, never the token.
	if len(*urls) != 1 || (*urls)[0] != h.srv.URL+"/auth?code=c0de1" || len(*starts) != 0 {
		t.Fatalf("with a hub: urls %q starts %q", *urls, *starts)
	}
	if strings.Contains((*urls)[0], testToken) || strings.Contains((*urls)[0], "token") {
		t.Fatalf("the opened URL %q holds the token", (*urls)[0])
	}
	if len(h.codes) != 1 || h.codes[0] != "/" {
		t.Fatalf("login codes asked for %q", h.codes)
	}
	h.srv.Close() // hub.json left behind, nobody answers: start the app
	w.Do(context.Background(), Action{Kind: ActOpen})
	empty := &Watcher{DataDir: t.TempDir(), Log: quietLog()}
	empty.Do(context.Background(), Action{Kind: ActOpen})
	if len(*urls) != 1 || len(*starts) != 2 || (*starts)[0] != h.dir || (*starts)[1] != empty.DataDir {
		t.Fatalf("without a hub: urls %d starts %q", len(*urls), *starts)
	}
}

// A tray started at login before Switchboard: the watcher says it is not
// running, and Start (the Open entry) launches the app on the tray's data
// dir.
func TestNotRunningOffersStart(t *testing.T) {
	_, starts := stubOpeners(t)
	got := newMenus()
	dir := t.TempDir()
	w := &Watcher{DataDir: dir, Log: quietLog(), Publish: got.publish}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	m := got.waitFor(t, "not running", 5*time.Second, func(m Menu) bool { return m.NotRunning })
	if m.Status != "Switchboard is not running" || m.Connected {
		t.Fatalf("menu %s", dump(m))
	}
	w.Do(ctx, Action{Kind: ActOpen})
	if len(*starts) != 1 || (*starts)[0] != dir {
		t.Fatalf("Start launched %q, want the app on %s", *starts, dir)
	}
}

func TestDoLogsWithoutToken(t *testing.T) {
	h := newFakeHub(t)
	h.threads = []hub.Thread{{ID: "th1", Agent: "a", Status: "idle"}}
	var buf bytes.Buffer
	w := &Watcher{DataDir: h.dir, Log: slog.New(slog.NewTextHandler(&buf, nil))}
	ctx := context.Background()
	// No hub found yet: the action fails and is logged.
	w.Do(ctx, Action{Kind: ActCancel, Turn: "tu1"})
	if !strings.Contains(buf.String(), "action failed") {
		t.Fatalf("log %q", buf.String())
	}
	w.mu.Lock()
	w.client = h.client(t)
	w.mu.Unlock()
	w.Do(ctx, Action{Kind: ActCancel, Turn: "tu1"})
	w.Do(ctx, Action{Kind: ActDecide, Permission: "gone", Decision: hub.Decision{Outcome: "approved"}})
	w.Do(ctx, Action{Kind: ActNone})
	out := buf.String()
	for _, want := range []string{"action done", "cancel tu1", "already decided"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, testToken) {
		t.Errorf("token in the log:\n%s", out)
	}
}

// A hub inside the desktop app (hub.json's window): Open launches the app
// again, which raises the running window, instead of a browser tab.
func TestOpenRaisesTheWindow(t *testing.T) {
	urls, starts := stubOpeners(t)
	h := newFakeHub(t)
	b, err := os.ReadFile(filepath.Join(h.dir, "hub.json"))
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.Replace(b, []byte(`"version"`), []byte(`"window":true,"version"`), 1)
	if err := os.WriteFile(filepath.Join(h.dir, "hub.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	w := &Watcher{DataDir: h.dir, Log: quietLog()}
	w.Do(context.Background(), Action{Kind: ActOpen})
	if len(*urls) != 0 || len(*starts) != 1 || (*starts)[0] != h.dir {
		t.Fatalf("urls %q starts %q", *urls, *starts)
	}
}

// Open thread: the browser gets a one-time link to /#/t/<thread>; with a
// hub in the desktop app, `switchboard open THREAD` shows it in the window.
func TestOpenThread(t *testing.T) {
	urls, starts := stubOpeners(t)
	h := newFakeHub(t)
	w := &Watcher{DataDir: h.dir, Log: quietLog()}
	w.Do(context.Background(), Action{Kind: ActOpen, Thread: "th_42"})
	if len(*urls) != 1 || len(h.codes) != 1 || h.codes[0] != "/#/t/th_42" || len(*starts) != 0 {
		t.Fatalf("urls %q codes %q starts %q", *urls, h.codes, *starts)
	}
	b, err := os.ReadFile(filepath.Join(h.dir, "hub.json"))
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.Replace(b, []byte(`"version"`), []byte(`"window":true,"version"`), 1)
	if err := os.WriteFile(filepath.Join(h.dir, "hub.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	w.Do(context.Background(), Action{Kind: ActOpen, Thread: "th_42"})
	if len(*urls) != 1 || len(*starts) != 1 || (*starts)[0] != h.dir+" open th_42" {
		t.Fatalf("with the window: urls %q starts %q", *urls, *starts)
	}
}

// What the tray starts gets childEnv (the environment before the tray
// changed its own for GTK), unless the command sets its own.
func TestStartDetachedEnv(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	old := childEnv
	t.Cleanup(func() { childEnv = old })
	dir := t.TempDir()
	childEnv = []string{"SB_PROBE=before", "PATH=" + os.Getenv("PATH")}
	t.Setenv("SB_PROBE", "after")
	run := func(name string, env []string) string {
		t.Helper()
		out := filepath.Join(dir, name)
		cmd := exec.Command("sh", "-c", `printf %s "$SB_PROBE" >"$0.tmp" && mv "$0.tmp" "$0"`, out)
		cmd.Env = env
		if err := startDetached(cmd, name); err != nil {
			t.Fatal(err)
		}
		var b []byte
		if !testkit.Until(30*time.Second, func() bool {
			var err error
			b, err = os.ReadFile(out)
			return err == nil
		}) {
			t.Fatalf("%s: the command wrote nothing in 30 s", name)
		}
		return string(b)
	}
	if got := run("inherited", nil); got != "before" {
		t.Errorf("a command without its own environment saw SB_PROBE=%q, want the one before (childEnv)", got)
	}
	if got := run("own", []string{"SB_PROBE=own"}); got != "own" {
		t.Errorf("a command with its own environment saw SB_PROBE=%q, want own", got)
	}
	childEnv = nil
	if got := run("nochild", nil); got != "after" {
		t.Errorf("without childEnv a command saw SB_PROBE=%q, want the tray's own", got)
	}
}
