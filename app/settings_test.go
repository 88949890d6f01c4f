package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
	"github.com/switchboard-hub/switchboard/app/config"
	"github.com/switchboard-hub/switchboard/hub"
)

// settingsRig is a real hub (startHub: engine, SQLite, HTTP on loopback,
// config watcher) on a real config file, driven over the HTTP API.
type settingsRig struct {
	t      *testing.T
	h      *runningHub
	config string // as given to the hub
	logs   *testkit.Buffer
}

// newSettingsRig writes body to config (unless body is "") and starts a
// hub on it; config "" starts one on the default config path (which the
// test points into a temp dir with XDG_CONFIG_HOME).
func newSettingsRig(t *testing.T, config, body string) *settingsRig {
	t.Helper()
	dir := t.TempDir()
	if body != "" {
		writeFile(t, config, body)
	}
	o := Options{DataDir: filepath.Join(dir, "data"), Config: config, Listen: "127.0.0.1:0"}
	if err := o.resolve(); err != nil {
		t.Fatal(err)
	}
	logs := &testkit.Buffer{}
	h, err := startHub(context.Background(), &env{stdio: Stdio{Err: logs}}, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.stop(context.Background()) })
	return &settingsRig{t: t, h: h, config: config, logs: logs}
}

// answer is a settings answer or an error, with its status.
type answer struct {
	status   int
	body     string
	Settings hub.Settings `json:"settings"`
	Error    struct {
		Code    string         `json:"code"`
		Message string         `json:"message"`
		Details map[string]any `json:"details"`
	} `json:"error"`
}

func (r *settingsRig) call(method, body string) answer {
	r.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, r.h.url+"/v1/settings", rd)
	req.Header.Set("Authorization", "Bearer "+r.h.token)
	req.Header.Set("X-Client-ID", "settings-test")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, body: string(b)}
	if err := json.Unmarshal(b, &a); err != nil {
		r.t.Fatalf("%s /v1/settings: %d %s: %v", method, resp.StatusCode, b, err)
	}
	return a
}

func (r *settingsRig) patch(body string) hub.Settings {
	r.t.Helper()
	a := r.call("PATCH", body)
	if a.status != 200 {
		r.t.Fatalf("PATCH %s: %d %s", body, a.status, a.body)
	}
	return a.Settings
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const commentedConfig = `# My Switchboard config.
listen: 127.0.0.1:0
permissions:
  timeout: 5m # long enough to read the request
# the agents I use
agents:
  claude:
    env:
      ANTHROPIC_API_KEY: sk-secret-value # do not share
  mine:
    name: Mine
    command: /bin/true
    env: {MINE_TOKEN: tok-secret-value, OTHER: keep-me}
context:
  recentTurns: 4
`

// A patch changes only what it names, in place: comments, key order and
// other keys stay; the running hub applies it before the answer; the
// watcher then sees its own write as unchanged.
func TestSettingsPatchKeepsTheFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "config.yaml")
	r := newSettingsRig(t, file, commentedConfig)

	s := r.patch(`{"permissions":{"timeout":"2m"},"ui":{"theme":"dark"},"notifications":{"turnCompleted":false}}`)
	if s.Permissions.Timeout != "2m" || s.UI.Theme != "dark" || s.Notifications.TurnCompleted || !s.Notifications.Enabled {
		t.Fatalf("answer %+v", s)
	}
	// Applied at once, through the watcher's path: no waiting.
	if got := r.h.engine.Config().PermissionTimeout; got != 2*time.Minute {
		t.Errorf("engine permission timeout %v right after the PATCH, want 2m", got)
	}
	if c := r.h.currentConfig(); c.UI.Theme != "dark" || c.Notifications.TurnCompleted {
		t.Errorf("current config %+v", c.UI)
	}

	got := readFile(t, file)
	for _, want := range []string{
		"# My Switchboard config.", "timeout: 2m # long enough to read the request", "# the agents I use",
		"ANTHROPIC_API_KEY: sk-secret-value # do not share", "recentTurns: 4", "theme: dark", "turnCompleted: false",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the file lacks %q:\n%s", want, got)
		}
	}
	order := []string{"listen:", "permissions:", "agents:", "context:", "notifications:", "ui:"}
	last := -1
	for _, k := range order {
		i := strings.Index(got, "\n"+k)
		if k == "listen:" {
			i = strings.Index(got, k)
		}
		if i <= last {
			t.Errorf("key %s out of order (want %v):\n%s", k, order, got)
		}
		last = i
	}
	if _, err := config.Load(file, true); err != nil {
		t.Errorf("the written file does not load: %v", err)
	}

	// The watcher's check of the write finds its content unchanged.
	n := r.h.watcher.Checks()
	waitFor(t, "the watcher to check the written file", func() bool { return r.h.watcher.Checks() > n })
	// Any later event of the same write is checked within the debounce.
	testkit.Never(t, 2*config.Debounce, "the watcher reloaded the written file again", func() bool {
		return strings.Count(r.logs.String(), "config reloaded") > 1
	})
	if c := strings.Count(r.logs.String(), "config reloaded"); c != 1 {
		t.Errorf("config reloaded %d times, want once (the PATCH, not the watcher again):\n%s", c, r.logs.String())
	}
	if e := r.h.lastConfigError(); e != nil {
		t.Errorf("watcher error after the write: %v", e)
	}
}

