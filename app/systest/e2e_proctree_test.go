//go:build linux

package systest

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/store"
)

// Process trees die with the hub (ADR 0029): an agent that started a
// daemon in a session of its own and an approved terminal whose command
// runs `sleep 1000` (with a setsid'd sleep of its own) leave nothing
// behind, (a) when the hub is SIGKILLed, (b) when it stops cleanly; (c) the
// next start's recovery kills the whole tree of a recorded survivor, and
// never a process whose pid matches a stale record.
func e2eProcessTrees(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, hubConfig{"permissions": map[string]any{"timeout": "10s"}})
	cwd := t.TempDir()
	script := filepath.Join(cwd, "tree.sh")
	if err := os.WriteFile(script, []byte("setsid sleep 1000 </dev/null >/dev/null 2>&1 &\necho $! >escaped.pid\necho started\nsleep 1000\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	// (a) SIGKILL.
	tree := growTree(h, cwd, script)
	h.kill9()
	wantTreeGone(t, "SIGKILL", tree, 10*time.Second)

	// (b) SIGTERM.
	h.start()
	tree = growTree(h, cwd, script)
	if code := h.stop(); code != 0 {
		t.Errorf("exit %d", code)
	}
	wantTreeGone(t, "SIGTERM", tree, 10*time.Second)

	// (c) Recovery.
	{
		// A survivor of a previous run: a group leader with a child in a
		// session of its own. And an unrelated process whose pid a stale
		// record names, with another start time.
		survivor := exec.Command("sh", "-c", "setsid sleep 1000 </dev/null >/dev/null 2>&1 & echo $!; exec sleep 1000")
		survivor.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		out, _ := survivor.StdoutPipe()
		unrelated := exec.Command("sleep", "1000")
		unrelated.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		survivorDone := make(chan struct{}) // closed by the one Wait of survivor, below
		for _, c := range []*exec.Cmd{survivor, unrelated} {
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
		}
		t.Cleanup(func() { syscall.Kill(-unrelated.Process.Pid, syscall.SIGKILL); unrelated.Wait() })
		t.Cleanup(func() {
			syscall.Kill(-survivor.Process.Pid, syscall.SIGKILL)
			select {
			case <-survivorDone:
			case <-time.After(10 * time.Second):
			}
		})
		line, _ := bufio.NewReader(out).ReadString('\n')
		escaped, err := strconv.Atoi(strings.TrimSpace(line))
		if err != nil {
			t.Fatalf("survivor said %q", line)
		}
		escapedStart := procStartTime(escaped)
		t.Cleanup(func() { // should the test fail: nothing left on the machine
			if procStartTime(escaped) == escapedStart {
				syscall.Kill(escaped, syscall.SIGKILL)
			}
		})
		go func() { survivor.Wait(); close(survivorDone) }()
		start := startTimeOf(t, survivor.Process.Pid)
		recordProcs(t, h.dataDir,
			hub.AgentProcess{PID: survivor.Process.Pid, StartTime: start, Agent: "fake"},
			hub.AgentProcess{PID: unrelated.Process.Pid, StartTime: start.Add(-time.Hour), Agent: "fake"})
		h.start()
		for _, pid := range []int{survivor.Process.Pid, escaped} {
			if !waitFor(10*time.Second, func() bool { return !alive(pid) }) {
				t.Errorf("process %d of the recorded survivor's tree still runs after the restart", pid)
			}
		}
		if !alive(unrelated.Process.Pid) {
			t.Errorf("the unrelated process %d (a stale record's pid, another start time) was killed", unrelated.Process.Pid)
		}
		h.stop()
	}
}

// growTree runs two turns on a new thread of h: the agent starts a daemon
// (a session of its own), then an approved terminal runs script. It
// returns every process below the hub, and the daemon, by pid → start
// time, once the terminal's sleep runs.
func growTree(h *hubProc, cwd, script string) map[int]string {
	t := h.t
	t.Helper()
	os.Remove(filepath.Join(cwd, "escaped.pid"))
	th := h.newThread("fake", cwd)
	turn := h.startTurn(th.ID, "daemon 1000")
	done := h.waitTurn(th.ID, turn.ID, 30*time.Second)
	daemon, err := strconv.Atoi(strings.TrimPrefix(done.Output, "daemon "))
	if err != nil {
		t.Fatalf("daemon turn: %+v", done)
	}
	approve := func(apiPermission) any { return map[string]string{"outcome": "approved"} }
	if out, _ := confinedTurn(h, th.ID, "terminal-bg sh "+script, approve); !strings.HasPrefix(out, "terminal-bg term_") {
		t.Fatalf("terminal-bg: %q", out)
	}
	tree := map[int]string{daemon: procStartTime(daemon)}
	var escaped int // the terminal's setsid'd sleep: no descendant of the hub's
	if !waitFor(10*time.Second, func() bool {
		b, _ := os.ReadFile(filepath.Join(cwd, "escaped.pid"))
		escaped, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil
	}) {
		t.Fatal("the terminal's script wrote no escaped.pid")
	}
	tree[escaped] = procStartTime(escaped)
	var sleeps int
	if !waitFor(10*time.Second, func() bool {
		sleeps = 0
		for _, pid := range descendantsOf(h.pid()) {
			tree[pid] = procStartTime(pid)
			if cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); string(cmd) == "sleep\x001000\x00" {
				sleeps++
			}
		}
		return sleeps == 2 // the setsid'd one too: its parent sh still runs
	}) {
		var cmds []string
		for pid := range tree {
			cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			cmds = append(cmds, fmt.Sprintf("%d %q", pid, cmd))
		}
		t.Fatalf("no sleep 1000 below the hub: %v", cmds)
	}
	t.Cleanup(func() { // should the test fail: nothing left on the machine
		for pid, start := range tree {
			if procStartTime(pid) == start {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	for _, pid := range []int{daemon, escaped} {
		if !alive(pid) {
			t.Fatalf("%d (the daemon, or the terminal's setsid'd sleep) is not running", pid)
		}
	}
	return tree
}

// wantTreeGone fails t unless every process of tree (the same process:
// same start time) has died within timeout.
func wantTreeGone(t *testing.T, how string, tree map[int]string, timeout time.Duration) {
	t.Helper()
	left := func() []string {
		var s []string
		for pid, start := range tree {
			if alive(pid) && procStartTime(pid) == start {
				cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
				s = append(s, fmt.Sprintf("%d %q", pid, strings.ReplaceAll(string(cmd), "\x00", " ")))
			}
		}
		return s
	}
	if !waitFor(timeout, func() bool { return len(left()) == 0 }) {
		t.Errorf("still running %v after the hub's %s: %v", timeout, how, left())
	}
}

// descendantsOf lists every process below pid, from /proc.
func descendantsOf(root int) []int {
	ents, _ := os.ReadDir("/proc")
	kids := map[int][]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, _, ok := procStat(pid); ok {
			kids[ppid] = append(kids[ppid], pid)
		}
	}
	var out []int
	for next := kids[root]; len(next) > 0; {
		pid := next[0]
		next = append(next[1:], kids[pid]...)
		out = append(out, pid)
	}
	return out
}

// startTimeOf is pid's start time as the hub records it
// (hub/engine/procstart_linux.go): boot time plus field 22 of
// /proc/<pid>/stat, in clock ticks of 1/100 s.
func startTimeOf(t *testing.T, pid int) time.Time {
	t.Helper()
	ticks, err := strconv.ParseInt(procStartTime(pid), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile("/proc/stat")
	var boot int64
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			boot, _ = strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
	}
	return time.Unix(boot+ticks/100, (ticks%100)*int64(10*time.Millisecond)).UTC()
}

// recordProcs records ps in the stopped hub's database, as a run that
// died without forgetting them would have.
func recordProcs(t *testing.T, dataDir string, ps ...hub.AgentProcess) {
	t.Helper()
	db, err := store.Open(filepath.Join(dataDir, "switchboard.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Commit(context.Background(), &hub.Write{AgentProcs: ps}); err != nil {
		t.Fatal(err)
	}
}
