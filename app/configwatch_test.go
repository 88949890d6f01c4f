package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// syncBuffer is a bytes.Buffer safe for a logger and a test to share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// watchRig is a configWatcher on a real file with real fsnotify, recording
// what it applies and reports.
type watchRig struct {
	t    *testing.T
	path string
	cw   *configWatcher
	log  *syncBuffer

	mu      sync.Mutex
	applied []Config
	errs    []error
}

// newWatchRig writes body to path, loads it as the hub would and starts a
// watcher on it.
func newWatchRig(t *testing.T, path, body string) *watchRig {
	t.Helper()
	if body != "" {
		writeFile(t, path, body)
	}
	cfg, err := LoadConfig(path, false)
	if err != nil {
		t.Fatal(err)
	}
	r := &watchRig{t: t, path: path, log: &syncBuffer{}}
	log := slog.New(slog.NewTextHandler(r.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	r.cw = newConfigWatcher(path, cfg, log,
		func(_, to Config) { r.mu.Lock(); r.applied = append(r.applied, to); r.mu.Unlock() },
		func(err error) { r.mu.Lock(); r.errs = append(r.errs, err); r.mu.Unlock() })
	if err := r.cw.start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		r.cw.close()
		if t.Failed() {
			t.Logf("watcher log:\n%s", r.log.String())
		}
	})
	return r
}

func (r *watchRig) applies() []Config {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.applied)
}

func (r *watchRig) reported() []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.errs)
}

// waitApplied waits until n configs have been applied and returns the last.
func (r *watchRig) waitApplied(n int) Config {
	r.t.Helper()
	waitFor(r.t, fmt.Sprintf("%d applied configs", n), func() bool { return len(r.applies()) >= n })
	a := r.applies()
	if len(a) != n {
		r.t.Fatalf("applied %d configs, want %d: %+v", len(a), n, a)
	}
	return a[n-1]
}

// mark is the watcher's check count, for settle.
func (r *watchRig) mark() int64 { return r.cw.checks.Load() }

// settle waits for the watcher to check the file since mark (taken before
// the writes), so a test can assert nothing happened.
func (r *watchRig) settle(n int64) {
	r.t.Helper()
	waitFor(r.t, "a check of the file", func() bool { return r.cw.checks.Load() > n })
	// Events from the same write may still be queued: let one more quiet
	// debounce pass.
	time.Sleep(2 * r.cw.debounce)
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// atomicSave writes body the way most editors save: a temp file in the same
// folder, renamed over path.
func atomicSave(t *testing.T, path, body string) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".swp")
	writeFile(t, tmp, body)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func timeoutConf(d string) string { return "permissions:\n  timeout: " + d + "\n" }

