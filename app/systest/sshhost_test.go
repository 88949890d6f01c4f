//go:build linux

package systest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sshHost is a "remote machine" for the hosts tests: a network namespace
// joined to this one by a veth pair, its own sshd (own host key, own
// config, port 22 in the namespace, UsePAM no, password logins off), a
// Unix user of its own with a 0700 home, a client key and an ssh config
// for the client side (passed with -F: the real ~/.ssh is never read or
// written). Everything is torn down by t.Cleanup, after a failed test too.
//
// It needs root, ip(8) and sshd. Without them the test is skipped, unless
// SWITCHBOARD_HOSTS_E2E=require (CI: .ci/run), which makes it a failure.
type sshHost struct {
	t         testing.TB
	dir       string // the test's files (keys, configs), 0755 for sshd
	ns        string // the namespace
	vethOut   string // our end of the veth pair
	addr      string // the namespace's address
	user      string
	uid       int
	home      string
	sshConfig string // the client's ssh config (-F)
	alias     string // the Host of sshConfig
	hostKey   string // sshd's host key (private; .pub beside)
	sshd      *exec.Cmd
	sshdExit  chan struct{}
}

// requireHosts skips (or, with SWITCHBOARD_HOSTS_E2E=require, fails) a
// test that cannot make an ssh host here.
func requireHosts(t testing.TB) {
	t.Helper()
	var why []string
	if os.Geteuid() != 0 {
		why = append(why, "root (to make a network namespace and a user)")
	}
	for _, p := range []string{"ip", "ssh", "ssh-keygen", "useradd", "userdel"} {
		if _, err := exec.LookPath(p); err != nil {
			why = append(why, p)
		}
	}
	if _, err := os.Stat("/usr/sbin/sshd"); err != nil {
		why = append(why, "/usr/sbin/sshd (openssh-server)")
	}
	if len(why) == 0 {
		if out, err := exec.Command("ip", "netns", "list").CombinedOutput(); err != nil {
			why = append(why, fmt.Sprintf("network namespaces (ip netns list: %v %s)", err, out))
		}
	}
	if len(why) == 0 {
		return
	}
	msg := "the hosts tests need " + strings.Join(why, ", ") + ": install openssh-server openssh-client iproute2 (make deps-test) and run as root"
	if os.Getenv("SWITCHBOARD_HOSTS_E2E") == "require" {
		t.Fatal(msg + " (SWITCHBOARD_HOSTS_E2E=require)")
	}
	t.Skip(msg + " (SWITCHBOARD_HOSTS_E2E=require makes this a failure)")
}

