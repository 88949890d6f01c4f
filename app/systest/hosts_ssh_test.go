//go:build linux

package systest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
)

type apiHost struct {
	Name        string    `json:"name"`
	SSH         string    `json:"ssh"`
	State       string    `json:"state"`
	Since       time.Time `json:"since"`
	Version     string    `json:"version"`
	Error       string    `json:"error"`
	Fingerprint string    `json:"fingerprint"`
	Note        string    `json:"note"`
}

// waitHost polls GET /v1/hosts/{name} until its state is want, entered
// after the times given (a state left and entered again).
func (h *hubProc) waitHost(name, want string, timeout time.Duration, after ...time.Time) apiHost {
	h.t.Helper()
	var x apiHost
	if !waitFor(timeout, func() bool {
		x = apiHost{}
		h.call("GET", "/v1/hosts/"+name, nil, 200, &x)
		return x.State == want && (len(after) == 0 || x.Since.After(after[0]))
	}) {
		h.t.Fatalf("host %s: %+v, want %s within %s\n%s", name, x, want, timeout, tail(h.logText(), 4096))
	}
	return x
}

// hostsHub is a local hub whose links use s's ssh config and install its
// own binary on the host.
func hostsHub(t testing.TB, s *sshHost) *hubProc { return hostsHubWith(t, s.sshConfig, hubConfig{}) }

// connectedBox is a host over real OpenSSH (newSSHHost) whose key is
// trusted, added to a hub here as "box", and connected: its hub installed
// and started by the link.
func connectedBox(t testing.TB) (*sshHost, *hubProc) {
	t.Helper()
	s := newSSHHost(t)
	s.trustHostKey(t)
	h := hostsHub(t, s)
	h.call("POST", "/v1/hosts", map[string]string{"name": "box", "ssh": s.alias}, 201, nil)
	h.waitHost("box", "connected", 120*time.Second)
	return s, h
}

// hostsHubWith is hostsHub with the ssh config file sshConfig (several
// hosts' entries in one) and the config cfg.
func hostsHubWith(t testing.TB, sshConfig string, cfg hubConfig) *hubProc {
	bins := buildE2E(t)
	h := prepareHub(t, bins, cfg)
	binDir := filepath.Join(h.dir, "hostbins")
	os.Mkdir(binDir, 0o755)
	if err := os.Symlink(bins.switchboard, filepath.Join(binDir, "switchboard-headless-linux-amd64")); err != nil {
		t.Fatal(err)
	}
	h.env = []string{"SWITCHBOARD_SSH_CONFIG=" + sshConfig, "SWITCHBOARD_HOST_BINARIES=" + binDir}
	h.start()
	return h
}

// fingerprint is ssh-keygen's SHA256 fingerprint of a public key file.
func fingerprint(t testing.TB, pub string) string {
	f := strings.Fields(run(t, "ssh-keygen", "-l", "-E", "sha256", "-f", pub))
	if len(f) < 2 {
		t.Fatalf("ssh-keygen -l: %v", f)
	}
	return f[1]
}

// cmdlines are the command lines of every process, by pid.
func cmdlines() map[int]string {
	out := map[int]string{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && len(b) > 0 {
			out[pid] = string(bytes.ReplaceAll(b, []byte{0}, []byte{' '}))
		}
	}
	return out
}

