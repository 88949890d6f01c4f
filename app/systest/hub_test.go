//go:build linux

package systest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/acp/acptest"
	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

// The hub under test: the real `switchboard serve` (built once per test
// run with -tags headless) as a separate process on 127.0.0.1:0 with a
// temp data dir and config file, its processes and its agents' seen
// through /proc. The fake ACP agent is this test binary (TestMain).

// e2eBins are the programs buildE2E builds once for every test.
type e2eBins struct {
	switchboard string // go build -tags headless
	sdkAgent    string // the acp-go-sdk example agent
}

var built struct {
	once sync.Once
	dir  string
	bins e2eBins
	err  error
}

// buildE2E returns the headless hub and the acp-go-sdk example agent,
// built the first time a test asks (concurrently) into a folder of this
// run's that TestMain removes. Tests share the binaries: one that needs
// files beside the binary takes a link of its own (binIn).
func buildE2E(t testing.TB) e2eBins {
	t.Helper()
	root := testkit.ModuleRoot(t)
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "switchboard-systest-")
		if err != nil {
			built.err = err
			return
		}
		built.dir = dir
		b := e2eBins{switchboard: filepath.Join(dir, "switchboard"), sdkAgent: filepath.Join(dir, "acp-example-agent")}
		builds := [][]string{
			{"build", "-tags", "headless", "-o", b.switchboard, "."},
			{"build", "-o", b.sdkAgent, "github.com/coder/acp-go-sdk/example/agent"},
		}
		errs := make([]error, len(builds))
		var wg sync.WaitGroup
		for i, args := range builds {
			wg.Go(func() {
				cmd := exec.Command("go", args...)
				cmd.Dir = root
				cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
				if out, err := cmd.CombinedOutput(); err != nil {
					errs[i] = fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
				}
			})
		}
		wg.Wait()
		built.bins, built.err = b, errors.Join(errs...)
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bins
}

// removeBuilt removes what buildE2E built (TestMain, after the run).
func removeBuilt() {
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
}

// binIn returns a link to bin in dir (a copy where a link cannot be
// made), for a test that puts files beside the binary it runs.
func binIn(t testing.TB, bin, dir string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.Base(bin))
	if os.Link(bin, p) == nil {
		return p
	}
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// agentConf is one entry of the config file's agents: map.
type agentConf struct {
	Name    string            `yaml:"name"`
	Command string            `yaml:"command"`
	Args    []string          `yaml:"args,omitempty"`
	Env     map[string]string `yaml:"env,omitempty"`
}

// fakeAgentConf is the fake agent (this test binary) as a config entry,
// with FAKEAGENT_* options.
func fakeAgentConf(t testing.TB, opts ...string) agentConf {
	path, args, env := acptest.FakeAgentArgv(t, opts...)
	c := agentConf{Name: "Fake", Command: path, Args: args, Env: map[string]string{}}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		c.Env[k] = v
	}
	return c
}

// hubConfig is a config file: top-level keys (nested maps for dotted
// keys such as permissions.timeout) and agents.
type hubConfig map[string]any