// Environment values are never returned, and a patch of an agent keeps
// the values it does not name (null removes one).
func TestSettingsAgentsNeverReturnEnvValues(t *testing.T) {
	config := filepath.Join(t.TempDir(), "config.yaml")
	r := newSettingsRig(t, config, commentedConfig)

	get := r.call("GET", "")
	if get.status != 200 {
		t.Fatalf("GET: %d %s", get.status, get.body)
	}
	if strings.Contains(get.body, "secret-value") || strings.Contains(get.body, "keep-me") {
		t.Fatalf("GET /v1/settings leaks an env value: %s", get.body)
	}
	idx := slices.IndexFunc(get.Settings.Agents, func(a hub.AgentSettings) bool { return a.ID == "mine" })
	if idx < 0 || !slices.Equal(get.Settings.Agents[idx].EnvKeys, []string{"MINE_TOKEN", "OTHER"}) || get.Settings.Agents[idx].Builtin {
		t.Fatalf("agents %+v", get.Settings.Agents)
	}
	if c := get.Settings.Agents[slices.IndexFunc(get.Settings.Agents, func(a hub.AgentSettings) bool { return a.ID == "claude" })]; !c.Builtin {
		t.Errorf("claude %+v: want builtin", c)
	}
	if get.Settings.ConfigFile != config || get.Settings.UI.Theme != "system" || get.Settings.Permissions.Timeout != "5m" {
		t.Errorf("settings %+v", get.Settings)
	}

	patch := r.call("PATCH", `{"agents":{"mine":{"name":"Mine 2","command":"/bin/cat","args":["--acp"],"env":{"NEW_KEY":"new-secret-value","OTHER":null}}}}`)
	if patch.status != 200 || strings.Contains(patch.body, "secret-value") {
		t.Fatalf("PATCH: %d %s", patch.status, patch.body)
	}
	c := r.h.currentConfig().Agents["mine"]
	if c.Command != "/bin/cat" || c.Name != "Mine 2" || !slices.Equal(c.Args, []string{"--acp"}) {
		t.Errorf("agent after the patch: %+v", c)
	}
	want := map[string]string{"MINE_TOKEN": "tok-secret-value", "NEW_KEY": "new-secret-value"}
	if fmt.Sprint(c.Env) != fmt.Sprint(want) {
		t.Errorf("agent env %v, want %v (kept, added, OTHER removed)", c.Env, want)
	}
	if !strings.Contains(readFile(t, config), "ANTHROPIC_API_KEY: sk-secret-value") {
		t.Errorf("another agent's env changed:\n%s", readFile(t, config))
	}
	agents, err := r.h.engine.ListAgents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.IndexFunc(agents, func(a hub.Agent) bool { return a.ID == "mine" }); i < 0 || agents[i].Command != "/bin/cat --acp" || agents[i].Name != "Mine 2" {
		t.Errorf("GET /v1/agents after the patch: %+v", agents)
	}

	// Removing it: gone from the file, the settings and the catalogue.
	s := r.patch(`{"agents":{"mine":null}}`)
	if slices.ContainsFunc(s.Agents, func(a hub.AgentSettings) bool { return a.ID == "mine" }) || strings.Contains(readFile(t, config), "mine:") {
		t.Errorf("agent not removed: %+v\n%s", s.Agents, readFile(t, config))
	}
	agents, _ = r.h.engine.ListAgents(context.Background())
	if slices.ContainsFunc(agents, func(a hub.Agent) bool { return a.ID == "mine" }) {
		t.Errorf("the removed agent is still listed")
	}
}

