//go:build linux

package tray

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"

	// Test-only: the scriptable fake ACP agent the hub starts. The tray
	// itself imports nothing of the module but hub and hub/client
	// (app/deps_test.go).
	"github.com/switchboard-hub/switchboard/acp/acptest"
)

func TestMain(m *testing.M) {
	acptest.RunFakeAgentIfRequested()
	code := m.Run()
	if hubBin.dir != "" {
		os.RemoveAll(hubBin.dir)
	}
	os.Exit(code)
}

// hubBin is the headless hub, built once for the package's tests from
// the module root, or SWITCHBOARD_TRAY_TEST_HUB when set (a prebuilt
// `go build -tags headless` binary).
var hubBin struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func buildHub(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the real hub")
	}
	hubBin.once.Do(func() {
		if p := os.Getenv("SWITCHBOARD_TRAY_TEST_HUB"); p != "" {
			hubBin.path = p
			return
		}
		hubBin.dir, hubBin.err = os.MkdirTemp("", "tray-hub-")
		if hubBin.err != nil {
			return
		}
		hubBin.path = filepath.Join(hubBin.dir, "switchboard")
		cmd := exec.Command("go", "build", "-tags", "headless", "-o", hubBin.path, ".")
		cmd.Dir = ".." // the module root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			hubBin.err = fmt.Errorf("go build -tags headless: %v\n%s", err, out)
		}
	})
	if hubBin.err != nil {
		t.Fatal(hubBin.err)
	}
	return hubBin.path
}

// realHub is a `switchboard serve` process on a data dir, restartable.
type realHub struct {
	t       *testing.T
	bin     string
	dataDir string
	config  string
	log     bytes.Buffer
	logMu   sync.Mutex
	cmd     *exec.Cmd
	// script calls the hub as a script would: its own client id, no
	// scope=all. It finds the hub again after a restart.
	script *client.Client
}

func (h *realHub) Write(p []byte) (int, error) {
	h.logMu.Lock()
	defer h.logMu.Unlock()
	return h.log.Write(p)
}

// newRealHub prepares a hub of the fake agent; extra adds top-level
// config sections (e.g. "permissions").
func newRealHub(t *testing.T, extra ...map[string]any) *realHub {
	t.Helper()
	dir := t.TempDir()
	h := &realHub{t: t, bin: buildHub(t), dataDir: filepath.Join(dir, "data")}
	h.script = client.New(h.dataDir, client.Options{ClientID: "script"})
	path, args, env := acptest.FakeAgentArgv(t)
	envMap := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		envMap[k] = v
	}
	// JSON is YAML: the config file needs no YAML library.
	conf := map[string]any{
		"notifications": map[string]any{"enabled": false},
		"registry":      map[string]any{"url": ""}, // no test hub asks the public ACP registry
		"agents": map[string]any{
			"fake": map[string]any{"name": "Fake", "command": path, "args": args, "env": envMap},
		},
	}
	for _, e := range extra {
		for k, v := range e {
			conf[k] = v
		}
	}
	cfg, _ := json.Marshal(conf)
	h.config = filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(h.config, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.kill)
	return h
}

// start starts the hub and waits for its hub.json.
func (h *realHub) start() {
	t := h.t
	t.Helper()
	cmd := exec.Command(h.bin, "serve", "--data-dir", h.dataDir, "--config", h.config, "--listen", "127.0.0.1:0")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SWITCHBOARD_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Stdout, cmd.Stderr = h, h
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h.cmd = cmd
	if !testkit.Until(30*time.Second, func() bool {
		d, err := client.ReadDiscovery(h.dataDir)
		return err == nil && d.PID == cmd.Process.Pid
	}) {
		t.Fatalf("no hub.json within 30 s\n%s", h.logText())
	}
}

// kill9 kills the hub's process group, leaving hub.json behind.
func (h *realHub) kill() {
	if h.cmd == nil || h.cmd.Process == nil {
		return
	}
	syscall.Kill(-h.cmd.Process.Pid, syscall.SIGKILL)
	h.cmd.Wait()
	h.cmd = nil
}

func (h *realHub) logText() string {
	h.logMu.Lock()
	defer h.logMu.Unlock()
	return h.log.String()
}

