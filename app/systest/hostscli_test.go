//go:build linux

package systest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestE2EHostsCLI: `switchboard hosts` against a running hub, as a user
// types it: add (an ssh value that is an option refused with the hub's
// 400, a name taken refused), list and status (local first, the host's
// state and why), remove (local refused), and the config file keeps what
// the commands did. The host's ssh config is the test's own (-F), naming
// a host that does not resolve, so the link goes unreachable and says why.
func TestE2EHostsCLI(t *testing.T) {
	bins := buildE2E(t)
	h := prepareHub(t, bins, hubConfig{})
	sshConfig := filepath.Join(h.dir, "ssh_config")
	os.WriteFile(sshConfig, []byte("Host *\n  UserKnownHostsFile "+filepath.Join(h.dir, "known_hosts")+"\n  ConnectTimeout 2\n"), 0o600)
	h.env = []string{"SWITCHBOARD_SSH_CONFIG=" + sshConfig}
	h.start()
	cli := func(args ...string) (string, error) {
		cmd := exec.Command(h.bin, append(append([]string{"hosts"}, args...), "--data-dir", h.dataDir)...)
		cmd.Env = hubEnv()
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := cli("add", "evil", "-oProxyCommand=touch /tmp/x"); err == nil || !strings.Contains(out, "starts with -") {
		t.Errorf("hosts add with an option as ssh: %v\n%s", err, out)
	}
	out, err := cli("add", "box", "me@nowhere.invalid")
	if err != nil || !strings.Contains(out, "box") || !strings.Contains(out, "me@nowhere.invalid") {
		t.Fatalf("hosts add: %v\n%s", err, out)
	}
	if out, err := cli("add", "box", "other"); err == nil || !strings.Contains(out, "already listed") {
		t.Errorf("hosts add of a name taken: %v\n%s", err, out)
	}
	h.waitHost("box", "unreachable", time.Minute)
	out, err = cli("status")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err != nil || len(lines) < 3 || !strings.HasPrefix(lines[0], "local ") || !strings.HasPrefix(lines[1], "box ") ||
		!strings.Contains(lines[1], "unreachable") || !strings.Contains(out, "error: ") {
		t.Errorf("hosts status: %v\n%s", err, out)
	}
	if out, err := cli("list"); err != nil || strings.Contains(out, "error:") || !strings.Contains(out, "box") {
		t.Errorf("hosts list (no details): %v\n%s", err, out)
	}
	if cfg := mustRead(t, h.config); !strings.Contains(string(cfg), "me@nowhere.invalid") {
		t.Errorf("the config lacks the host:\n%s", cfg)
	}
	if out, err := cli("remove", "local"); err == nil {
		t.Errorf("hosts remove local: succeeded\n%s", out)
	}
	if out, err := cli("remove", "box"); err != nil || !strings.Contains(out, "removed") {
		t.Errorf("hosts remove: %v\n%s", err, out)
	}
	if out, _ := cli("list"); strings.Contains(out, "box") {
		t.Errorf("box still listed:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(h.dataDir, "hosts", "box")); !os.IsNotExist(err) {
		t.Errorf("the host's folder is left: %v", err)
	}
}