func run(t testing.TB, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// newSSHHost makes the namespace, the user and sshd, and waits until
// sshd accepts connections.
func newSSHHost(t testing.TB) *sshHost {
	t.Helper()
	requireHosts(t)
	b := make([]byte, 3)
	rand.Read(b)
	id := hex.EncodeToString(b)
	dir, err := os.MkdirTemp("", "sbhost-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	s := &sshHost{t: t, dir: dir, ns: "sbh-" + id, vethOut: "sbh" + id + "o", user: "sbh" + id, alias: "box"}
	t.Cleanup(s.teardown)

	// The network: 10.231.X.1 here, .2 in the namespace.
	x := int(b[0])%250 + 1
	s.addr = fmt.Sprintf("10.231.%d.2", x)
	run(t, "ip", "netns", "add", s.ns)
	run(t, "ip", "link", "add", s.vethOut, "type", "veth", "peer", "name", "sbh"+id+"i")
	run(t, "ip", "link", "set", "sbh"+id+"i", "netns", s.ns)
	run(t, "ip", "addr", "add", fmt.Sprintf("10.231.%d.1/24", x), "dev", s.vethOut)
	run(t, "ip", "link", "set", s.vethOut, "up")
	run(t, "ip", "netns", "exec", s.ns, "ip", "addr", "add", s.addr+"/24", "dev", "sbh"+id+"i")
	run(t, "ip", "netns", "exec", s.ns, "ip", "link", "set", "sbh"+id+"i", "up")
	run(t, "ip", "netns", "exec", s.ns, "ip", "link", "set", "lo", "up")

	// The user, its 0700 home, the client's key in its authorized_keys.
	s.home = filepath.Join(dir, "home")
	run(t, "useradd", "-M", "-d", s.home, "-s", "/bin/sh", "-p", "*", s.user) // "*": no password, not locked (sshd without PAM refuses a locked account)
	u, err := user.Lookup(s.user)
	if err != nil {
		t.Fatal(err)
	}
	s.uid, _ = strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	clientKey := filepath.Join(dir, "client_key")
	run(t, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "switchboard-test", "-f", clientKey)
	pub, err := os.ReadFile(clientKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{s.home, filepath.Join(s.home, ".ssh")} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		os.Chown(d, s.uid, gid)
	}
	ak := filepath.Join(s.home, ".ssh", "authorized_keys")
	if err := os.WriteFile(ak, pub, 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chown(ak, s.uid, gid)

	// sshd, its key and config.
	s.hostKey = filepath.Join(dir, "host_ed25519")
	run(t, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", s.hostKey)
	os.MkdirAll("/run/sshd", 0o755)
	cfg := fmt.Sprintf(`Port 22
ListenAddress %s
HostKey %s
PidFile %s
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
AllowUsers %s
AllowTcpForwarding local
AllowStreamLocalForwarding local
X11Forwarding no
PermitTTY no
`, s.addr, s.hostKey, filepath.Join(dir, "sshd.pid"), s.user)
	if err := os.WriteFile(filepath.Join(dir, "sshd_config"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	s.startSSHD()

	// The client side: its own config, known_hosts and key.
	s.sshConfig = filepath.Join(dir, "ssh_config")
	ccfg := fmt.Sprintf(`Host %s
  HostName %s
  User %s
  IdentityFile %s
  IdentitiesOnly yes
  UserKnownHostsFile %s
  GlobalKnownHostsFile /dev/null
  ConnectTimeout 5
`, s.alias, s.addr, s.user, clientKey, filepath.Join(dir, "known_hosts"))
	if err := os.WriteFile(s.sshConfig, []byte(ccfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return s
}

// startSSHD runs sshd in the namespace and waits for its port.
func (s *sshHost) startSSHD() {
	t := s.t
	t.Helper()
	logf, err := os.OpenFile(filepath.Join(s.dir, "sshd.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("ip", "netns", "exec", s.ns, "/usr/sbin/sshd", "-D", "-e", "-f", filepath.Join(s.dir, "sshd_config"))
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.sshd, s.sshdExit = cmd, make(chan struct{})
	go func() { cmd.Wait(); logf.Close(); close(s.sshdExit) }()
	if !waitFor(15*time.Second, func() bool {
		c, err := net.DialTimeout("tcp", s.addr+":22", time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	}) {
		t.Fatalf("sshd does not answer on %s:22\n%s", s.addr, s.log())
	}
}

// stopSSHD stops sshd and the connections it serves (each in a session
// of its own, "sshd: <user>…", killed by pid).
func (s *sshHost) stopSSHD() {
	if s.sshd != nil {
		syscall.Kill(-s.sshd.Process.Pid, syscall.SIGKILL)
		<-s.sshdExit
		s.sshd = nil
	}
	for pid, cl := range cmdlines() {
		if strings.HasPrefix(cl, "sshd: "+s.user) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

func (s *sshHost) log() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "sshd.log"))
	return tail(string(b), 4096)
}

// userProcs are the pids of the test user's processes (the remote hub).
func (s *sshHost) userProcs() []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		var st syscall.Stat_t
		if syscall.Stat("/proc/"+e.Name(), &st) == nil && int(st.Uid) == s.uid {
			out = append(out, pid)
		}
	}
	return out
}

// linkDown and linkUp cut and restore the network to the host.
func (s *sshHost) linkDown() { run(s.t, "ip", "link", "set", s.vethOut, "down") }
func (s *sshHost) linkUp()   { run(s.t, "ip", "link", "set", s.vethOut, "up") }

func (s *sshHost) teardown() {
	s.stopSSHD()
	if s.uid > 0 {
		for range 3 { // the user's processes, each by pid
			for _, pid := range s.userProcs() {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			if len(s.userProcs()) == 0 {
				break
			}
			waitFor(2*time.Second, func() bool { return len(s.userProcs()) == 0 })
		}
		exec.Command("userdel", s.user).Run()
	}
	exec.Command("ip", "link", "del", s.vethOut).Run()
	exec.Command("ip", "netns", "del", s.ns).Run()
	if s.t.Failed() {
		s.t.Logf("sshd log:\n%s", s.log())
	}
	os.RemoveAll(s.dir)
}