// An invalid patch answers 400 naming the field and leaves the file byte
// for byte as it was; a file with a hand-made error answers 409.
func TestSettingsInvalidPatchLeavesTheFile(t *testing.T) {
	config := filepath.Join(t.TempDir(), "config.yaml")
	r := newSettingsRig(t, config, commentedConfig)
	before := readFile(t, config)
	tests := []struct {
		body, field string
	}{
		{`{"ui":{"theme":"blue"}}`, "ui.theme"},
		{`{"permissions":{"timeout":"-1m"}}`, "permissions.timeout"},
		{`{"permissions":{"timeout":"48h"}}`, "permissions.timeout"},
		{`{"agents":{"new":{"name":"No command"}}}`, "agents.new.command"},
		{`{"agents":{"Bad/Id":{"command":"x"}}}`, "agents"},
		{`{"ui":{"theme":"dark"},"agents":{"x":{"command":""}}}`, "agents.x.command"},
	}
	for _, tt := range tests {
		a := r.call("PATCH", tt.body)
		if a.status != 400 || a.Error.Code != hub.CodeInvalidArgument || a.Error.Details["field"] != tt.field || !strings.Contains(a.Error.Message, strings.Split(tt.field, ".")[0]) {
			t.Errorf("PATCH %s: %d %s; want 400 naming %s", tt.body, a.status, a.body, tt.field)
		}
		if got := readFile(t, config); got != before {
			t.Fatalf("PATCH %s changed the file:\n%s", tt.body, got)
		}
	}
	if c := r.h.currentConfig(); c.UI.Theme != "system" {
		t.Errorf("theme %q after refused patches", c.UI.Theme)
	}

	// A hand edit with an error: the settings page cannot write over it.
	broken := before + "permissons:\n  timeout: 1m\n"
	writeFile(t, config, broken)
	a := r.call("PATCH", `{"ui":{"theme":"dark"}}`)
	if a.status != 409 || a.Error.Code != hub.CodeConflict || !strings.Contains(a.Error.Message, "permissons") {
		t.Errorf("PATCH over a broken file: %d %s", a.status, a.body)
	}
	if got := readFile(t, config); got != broken {
		t.Errorf("the broken file was changed:\n%s", got)
	}
	// GET says why, with the line, while the last good config stays in
	// force; fixed by hand, it says nothing again.
	waitFor(t, "configError in GET /v1/settings", func() bool { return r.call("GET", "").Settings.ConfigError != "" })
	if a := r.call("GET", ""); !strings.Contains(a.Settings.ConfigError, "line 16: unknown key permissons") || a.Settings.Permissions.Timeout != "5m" {
		t.Errorf("GET over a broken file: %s; want its error with the line, and the last good timeout", a.body)
	}
	writeFile(t, config, before)
	waitFor(t, "configError cleared", func() bool { return r.call("GET", "").Settings.ConfigError == "" })
}

// The write is atomic (a new inode renamed over the file, no temp file
// left), keeps the file's mode, and writes through a symlink to its
// target, so the link stays.
func TestSettingsAtomicWriteThroughSymlink(t *testing.T) {
	real := filepath.Join(t.TempDir(), "dotfiles", "switchboard.yaml")
	if err := os.MkdirAll(filepath.Dir(real), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, real, "listen: 127.0.0.1:0\n")
	if err := os.Chmod(real, 0o640); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	r := newSettingsRig(t, link, "")
	before, err := os.Stat(real)
	if err != nil {
		t.Fatal(err)
	}

	r.patch(`{"ui":{"theme":"light"}}`)
	fi, err := os.Lstat(link)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the config is no longer a symlink: %v %v", fi, err)
	}
	after, err := os.Stat(real)
	if err != nil {
		t.Fatal(err)
	}
	if os.SameFile(before, after) {
		t.Error("the target was written in place, not replaced by a rename")
	}
	if after.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want the file's 0640 kept", after.Mode().Perm())
	}
	if !strings.Contains(readFile(t, real), "theme: light") {
		t.Errorf("target:\n%s", readFile(t, real))
	}
	entries, _ := os.ReadDir(filepath.Dir(real))
	if len(entries) != 1 {
		t.Errorf("files left beside the config: %v", entries)
	}
	if c := r.h.currentConfig(); c.UI.Theme != "light" {
		t.Errorf("theme %q", c.UI.Theme)
	}
}