func TestConfigWatchInPlaceWrite(t *testing.T) {
	r := newWatchRig(t, filepath.Join(t.TempDir(), "config.yaml"), timeoutConf("5m"))
	m := r.mark()
	f, err := os.OpenFile(r.path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The empty file stays long enough to be read: it must not apply (it
	// would be the defaults, a 10m timeout).
	r.settle(m)
	if a := r.applies(); len(a) != 0 {
		t.Fatalf("the truncated file applied: %+v", a)
	}
	if _, err := f.WriteString(timeoutConf("7m")); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if c := r.waitApplied(1); c.Permissions.Timeout != 7*time.Minute {
		t.Fatalf("applied timeout %v, want 7m", c.Permissions.Timeout)
	}
	if got := r.cw.Config().Permissions.Timeout; got != 7*time.Minute {
		t.Fatalf("Config() timeout %v", got)
	}
}

func TestConfigWatchAtomicSave(t *testing.T) {
	r := newWatchRig(t, filepath.Join(t.TempDir(), "config.yaml"), timeoutConf("5m"))
	atomicSave(t, r.path, timeoutConf("6m")+"allowedOrigins: [http://a.test]\n")
	c := r.waitApplied(1)
	if c.Permissions.Timeout != 6*time.Minute || !slices.Equal(c.AllowedOrigins, []string{"http://a.test"}) {
		t.Fatalf("applied %+v", c)
	}
	atomicSave(t, r.path, timeoutConf("8m"))
	if c := r.waitApplied(2); c.Permissions.Timeout != 8*time.Minute {
		t.Fatalf("second save applied %v", c.Permissions.Timeout)
	}
}

func TestConfigWatchDeleteAndRecreate(t *testing.T) {
	r := newWatchRig(t, filepath.Join(t.TempDir(), "config.yaml"), timeoutConf("5m"))
	m := r.mark()
	if err := os.Remove(r.path); err != nil {
		t.Fatal(err)
	}
	r.settle(m)
	if a := r.applies(); len(a) != 0 {
		t.Fatalf("deleting the file applied %+v", a)
	}
	if got := r.cw.Config().Permissions.Timeout; got != 5*time.Minute || r.cw.LastError() != nil {
		t.Fatalf("after delete: timeout %v, error %v; want the last good config", got, r.cw.LastError())
	}
	writeFile(t, r.path, timeoutConf("9m"))
	if c := r.waitApplied(1); c.Permissions.Timeout != 9*time.Minute {
		t.Fatalf("recreated file applied %v", c.Permissions.Timeout)
	}
	// And the folder is still watched.
	atomicSave(t, r.path, timeoutConf("11m"))
	if c := r.waitApplied(2); c.Permissions.Timeout != 11*time.Minute {
		t.Fatalf("edit after recreate applied %v", c.Permissions.Timeout)
	}
}

func TestConfigWatchSymlink(t *testing.T) {
	linkDir, dirB, dirC := t.TempDir(), t.TempDir(), t.TempDir()
	target := filepath.Join(dirB, "real.yaml")
	writeFile(t, target, timeoutConf("5m"))
	link := filepath.Join(linkDir, "config.yaml")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	r := newWatchRig(t, link, "")
	if got := r.cw.Config().Permissions.Timeout; got != 5*time.Minute {
		t.Fatalf("start: %v", got)
	}

	// Edit the target, in its own folder: in place, then atomically.
	writeFile(t, target, timeoutConf("6m"))
	if c := r.waitApplied(1); c.Permissions.Timeout != 6*time.Minute {
		t.Fatalf("edited target applied %v", c.Permissions.Timeout)
	}
	atomicSave(t, target, timeoutConf("7m"))
	if c := r.waitApplied(2); c.Permissions.Timeout != 7*time.Minute {
		t.Fatalf("atomically saved target applied %v", c.Permissions.Timeout)
	}

	// Retarget the link atomically (ln -sfn: a new link renamed over).
	other := filepath.Join(dirC, "other.yaml")
	writeFile(t, other, timeoutConf("12m"))
	tmp := filepath.Join(linkDir, ".config.yaml.new")
	if err := os.Symlink(other, tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, link); err != nil {
		t.Fatal(err)
	}
	if c := r.waitApplied(3); c.Permissions.Timeout != 12*time.Minute {
		t.Fatalf("retargeted link applied %v", c.Permissions.Timeout)
	}
	// The new target's folder is watched now, the old one no longer counts.
	writeFile(t, other, timeoutConf("13m"))
	if c := r.waitApplied(4); c.Permissions.Timeout != 13*time.Minute {
		t.Fatalf("edited new target applied %v", c.Permissions.Timeout)
	}
	writeFile(t, target, timeoutConf("1m"))
	time.Sleep(3 * r.cw.debounce)
	if a := r.applies(); len(a) != 4 {
		t.Fatalf("editing the old target applied %+v", a[4:])
	}
}

func TestConfigWatchInvalidEdit(t *testing.T) {
	r := newWatchRig(t, filepath.Join(t.TempDir(), "config.yaml"), timeoutConf("5m"))
	atomicSave(t, r.path, "permissions:\n  timeout: 6m\nallowedOrigins: [http://a.test\n")
	waitFor(t, "the error", func() bool { return r.cw.LastError() != nil })
	err := r.cw.LastError()
	if msg := err.Error(); !strings.Contains(msg, r.path) || !strings.Contains(msg, "line 3") {
		t.Fatalf("error %q does not name the file and line 3", msg)
	}
	if errs := r.reported(); len(errs) != 1 || errs[0] != err {
		t.Fatalf("onError got %v, want [%v]", errs, err)
	}
	if a := r.applies(); len(a) != 0 {
		t.Fatalf("the invalid file applied %+v", a)
	}
	if got := r.cw.Config().Permissions.Timeout; got != 5*time.Minute {
		t.Fatalf("last good config lost: timeout %v", got)
	}
	if !strings.Contains(r.log.String(), "level=ERROR") {
		t.Fatalf("no error logged:\n%s", r.log.String())
	}

	// Fixing the file applies it and clears the error.
	atomicSave(t, r.path, timeoutConf("6m"))
	if c := r.waitApplied(1); c.Permissions.Timeout != 6*time.Minute {
		t.Fatalf("fixed file applied %v", c.Permissions.Timeout)
	}
	if r.cw.LastError() != nil {
		t.Fatalf("error not cleared: %v", r.cw.LastError())
	}
	if errs := r.reported(); len(errs) != 2 || errs[1] != nil {
		t.Fatalf("onError got %v, want the error then nil", errs)
	}
}

func TestConfigWatchUnknownKey(t *testing.T) {
	r := newWatchRig(t, filepath.Join(t.TempDir(), "config.yaml"), timeoutConf("5m"))
	m := r.mark()
	atomicSave(t, r.path, "# comment\npermissions:\n  timeout: 6m\n  timout: 7m\n")
	waitFor(t, "the error", func() bool { return r.cw.LastError() != nil })
	msg := r.cw.LastError().Error()
	if !strings.Contains(msg, r.path) || !strings.Contains(msg, "line 4: unknown key permissions.timout") {
		t.Fatalf("error %q does not name the file, line 4 and the key", msg)
	}
	r.settle(m)
	if a := r.applies(); len(a) != 0 {
		t.Fatalf("a file with an unknown key applied %+v", a)
	}
}

func TestConfigWatchUnchangedContent(t *testing.T) {
	r := newWatchRig(t, filepath.Join(t.TempDir(), "config.yaml"), timeoutConf("5m"))
	// The same bytes again (a save without changes), then only a comment.
	m := r.mark()
	atomicSave(t, r.path, timeoutConf("5m"))
	r.settle(m)
	m = r.mark()
	writeFile(t, r.path, "# just a comment\n"+timeoutConf("5m"))
	r.settle(m)
	if a := r.applies(); len(a) != 0 {
		t.Fatalf("unchanged config applied %+v", a)
	}
}

func TestConfigWatchDebouncesBursts(t *testing.T) {
	r := newWatchRig(t, filepath.Join(t.TempDir(), "config.yaml"), timeoutConf("5m"))
	m := r.mark()
	for i := 1; i <= 20; i++ {
		writeFile(t, r.path, timeoutConf(fmt.Sprintf("%dm", 20+i)))
		time.Sleep(5 * time.Millisecond)
	}
	if c := r.waitApplied(1); c.Permissions.Timeout != 40*time.Minute {
		t.Fatalf("burst applied %v, want the last write's 40m", c.Permissions.Timeout)
	}
	r.settle(m)
	if a := r.applies(); len(a) != 1 {
		t.Fatalf("burst applied %d times", len(a))
	}
}

func TestConfigWatchMissingFolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope", "config.yaml")
	cfg, err := LoadConfig(path, false)
	if err != nil {
		t.Fatal(err)
	}
	cw := newConfigWatcher(path, cfg, slog.New(slog.DiscardHandler), func(_, _ Config) {}, nil)
	if err := cw.start(); err == nil || !strings.Contains(err.Error(), "live reload is off") {
		t.Fatalf("start: %v, want live reload off", err)
	}
	cw.close() // safe after a failed start
}

func TestConfigDiff(t *testing.T) {
	a, err := parseConfig("a.yaml", []byte("agents:\n  x:\n    command: x\n  y:\n    command: y\n"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := parseConfig("b.yaml", []byte("listen: 127.0.0.1:9\npermissions:\n  timeout: 1m\nallowedOrigins: [http://a.test]\nagents:\n  x:\n    command: x2\n  z:\n    command: z\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"agents.x", "agents.y", "agents.z", "allowedOrigins", "listen", "permissions.timeout"}
	if got := configDiff(a, b); !slices.Equal(got, want) {
		t.Fatalf("configDiff = %v, want %v", got, want)
	}
}

// TestHubAppliesConfigEdits runs the hub as serve does and edits its config
// file: allowed origins and the permission timeout apply live; a listen
// change is reported and the hub keeps serving where it was.
func TestHubAppliesConfigEdits(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "config.yaml")
	writeFile(t, config, "listen: 127.0.0.1:0\n"+timeoutConf("5m"))
	o := Options{DataDir: filepath.Join(dir, "data"), Config: config}
	if err := o.resolve(); err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	h, err := startHub(context.Background(), &env{stdio: Stdio{Err: logs}}, o)
	if err != nil {
		t.Fatal(err)
	}
	defer h.stop(context.Background())
	var hookErrs []error
	var hookMu sync.Mutex
	h.onConfigError(func(err error) { hookMu.Lock(); hookErrs = append(hookErrs, err); hookMu.Unlock() })

	const origin = "http://tool.example"
	status := func() int {
		req, _ := http.NewRequest("GET", h.url+"/healthz", nil)
		req.Header.Set("Origin", origin)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := status(); s != http.StatusForbidden {
		t.Fatalf("origin %s before the edit: status %d, want 403", origin, s)
	}
	// The window and the tray see the hub-wide events.
	sub, err := h.engine.Subscribe(context.Background(), hub.Caller{ClientID: "tray", All: true}, "", -1)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	type applied struct {
		File    string
		Changed []string
	}
	wantApplied := func(what string, changed ...string) {
		t.Helper()
		ev := nextEvent(t, sub)
		var v applied
		json.Unmarshal(ev.Payload, &v)
		if ev.Type != hub.EventConfigApplied || v.File != config || !slices.Equal(v.Changed, changed) {
			t.Fatalf("%s: event %s %s, want config_applied of %q", what, ev.Type, ev.Payload, changed)
		}
		if strings.Contains(string(ev.Payload), "MY_KEY") || strings.Contains(string(ev.Payload), `"v"`) {
			t.Fatalf("%s: config_applied %s shows an agent's env", what, ev.Payload)
		}
	}

	atomicSave(t, config, "listen: 127.0.0.1:1\n"+timeoutConf("7m")+"allowedOrigins: ["+origin+"]\n"+
		"agents:\n  mine:\n    command: /bin/true\n    env:\n      MY_KEY: v\n")
	waitFor(t, "the origin to be allowed", func() bool { return status() == http.StatusOK })
	c := h.currentConfig()
	if c.Permissions.Timeout != 7*time.Minute || c.Listen != "127.0.0.1:0" {
		t.Fatalf("current config: timeout %v listen %s; want 7m and the running listen", c.Permissions.Timeout, c.Listen)
	}
	if got := h.engine.Config().PermissionTimeout; got != 7*time.Minute {
		t.Fatalf("engine permission timeout %v, want 7m", got)
	}
	agents, err := h.engine.ListAgents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(agents, func(a hub.Agent) bool { return a.ID == "mine" }) {
		t.Fatalf("the added agent is not listed: %+v", agents)
	}
	if env := c.Agents["mine"].Env; env["MY_KEY"] != "v" {
		t.Fatalf("agent env %v, want MY_KEY as written", env)
	}
	if l := logs.String(); !strings.Contains(l, "listen changed: restart Switchboard to apply") || !strings.Contains(l, "config reloaded") {
		t.Fatalf("log lacks the reload and the restart warning:\n%s", l)
	}
	wantApplied("the edit", "agents.mine", "allowedOrigins", "listen", "permissions.timeout")

	// An invalid edit: reported through the hook and as a config_error
	// event (which the window and the tray turn into a notification and a
	// trouble icon), and the hub keeps the last good config.
	atomicSave(t, config, "allowedOrigins: [\n")
	waitFor(t, "the config error", func() bool { return h.lastConfigError() != nil })
	hookMu.Lock()
	n := len(hookErrs)
	hookMu.Unlock()
	if n != 1 {
		t.Fatalf("hook called %d times, want once", n)
	}
	if s := status(); s != http.StatusOK {
		t.Fatalf("after an invalid edit: status %d, want the last good config's 200", s)
	}
	ev := nextEvent(t, sub)
	var v struct{ File, Message string }
	json.Unmarshal(ev.Payload, &v)
	if ev.Type != hub.EventConfigError || v.File != config || !strings.Contains(v.Message, "line") {
		t.Fatalf("event %s %s", ev.Type, ev.Payload)
	}
	// Fixed: a config_error with no message clears it.
	atomicSave(t, config, "permissions:\n  timeout: 7m\n")
	ev = nextEvent(t, sub)
	json.Unmarshal(ev.Payload, &v)
	if ev.Type != hub.EventConfigError || v.Message != "" {
		t.Fatalf("event after the fix %s %s", ev.Type, ev.Payload)
	}
	// Then the fixed file, applied: what changed since the last good one.
	wantApplied("the fixed file", "agents.mine", "allowedOrigins", "listen")
	bob, _ := h.engine.Subscribe(context.Background(), hub.Caller{ClientID: "bob"}, "", 0)
	defer bob.Close()
	select {
	case ev := <-bob.Events():
		t.Fatalf("a client without scope=all saw the hub-wide event %s", ev.Type)
	case <-time.After(200 * time.Millisecond):
	}
}

func nextEvent(t *testing.T, sub *hub.Subscription) hub.Event {
	t.Helper()
	select {
	case ev := <-sub.Events():
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event")
		return hub.Event{}
	}
}