// createThread creates a thread of the fake agent, as a script would.
func (h *realHub) createThread(title string) hub.Thread {
	h.t.Helper()
	th, err := h.script.CreateThread(context.Background(), hub.CreateThreadRequest{Agent: "fake", Cwd: h.t.TempDir(), Title: title})
	if err != nil {
		h.t.Fatalf("POST threads: %v\n%s", err, h.logText())
	}
	return th
}

// askPermission starts a turn whose agent asks a permission.
func (h *realHub) askPermission(threadID string) {
	h.t.Helper()
	if _, err := h.script.StartTurn(context.Background(), threadID, hub.TurnInput{Input: "permission"}); err != nil {
		h.t.Fatalf("POST turns: %v\n%s", err, h.logText())
	}
}

// permissions lists the script's permissions (the ones of its threads).
func (h *realHub) permissions() []hub.Permission {
	h.t.Helper()
	ps, err := h.script.Permissions(context.Background(), "")
	if err != nil {
		h.t.Fatalf("GET permissions: %v", err)
	}
	return ps
}

// The tray against the real headless hub: it sees another client's
// permission (scope=all), approves it (as client:switchboard-tray: a tray
// started by hand has no secret from the app), follows the turn to its
// end, shows trouble while the hub is killed, and recovers when it is
// restarted on the same data dir.
func TestRealHub(t *testing.T) {
	h := newRealHub(t)
	h.start()
	got := newMenus()
	w := &Watcher{DataDir: h.dataDir, Publish: got.publish, Log: quietLog()}
	runWatcher(t, w)
	ctx := context.Background()
	got.waitFor(t, "idle", 10*time.Second, func(m Menu) bool { return m.Icon == IconIdle })

	th := h.createThread("Clean up")
	h.askPermission(th.ID)
	m := got.waitFor(t, "a permission", 10*time.Second, func(m Menu) bool { return m.Icon == IconNeedsYou })
	want := PermissionItem{ID: m.Permissions[0].ID, ThreadID: th.ID, Title: "Fake: make clean",
		Details: []string{"Runs: make clean", "In: " + th.Cwd, "The agent says: “Run make clean”"},
		Approve: &hub.Decision{OptionID: "allow-once"}, Deny: &hub.Decision{OptionID: "reject-once"}, Always: &hub.Decision{OptionID: "allow-always"},
		RememberAllow: &hub.Decision{Outcome: "approved", Remember: "thread"}, RememberDeny: &hub.Decision{Outcome: "declined", Remember: "thread"}}
	if !reflect.DeepEqual(m.Permissions, []PermissionItem{want}) || m.Title != "1" ||
		m.Status != "1 agent working · 1 approval waiting" || len(m.Turns) != 1 || m.Turns[0].Title != "Fake: Clean up" {
		t.Fatalf("menu %s", dump(m))
	}
	if err := w.Decide(ctx, want.ID, *want.Approve); err != nil {
		t.Fatal(err)
	}
	got.waitFor(t, "idle after the turn", 10*time.Second, func(m Menu) bool { return m.Icon == IconIdle })
	if ps := h.permissions(); len(ps) != 1 || ps[0].Status != "approved" ||
		ps[0].DecidedBy != "client:switchboard-tray" || ps[0].OptionID != "allow-once" {
		t.Fatalf("permissions after the decision: %+v", ps)
	}

	// Cancel a running turn from the menu.
	h.askPermission(th.ID)
	m = got.waitFor(t, "a running turn", 10*time.Second, func(m Menu) bool { return len(m.Turns) == 1 && len(m.Permissions) == 1 })
	if err := w.CancelTurn(ctx, m.Turns[0].TurnID); err != nil {
		t.Fatal(err)
	}
	got.waitFor(t, "idle after cancel", 10*time.Second, func(m Menu) bool { return m.Icon == IconIdle })

	// Kill the hub: trouble. Restart it: connected, and live again.
	h.kill()
	m = got.waitFor(t, "trouble", 10*time.Second, func(m Menu) bool { return m.Icon == IconTrouble })
	if m.Status != "Hub unreachable: cannot connect" && m.Status != "Hub unreachable: the hub closed the connection" {
		t.Errorf("trouble status %q", m.Status)
	}
	h.start()
	got.waitFor(t, "reconnected", 15*time.Second, func(m Menu) bool { return m.Icon == IconIdle })
	// A new thread: the old one's next prompt carries the context the hub
	// replays to an agent that lost its session, which the fake agent
	// does not take for a script command.
	th = h.createThread("")
	h.askPermission(th.ID)
	m = got.waitFor(t, "a permission after the restart", 10*time.Second, func(m Menu) bool {
		return m.Icon == IconNeedsYou
	}, h.logText)
	if err := w.Decide(ctx, m.Permissions[0].ID, *m.Permissions[0].Deny); err != nil {
		t.Fatal(err)
	}
	got.waitFor(t, "idle at the end", 10*time.Second, func(m Menu) bool { return m.Icon == IconIdle })

	// Quit Switchboard: the hub shuts down gracefully and exits 0; the
	// tray shows it unreachable.
	if err := w.QuitHub(ctx); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- h.cmd.Wait() }()
	select {
	case err := <-exited:
		h.cmd = nil
		if err != nil {
			t.Fatalf("hub after Quit Switchboard: %v\n%s", err, h.logText())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("hub still running 30 s after Quit Switchboard\n%s", h.logText())
	}
	got.waitFor(t, "trouble after the hub quit", 10*time.Second, func(m Menu) bool { return m.Icon == IconTrouble })
}