// writeConfig writes cfg as YAML to dir/config.yaml. Unless cfg has
// agents of its own, they are the fake agent as "fake", and as "fakeload"
// with session/load (so a thread's session survives a new agent process).
// Unless it names one, it has no ACP registry (registry.url "").
func writeConfig(t testing.TB, dir string, cfg hubConfig) string {
	t.Helper()
	doc := map[string]any{}
	for k, v := range cfg {
		doc[k] = v
	}
	if _, ok := doc["registry"]; !ok {
		doc["registry"] = map[string]string{"url": ""} // no test hub asks the public ACP registry
	}
	if _, ok := doc["agents"]; !ok {
		doc["agents"] = map[string]agentConf{
			"fake":     fakeAgentConf(t),
			"fakeload": fakeAgentConf(t, "FAKEAGENT_LOAD_SESSION=1"),
		}
	}
	b, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// hubProc is one `switchboard serve` process (restartable on the same
// data dir). Its process group, and the process group of every agent it
// was seen to start, are killed at cleanup.
type hubProc struct {
	t       testing.TB
	bin     string
	dir     string // the test's scratch dir
	dataDir string
	config  string
	args    []string // extra serve flags; nil: --listen 127.0.0.1:0
	env     []string // added to the hub's environment
	log     *os.File // stderr and stdout of every run, appended

	client *http.Client
	cmd    *exec.Cmd
	exited chan struct{} // closed when cmd has been waited for
	url    string
	token  string
	agents *agentSet
}

// agentSet records the agent processes a hub was seen to start.
type agentSet struct {
	mu   sync.Mutex
	seen map[int]string // pid → /proc start time
}

// withT returns a copy of h that reports to t (a subtest): for requests
// only, never to start or stop the hub.
func (h *hubProc) withT(t *testing.T) *hubProc {
	c := *h
	c.t = t
	return &c
}

// newHub writes cfg and starts a hub on a fresh data dir.
func newHub(t testing.TB, bins e2eBins, cfg hubConfig) *hubProc {
	t.Helper()
	h := prepareHub(t, bins, cfg)
	h.start()
	return h
}

// prepareHub writes cfg and sets up a hub without starting it.
func prepareHub(t testing.TB, bins e2eBins, cfg hubConfig) *hubProc {
	t.Helper()
	dir := t.TempDir()
	logf, err := os.OpenFile(filepath.Join(dir, "hub.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	h := &hubProc{
		t: t, bin: bins.switchboard, dir: dir,
		dataDir: filepath.Join(dir, "data"), config: writeConfig(t, dir, cfg), log: logf,
		client: &http.Client{Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 16}},
		agents: &agentSet{seen: map[int]string{}},
	}
	t.Cleanup(func() {
		h.killAll()
		h.client.CloseIdleConnections()
		logf.Close()
		if t.Failed() {
			t.Logf("hub log (tail):\n%s", tail(h.logText(), 16<<10))
		}
	})
	return h
}

// hubEnv is this process's environment without the hub's own variables.
func hubEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SWITCHBOARD_") {
			env = append(env, kv)
		}
	}
	return env
}

// serveCmd is the command line of a hub on h's data dir and config.
func (h *hubProc) serveCmd(extra ...string) *exec.Cmd {
	args := append([]string{"serve", "--data-dir", h.dataDir, "--config", h.config}, extra...)
	cmd := exec.Command(h.bin, args...)
	cmd.Env = append(hubEnv(), h.env...)
	cmd.Stdout, cmd.Stderr = h.log, h.log
	// Its own process group, killed at cleanup; and killed with this
	// process should it die before its cleanups run.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	return cmd
}

// start starts the hub and waits until hub.json names it and /healthz
// answers; it reads the token.
func (h *hubProc) start() {
	t := h.t
	t.Helper()
	args := h.args
	if args == nil {
		args = []string{"--listen", "127.0.0.1:0"}
	}
	fmt.Fprintf(h.log, "=== e2e: starting %s\n", strings.Join(args, " "))
	cmd := h.serveCmd(args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	h.cmd, h.exited = cmd, exited
	h.url = ""
	if !waitFor(30*time.Second, func() bool {
		if !h.running() {
			return true
		}
		d, err := h.discovery()
		if err == nil && d.PID == cmd.Process.Pid {
			h.url = d.URL
			if d.Socket != "" { // serve --socket: the requests go on the socket
				h.client = &http.Client{Transport: &http.Transport{Proxy: nil, DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
					return (&net.Dialer{}).DialContext(ctx, "unix", d.Socket)
				}}}
			}
		}
		return h.url != ""
	}) {
		t.Fatalf("hub.json not written within 30s\n%s", tail(h.logText(), 4096))
	}
	if h.url == "" {
		t.Fatalf("switchboard serve exited at start: %v\n%s", cmd.ProcessState, tail(h.logText(), 4096))
	}
	tok, err := os.ReadFile(filepath.Join(h.dataDir, "token"))
	if err != nil {
		t.Fatal(err)
	}
	h.token = strings.TrimSpace(string(tok))
	if r := h.do("GET", "/healthz", nil); r.status != 200 {
		t.Fatalf("/healthz: %d %s", r.status, r.body)
	}
}

// discovery is <data-dir>/hub.json as a client reads it.
func (h *hubProc) discovery() (hub.Discovery, error) { return client.ReadDiscovery(h.dataDir) }

func (h *hubProc) pid() int { return h.cmd.Process.Pid }

func (h *hubProc) logText() string {
	b, _ := os.ReadFile(h.log.Name())
	return string(b)
}

// running reports whether the current hub process has not exited.
func (h *hubProc) running() bool {
	select {
	case <-h.exited:
		return false
	default:
		return true
	}
}

