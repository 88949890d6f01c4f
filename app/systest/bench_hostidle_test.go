//go:build linux

package systest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkHostIdle: five idle hosts connected to one hub. Metrics:
// hub-pss-MiB (the hub's PSS with none), hub-added-MiB (its PSS with five
// connected, 10 s after the last connected, minus that: target < 5),
// ssh-pss-MiB (the five ssh masters' PSS, beside), host-hub-pss-MiB (one
// host's hub's PSS, on the host), cpu-pct (the hub's CPU over 60 s with the
// five idle, % of one core: target < 0.5), base-cpu-pct (the same over 30 s
// with none), load.
func BenchmarkHostIdle(b *testing.B) {
	const n = 5
	for range b.N {
		var hosts []*sshHost
		var cfg strings.Builder
		for i := range n {
			s := newSSHHost(b)
			s.trustHostKey(b)
			hosts = append(hosts, s)
			c := string(mustRead(b, s.sshConfig))
			fmt.Fprintf(&cfg, "%s\n", strings.Replace(c, "Host "+s.alias+"\n", fmt.Sprintf("Host box%d\n", i+1), 1))
		}
		sshConfig := filepath.Join(b.TempDir(), "ssh_config")
		if err := os.WriteFile(sshConfig, []byte(cfg.String()), 0o600); err != nil {
			b.Fatal(err)
		}
		h := hostsHubWith(b, sshConfig, hubConfig{})
		pid := h.pid()
		load := loadMeter()
		// The workload's own length: the hub idle, then measured.
		<-time.After(10 * time.Second)
		base := pssMiB(pid)
		c0 := cpuTime(pid)
		<-time.After(30 * time.Second)
		baseCPU := pct100(cpuTime(pid)-c0, 30*time.Second)

		for i := range n {
			h.call("POST", "/v1/hosts", map[string]string{"name": fmt.Sprintf("box%d", i+1), "ssh": fmt.Sprintf("box%d", i+1)}, 201, nil)
		}
		for i := range n {
			h.waitHost(fmt.Sprintf("box%d", i+1), "connected", 180*time.Second)
		}
		<-time.After(10 * time.Second)
		with := pssMiB(pid)
		c1, t1 := cpuTime(pid), time.Now()
		<-time.After(60 * time.Second)
		cpu := pct100(cpuTime(pid)-c1, time.Since(t1))
		after := pssMiB(pid)
		var ssh float64
		masters := 0
		for p, cl := range cmdlines() {
			if strings.HasPrefix(cl, "ssh ") && strings.Contains(cl, "ControlMaster=yes") && strings.Contains(cl, h.dataDir) {
				ssh += pssMiB(p)
				masters++
			}
		}
		if masters != n {
			b.Fatalf("%d ssh masters for %d hosts", masters, n)
		}
		var hostHub float64
		for _, p := range hosts[0].userProcs() {
			if strings.Contains(cmdlines()[p], "serve") {
				hostHub += pssMiB(p)
			}
		}
		ld := load()
		b.Logf("hub PSS %.1f MiB alone, %.1f MiB with %d idle hosts (%.1f after 60 s): +%.1f MiB; %d ssh masters %.1f MiB; one host's hub %.1f MiB; hub CPU %.2f %% of a core over 60 s (%.2f %% alone); load %.2f",
			base, with, n, after, with-base, masters, ssh, hostHub, cpu, baseCPU, ld)
		b.ReportMetric(base, "hub-pss-MiB")
		b.ReportMetric(with-base, "hub-added-MiB")
		b.ReportMetric(after-base, "hub-added-60s-MiB")
		b.ReportMetric(ssh, "ssh-pss-MiB")
		b.ReportMetric(hostHub, "host-hub-pss-MiB")
		b.ReportMetric(cpu, "cpu-pct")
		b.ReportMetric(baseCPU, "base-cpu-pct")
		b.ReportMetric(ld, "load")
	}
}

// pct100 is cpu over wall as a percentage of one core.
func pct100(cpu, wall time.Duration) float64 { return 100 * cpu.Seconds() / wall.Seconds() }

// BenchmarkHostFirstConnect: a new host (its key known, nothing of
// Switchboard on it) added to a running hub until it is connected: ssh,
// `uname -sm`, the install of switchboard-headless (copied over the
// connection), the remote hub started, its token read, the socket
// forwarded. Metrics: connect-s (the figure, target < 5), ssh-s (one
// `ssh box true` after it, for comparison: ssh's own connection), load.
func BenchmarkHostFirstConnect(b *testing.B) {
	for range b.N {
		s := newSSHHost(b)
		s.trustHostKey(b)
		h := hostsHub(b, s)
		installed := filepath.Join(s.home, ".local", "share", "switchboard", "bin")
		if _, err := os.Stat(installed); !os.IsNotExist(err) {
			b.Fatalf("%s before the first connect (%v)", installed, err)
		}
		load := loadMeter()
		start := time.Now()
		h.call("POST", "/v1/hosts", map[string]string{"name": "box", "ssh": s.alias}, 201, nil)
		var took time.Duration
		if !waitFor(120*time.Second, func() bool {
			var x apiHost
			h.call("GET", "/v1/hosts/box", nil, 200, &x)
			took = time.Since(start)
			return x.State == "connected"
		}) {
			b.Fatalf("box not connected within 120 s: %s", h.do("GET", "/v1/hosts/box", nil))
		}
		ld := load()
		if ents, err := os.ReadDir(installed); err != nil || len(ents) == 0 {
			b.Fatalf("nothing installed in %s (%v)", installed, err)
		}
		t0 := time.Now()
		if out, err := exec.Command("ssh", "-F", s.sshConfig, "-o", "BatchMode=yes", s.alias, "true").CombinedOutput(); err != nil {
			b.Fatalf("ssh box true: %v %s", err, out)
		}
		sshTook := time.Since(t0)
		b.Logf("first connect %.2f s (ssh alone %.2f s); load %.2f", took.Seconds(), sshTook.Seconds(), ld)
		b.ReportMetric(took.Seconds(), "connect-s")
		b.ReportMetric(sshTook.Seconds(), "ssh-s")
		b.ReportMetric(ld, "load")
	}
}