// `switchboard token rotate` while the tray runs: the hub refuses the old
// token and ends the tray's stream; the tray reads the token file again
// and goes on — it sees the next permission and decides it.
func TestRealHubTokenRotate(t *testing.T) {
	h := newRealHub(t)
	h.start()
	got := newMenus()
	w := &Watcher{DataDir: h.dataDir, Publish: got.publish, Log: quietLog()}
	runWatcher(t, w)
	ctx := context.Background()
	got.waitFor(t, "idle", 10*time.Second, func(m Menu) bool { return m.Icon == IconIdle })
	old := w.Client()

	cmd := exec.Command(h.bin, "token", "rotate", "--data-dir", h.dataDir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("switchboard token rotate: %v\n%s", err, out)
	}
	// A call through the client of before the rotation: 401, the token
	// file read again, the call made again with the new token.
	if _, err := old.Agents(ctx); err != nil {
		t.Fatalf("the tray's client after the rotation: %v", err)
	}
	th := h.createThread("After the rotation")
	h.askPermission(th.ID)
	m := got.waitFor(t, "a permission after the rotation", 15*time.Second, func(m Menu) bool { return m.Icon == IconNeedsYou }, h.logText)
	if err := w.Decide(ctx, m.Permissions[0].ID, *m.Permissions[0].Approve); err != nil {
		t.Fatalf("deciding after the rotation: %v", err)
	}
	got.waitFor(t, "idle after the decision", 10*time.Second, func(m Menu) bool { return m.Icon == IconIdle })
	if !strings.Contains(h.logText(), "API token rotated") {
		t.Errorf("the hub did not log the rotation")
	}
}

// "Open Switchboard" beside `serve`: the browser is handed a one-time
// login link (on the opener's argv, which every local user can read in
// /proc), never the token; the link signs in once.
func TestRealHubOpen(t *testing.T) {
	urls, starts := stubOpeners(t)
	h := newRealHub(t)
	h.start()
	w := &Watcher{DataDir: h.dataDir, Log: quietLog()}
	if err := w.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(*urls) != 1 || len(*starts) != 0 {
		t.Fatalf("urls %q starts %q", *urls, *starts)
	}
	link := (*urls)[0]
	tok, _ := os.ReadFile(filepath.Join(h.dataDir, "token"))
	if !strings.Contains(link, "/auth?code=") || strings.Contains(link, strings.TrimSpace(string(tok))) || strings.Contains(link, "token") {
		t.Fatalf("the tray opened %q", link)
	}
	get := func() (int, string) {
		resp, err := http.Get(link)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if status, body := get(); status != 200 || !strings.Contains(body, "sessionStorage.setItem") {
		t.Fatalf("the link: %d\n%s", status, body)
	}
	if status, _ := get(); status != 401 {
		t.Fatalf("the link a second time: %d", status)
	}
}