// stop sends SIGTERM and waits for the exit (at most 30 s); it returns
// the exit status.
func (h *hubProc) stop() int {
	h.t.Helper()
	return h.stopWith(syscall.SIGTERM)
}

// stopWith is stop with another signal.
func (h *hubProc) stopWith(sig syscall.Signal) int {
	h.t.Helper()
	h.noteAgents()
	if err := h.cmd.Process.Signal(sig); err != nil {
		h.t.Fatal(err)
	}
	select {
	case <-h.exited:
	case <-time.After(30 * time.Second):
		h.t.Fatalf("hub did not exit within 30s of %v", sig)
	}
	return h.cmd.ProcessState.ExitCode()
}

// kill9 kills the hub process alone (not its agents) with SIGKILL and
// waits for it.
func (h *hubProc) kill9() {
	h.t.Helper()
	h.noteAgents()
	if err := h.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		h.t.Fatal(err)
	}
	<-h.exited
	h.client.CloseIdleConnections()
}

// noteAgents records the hub's current child processes and returns its
// agents: its children, a supervisor's (ADR 0029) replaced by the command
// it runs.
func (h *hubProc) noteAgents() []int {
	if h.cmd == nil || !h.running() {
		return nil
	}
	var agents []int
	h.agents.mu.Lock()
	defer h.agents.mu.Unlock()
	for _, pid := range childrenOf(h.pid()) {
		h.agents.seen[pid] = procStartTime(pid)
		if !isSupervisor(pid) {
			agents = append(agents, pid)
			continue
		}
		for _, a := range childrenOf(pid) {
			h.agents.seen[a] = procStartTime(a)
			agents = append(agents, a)
		}
	}
	return agents
}

// isSupervisor reports whether pid runs `switchboard __supervise`.
func isSupervisor(pid int) bool {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	args := strings.Split(string(b), "\x00")
	return len(args) > 1 && args[1] == acp.SupervisorArg
}

// seenAgents returns the agents recorded so far.
func (h *hubProc) seenAgents() map[int]string {
	h.agents.mu.Lock()
	defer h.agents.mu.Unlock()
	m := make(map[int]string, len(h.agents.seen))
	for k, v := range h.agents.seen {
		m[k] = v
	}
	return m
}

// killAll kills the hub's process group and every agent's process group
// it was seen to start (still the same process: same start time).
func (h *hubProc) killAll() {
	if h.cmd != nil && h.running() {
		h.noteAgents()
		syscall.Kill(-h.pid(), syscall.SIGKILL)
		<-h.exited
	}
	for pid, start := range h.seenAgents() {
		if start != "" && procStartTime(pid) == start {
			syscall.Kill(-pid, syscall.SIGKILL)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// childrenOf lists the processes whose parent is pid, from /proc.
func childrenOf(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	var kids []int
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, _, ok := procStat(p); ok && ppid == pid {
			kids = append(kids, p)
		}
	}
	return kids
}

// procStat returns a process's parent pid and state letter.
func procStat(pid int) (ppid int, state string, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, "", false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, "", false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return 0, "", false
	}
	ppid, _ = strconv.Atoi(f[1])
	return ppid, f[0], true
}

// procStartTime is field 22 of /proc/<pid>/stat ("" if gone).
func procStartTime(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return ""
	}
	return f[19]
}

// ignoresSIGTERM reports whether pid ignores SIGTERM (/proc SigIgn): the
// fake agent's hang-hard does from the moment it has read its prompt.
func ignoresSIGTERM(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "SigIgn:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return err == nil && mask&(1<<(syscall.SIGTERM-1)) != 0
		}
	}
	return false
}

// waitHangHard waits until one of the hub's agents runs hang-hard (has
// read the prompt and ignores SIGTERM) and returns its pid.
func (h *hubProc) waitHangHard(timeout time.Duration) int {
	h.t.Helper()
	pid := 0
	if !waitFor(timeout, func() bool {
		for _, p := range h.noteAgents() {
			if ignoresSIGTERM(p) {
				pid = p
				return true
			}
		}
		return false
	}) {
		h.t.Fatalf("no agent of the hub ignores SIGTERM (hang-hard) within %v", timeout)
	}
	return pid
}

// alive reports whether pid is a live process (a zombie is dead).
func alive(pid int) bool {
	_, state, ok := procStat(pid)
	return ok && state != "Z" && state != "X"
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