// TestE2EHostSSH: a host over real OpenSSH into a network namespace, as
// a user adds it: unknown key → needs_attention with the fingerprint →
// trusted → connected (installed and started there, version shown);
// sockets and folders 0700/0600 on both sides; the token in no argv and
// StrictHostKeyChecking=no nowhere; an ssh value that is an option is
// 400; the master killed and the network cut → unreachable → connected
// again, the remote hub the same process all along; a changed host key
// refused, and not trusted even when asked; removed → nothing left.
func TestE2EHostSSH(t *testing.T) {
	s := newSSHHost(t)
	h := hostsHub(t, s)

	// Bad input first.
	for _, body := range []map[string]string{
		{"name": "box", "ssh": "-oProxyCommand=touch /tmp/pwned"},
		{"name": "local", "ssh": "box"},
		{"name": "Box", "ssh": "box"},
		{"name": "box", "ssh": "a b"},
	} {
		if r := h.do("POST", "/v1/hosts", body); r.status != 400 || r.errorCode() != "INVALID_ARGUMENT" {
			t.Errorf("POST /v1/hosts %v: %s, want 400 INVALID_ARGUMENT", body, r)
		}
	}
	if r := h.do("DELETE", "/v1/hosts/local", nil); r.status != 400 {
		t.Errorf("DELETE /v1/hosts/local: %s, want 400", r)
	}

	// Unknown key: needs attention with the fingerprint sshd's key has.
	var added apiHost
	h.call("POST", "/v1/hosts", map[string]string{"name": "box", "ssh": s.alias}, 201, &added)
	x := h.waitHost("box", "needs_attention", 60*time.Second)
	want := fingerprint(t, s.hostKey+".pub")
	if x.Fingerprint != want || !strings.Contains(x.Error, want) {
		t.Fatalf("unknown key: %+v, want fingerprint %s", x, want)
	}
	cfg, _ := os.ReadFile(h.config)
	if !strings.Contains(string(cfg), "hosts:") || !strings.Contains(string(cfg), "ssh: box") {
		t.Errorf("the config file does not keep the host:\n%s", cfg)
	}
	// A wrong fingerprint is not trusted.
	h.call("POST", "/v1/hosts/box/connect", map[string]string{"trustKey": "SHA256:notthekey"}, 200, nil)
	x = h.waitHost("box", "needs_attention", 60*time.Second, x.Since)
	if !strings.Contains(x.Error, "not the SHA256:notthekey you trusted") {
		t.Errorf("a wrong fingerprint: %+v, want it named", x)
	}
	if kh, _ := os.ReadFile(filepath.Join(s.dir, "known_hosts")); len(kh) > 0 {
		t.Fatalf("a wrong fingerprint recorded a key:\n%s", kh)
	}

	// Trust: connected, installed, the local version.
	h.call("POST", "/v1/hosts/box/connect", map[string]string{"trustKey": want}, 200, nil)
	x = h.waitHost("box", "connected", 90*time.Second)
	var list struct{ Hosts []apiHost }
	h.call("GET", "/v1/hosts", nil, 200, &list)
	if len(list.Hosts) != 2 || list.Hosts[0].Name != "local" || x.Version == "" || x.Version != list.Hosts[0].Version {
		t.Fatalf("hosts: %+v; box's version %q, want the local one", list.Hosts, x.Version)
	}
	if kh, _ := os.ReadFile(filepath.Join(s.dir, "known_hosts")); !bytes.Contains(kh, bytes.Fields(mustRead(t, s.hostKey+".pub"))[1]) {
		t.Errorf("known_hosts lacks the trusted key:\n%s", kh)
	}
	// The mirror follows box through its ssh link (app/hosts.go
	// followHosts): a host's agents are read through the copy's client.
	if !testkit.Until(60*time.Second, func() bool {
		var agents struct{ Agents []apiAgent }
		r := h.do("GET", "/v1/hosts/box/agents", nil)
		return r.status == 200 && json.Unmarshal(r.body, &agents) == nil && len(agents.Agents) > 0
	}) {
		t.Error("GET /v1/hosts/box/agents never answered through the link")
	}

	// Modes, both sides.
	local := filepath.Join(h.dataDir, "hosts", "box")
	remoteRun := filepath.Join(s.home, ".local/share/switchboard/run")
	for path, mode := range map[string]os.FileMode{
		local: 0o700, filepath.Join(local, "hub.sock"): 0o600,
		remoteRun: 0o700, filepath.Join(remoteRun, "hub.sock"): 0o600,
		filepath.Join(s.home, ".local/share/switchboard/data"):       0o700,
		filepath.Join(s.home, ".local/share/switchboard/data/token"): 0o600,
	} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Errorf("%v", err)
		} else if fi.Mode().Perm() != mode {
			t.Errorf("%s: mode %o, want %o", path, fi.Mode().Perm(), mode)
		}
	}

	// argv on both sides: no token, no StrictHostKeyChecking=no.
	remoteToken := strings.TrimSpace(string(mustRead(t, filepath.Join(s.home, ".local/share/switchboard/data/token"))))
	remoteSecret := strings.TrimSpace(string(mustRead(t, filepath.Join(s.home, ".local/share/switchboard/data/link-secret"))))
	for pid, cl := range cmdlines() {
		if strings.Contains(cl, remoteToken) || strings.Contains(cl, h.token) || strings.Contains(cl, remoteSecret) {
			t.Errorf("pid %d has a token in its argv: %s", pid, cl)
		}
		if strings.Contains(strings.ToLower(cl), "stricthostkeychecking=no") {
			t.Errorf("pid %d passes StrictHostKeyChecking=no: %s", pid, cl)
		}
	}
	remoteHub := s.userProcs()
	hubPid := 0
	for _, pid := range remoteHub {
		if cl := cmdlines()[pid]; strings.Contains(cl, "serve") && strings.Contains(cl, "--socket") {
			hubPid = pid
		}
	}
	if hubPid == 0 {
		t.Fatalf("no remote hub among the user's processes %v", remoteHub)
	}

	// The master killed: unreachable, then connected again; the remote
	// hub is the same process.
	master := 0
	for pid, cl := range cmdlines() {
		if strings.Contains(cl, "ControlMaster=yes") && strings.Contains(cl, local) {
			master = pid
		}
	}
	if master == 0 {
		t.Fatal("no ssh control master found")
	}
	since := x.Since
	syscall.Kill(master, syscall.SIGKILL)
	x = h.waitHost("box", "connected", 60*time.Second, since)
	if !alive(hubPid) {
		t.Errorf("the remote hub (pid %d) did not survive the link's end", hubPid)
	}

	// The network cut: unreachable (ServerAlive), then back.
	s.linkDown()
	x = h.waitHost("box", "unreachable", 60*time.Second)
	if x.Error == "" {
		t.Errorf("unreachable without a reason: %+v", x)
	}
	s.linkUp()
	h.waitHost("box", "connected", 90*time.Second, x.Since)
	if !alive(hubPid) {
		t.Errorf("the remote hub (pid %d) did not survive the network cut", hubPid)
	}

	// A changed host key: refused with ssh's message, and not trusted.
	s.stopSSHD()
	os.Remove(s.hostKey)
	os.Remove(s.hostKey + ".pub")
	run(t, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", s.hostKey)
	s.startSSHD()
	x = h.waitHost("box", "needs_attention", 90*time.Second)
	if !strings.Contains(x.Error, "IDENTIFICATION HAS CHANGED") || x.Fingerprint != "" {
		t.Errorf("changed key: %+v, want ssh's message and no fingerprint to trust", x)
	}
	newFP := fingerprint(t, s.hostKey+".pub")
	h.call("POST", "/v1/hosts/box/connect", map[string]string{"trustKey": newFP}, 200, nil)
	x = h.waitHost("box", "needs_attention", 60*time.Second, x.Since)
	if !strings.Contains(x.Error, "IDENTIFICATION HAS CHANGED") {
		t.Errorf("trusting a changed key: %+v, want ssh's refusal", x)
	}
	if kh := mustRead(t, filepath.Join(s.dir, "known_hosts")); bytes.Contains(kh, bytes.Fields(mustRead(t, s.hostKey+".pub"))[1]) {
		t.Errorf("a changed key was recorded from the app: %+v", x)
	}

	// Removed: nothing of it here; the remote hub keeps running.
	h.call("DELETE", "/v1/hosts/box", nil, 204, nil)
	if _, err := os.Stat(local); !os.IsNotExist(err) {
		t.Errorf("%s is still there after removal (%v)", local, err)
	}
	h.call("GET", "/v1/hosts", nil, 200, &list)
	if len(list.Hosts) != 1 {
		t.Errorf("hosts after removal: %+v", list.Hosts)
	}
	for pid, cl := range cmdlines() {
		if strings.Contains(cl, local) {
			t.Errorf("pid %d still runs for the removed host: %s", pid, cl)
		}
	}
	if cfg := mustRead(t, h.config); bytes.Contains(cfg, []byte("ssh: box")) {
		t.Errorf("the config still has the host:\n%s", cfg)
	}
	if !alive(hubPid) {
		t.Errorf("removing the host stopped the remote hub")
	}
}

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// trustHostKey writes the host's key into the client's known_hosts, as a
// user who connected before has it.
func (s *sshHost) trustHostKey(t testing.TB) {
	pub := strings.Fields(string(mustRead(t, s.hostKey+".pub")))
	line := s.addr + " " + pub[0] + " " + pub[1] + "\n"
	if err := os.WriteFile(filepath.Join(s.dir, "known_hosts"), []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestE2EHostImpossibleInstall: a host whose home cannot be written
// (0555) needs attention with a reason naming it, and nothing runs there;
// after the home is made writable, Retry installs and connects.
func TestE2EHostImpossibleInstall(t *testing.T) {
	s := newSSHHost(t)
	s.trustHostKey(t)
	if err := os.Chmod(s.home, 0o555); err != nil {
		t.Fatal(err)
	}
	h := hostsHub(t, s)
	h.call("POST", "/v1/hosts", map[string]string{"name": "box", "ssh": s.alias}, 201, nil)
	x := h.waitHost("box", "needs_attention", 90*time.Second)
	if !strings.Contains(x.Error, "home folder is missing or not writable") || x.Fingerprint != "" {
		t.Errorf("an unwritable home: %+v, want the reason named", x)
	}
	s.noHub(t, "it could not be installed")
	if err := os.Chmod(s.home, 0o700); err != nil {
		t.Fatal(err)
	}
	h.call("POST", "/v1/hosts/box/connect", map[string]string{}, 200, nil)
	h.waitHost("box", "connected", 90*time.Second, x.Since)
}

// TestE2EHostNoexecInstall: a host whose install folder is a noexec mount
// needs attention with a reason naming it, and nothing runs there; once
// the mount is gone, Retry installs and connects.
func TestE2EHostNoexecInstall(t *testing.T) {
	s := newSSHHost(t)
	s.trustHostKey(t)
	binDir := filepath.Join(s.home, ".local", "share", "switchboard", "bin")
	var home syscall.Stat_t
	if err := syscall.Stat(s.home, &home); err != nil {
		t.Fatal(err)
	}
	for d := binDir; d != s.home; d = filepath.Dir(d) {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for d := binDir; d != s.home; d = filepath.Dir(d) {
		if err := os.Chown(d, s.uid, int(home.Gid)); err != nil {
			t.Fatal(err)
		}
	}
	// In sshd's mount namespace (ip netns exec made it one of its own).
	inHost := func(args ...string) *exec.Cmd {
		return exec.Command("nsenter", append([]string{"-t", strconv.Itoa(s.sshd.Process.Pid), "-m", "--"}, args...)...)
	}
	if out, err := inHost("mount", "-t", "tmpfs", "-o", fmt.Sprintf("noexec,mode=0700,uid=%d,gid=%d", s.uid, home.Gid), "switchboard-noexec", binDir).CombinedOutput(); err != nil {
		t.Fatalf("mount a noexec tmpfs (root can): %v: %s", err, out)
	}
	mounted := true
	unmount := func() {
		if mounted {
			if out, err := inHost("umount", binDir).CombinedOutput(); err != nil {
				t.Errorf("umount %s: %v: %s", binDir, err, out)
			}
			mounted = false
		}
	}
	t.Cleanup(unmount)
	h := hostsHub(t, s)
	h.call("POST", "/v1/hosts", map[string]string{"name": "box", "ssh": s.alias}, 201, nil)
	x := h.waitHost("box", "needs_attention", 90*time.Second)
	if !strings.Contains(x.Error, "do not run (a noexec mount?)") || x.Fingerprint != "" {
		t.Errorf("a noexec install folder: %+v, want the reason named", x)
	}
	s.noHub(t, "its program cannot run")
	unmount()
	h.call("POST", "/v1/hosts/box/connect", map[string]string{}, 200, nil)
	h.waitHost("box", "connected", 90*time.Second, x.Since)
}

// noHub fails t if a hub runs as s's user (why: why none may).
func (s *sshHost) noHub(t *testing.T, why string) {
	t.Helper()
	for _, pid := range s.userProcs() {
		if cl := cmdlines()[pid]; strings.Contains(cl, "serve") {
			t.Errorf("a hub runs on the host although %s: %s", why, cl)
		}
	}
}
