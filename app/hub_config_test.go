package app

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
	"github.com/switchboard-hub/switchboard/hub"
)

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
	logs := &testkit.Buffer{}
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

// nextEvent is sub's next event within 10 s. agents_changed is skipped: an agent added by an edit is probed
// (ADR 0047), and the probe's agents_changed comes whenever it ends,
// before or after the config's next event.
func nextEvent(t *testing.T, sub *hub.Subscription) hub.Event {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case ev := <-sub.Events():
			if ev.Type == hub.EventAgentsChanged {
				continue
			}
			return ev
		case <-deadline:
			t.Fatal("no event")
			return hub.Event{}
		}
	}
}

// waitFor fails t unless cond holds within 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testkit.Eventually(t, 10*time.Second, what, cond)
}

// waitSubscribed waits until n's run hears live events.
func waitSubscribed(t *testing.T, n *notifier) {
	t.Helper()
	waitFor(t, "the notifier to subscribe", func() bool { return n.subscribed.Load() > 0 })
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