// With no config file yet (and no folder: live reload off), a patch
// creates the file, 0600 in a 0700 folder, with just the patched keys,
// and the hub applies it.
func TestSettingsCreatesTheFile(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	r := newSettingsRig(t, "", "")
	config := filepath.Join(home, "switchboard", "config.yaml")
	if s := r.call("GET", "").Settings; s.ConfigFile != config || s.UI.Theme != "system" || s.Permissions.Timeout != "10m" {
		t.Fatalf("settings without a file: %+v", s)
	}
	s := r.patch(`{"permissions":{"timeout":"45s"}}`)
	if s.Permissions.Timeout != "45s" || r.h.engine.Config().PermissionTimeout != 45*time.Second {
		t.Errorf("after the patch: %+v, engine %v", s.Permissions, r.h.engine.Config().PermissionTimeout)
	}
	if got := readFile(t, config); got != "permissions:\n  timeout: 45s\n" {
		t.Errorf("new file:\n%q", got)
	}
	if m := fileModeOf(t, config); m != 0o600 {
		t.Errorf("file mode %v", m)
	}
	if m := fileModeOf(t, filepath.Dir(config)); m != 0o700 {
		t.Errorf("folder mode %v", m)
	}
}

func fileModeOf(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// Concurrent patches are serialised: every one of them is in the file and
// in force.
func TestSettingsConcurrentPatches(t *testing.T) {
	file := filepath.Join(t.TempDir(), "config.yaml")
	r := newSettingsRig(t, file, "listen: 127.0.0.1:0\n")
	const n = 8
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			r.patch(fmt.Sprintf(`{"agents":{"a%d":{"command":"/bin/true"}}}`, i))
		})
	}
	wg.Go(func() { r.patch(`{"ui":{"theme":"dark"}}`) })
	wg.Wait()
	c, err := config.Load(file, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Agents) != n || c.UI.Theme != "dark" {
		t.Fatalf("file has %d agents and theme %q, want %d and dark:\n%s", len(c.Agents), c.UI.Theme, n, readFile(t, file))
	}
	if cur := r.h.currentConfig(); len(cur.Agents) != n || cur.UI.Theme != "dark" {
		t.Errorf("in force: %d agents, theme %q", len(cur.Agents), cur.UI.Theme)
	}
}

// The window's bindings are the same operations: GetSettings and
// UpdateSettings over the hub's settings, NOT_FOUND without them.
func TestBindingsSettings(t *testing.T) {
	config := filepath.Join(t.TempDir(), "config.yaml")
	r := newSettingsRig(t, config, "listen: 127.0.0.1:0\n")
	b := NewBindings(context.Background(), r.h.engine.Services(), nil, nil)
	if _, err := b.GetSettings(); hub.ErrorCode(err) != hub.CodeNotFound || formatError(err) != `{"code":"NOT_FOUND","message":"settings are not available"}` {
		t.Errorf("without settings: %v", err)
	}
	b.svcs.Settings = r.h.settingsService()
	theme := "dark"
	s, err := b.UpdateSettings(hub.SettingsPatch{UI: &hub.UISettingsPatch{Theme: &theme}})
	if err != nil || s.UI.Theme != "dark" {
		t.Fatalf("UpdateSettings: %+v %v", s.UI, err)
	}
	if got := r.call("GET", "").Settings.UI.Theme; got != "dark" {
		t.Errorf("GET /v1/settings after the window's update: theme %q", got)
	}
	bad := "blue"
	_, err = b.UpdateSettings(hub.SettingsPatch{UI: &hub.UISettingsPatch{Theme: &bad}})
	if !strings.Contains(fmt.Sprint(formatError(err)), `"code":"INVALID_ARGUMENT"`) {
		t.Errorf("invalid theme through the window: %v", formatError(err))
	}
	if s, err := b.GetSettings(); err != nil || s.UI.Theme != "dark" || s.ConfigFile != config {
		t.Errorf("GetSettings: %+v %v", s, err)
	}
}

// BenchmarkSettingsPatch is one PATCH /v1/settings over loopback: read,
// patch the YAML, validate, write (fsync, rename), apply to the hub.
func BenchmarkSettingsPatch(b *testing.B) {
	dir := b.TempDir()
	config := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(config, []byte(commentedConfig), 0o600); err != nil {
		b.Fatal(err)
	}
	o := Options{DataDir: filepath.Join(dir, "data"), Config: config, Listen: "127.0.0.1:0"}
	if err := o.resolve(); err != nil {
		b.Fatal(err)
	}
	h, err := startHub(context.Background(), &env{stdio: Stdio{Err: io.Discard}}, o)
	if err != nil {
		b.Fatal(err)
	}
	defer h.stop(context.Background())
	themes := []string{"dark", "light"}
	b.ResetTimer()
	for i := range b.N {
		req, _ := http.NewRequest("PATCH", h.url+"/v1/settings", strings.NewReader(`{"ui":{"theme":"`+themes[i%2]+`"}}`))
		req.Header.Set("Authorization", "Bearer "+h.token)
		req.Header.Set("X-Client-ID", "bench")
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
}
