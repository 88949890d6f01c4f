//go:build linux

package systest

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestE2EDiskFull (issue 28): the disk of the data dir fills up while a
// turn streams, through the real `switchboard serve`. The hub says so
// (disk_full, hub-wide), keeps the turn's end and writes it again and
// again (each try says disk_full again), and once space returns the turn
// ends — its status and turn_completed stored — and disk_full says it is
// over. The data dir is a small tmpfs of its own: mounting one needs root
// (CI runs as root); anywhere else the test says so and does not run.
func TestE2EDiskFull(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs as the data dir needs root (CI runs as root)")
	}
	bins := buildE2E(t)
	h := prepareHub(t, bins, hubConfig{"agents": map[string]agentConf{"fake": fakeAgentConf(t)}})
	if err := os.MkdirAll(h.dataDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=8m,mode=0700", "tmpfs", h.dataDir).CombinedOutput(); err != nil {
		t.Fatalf("mount a tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", h.dataDir).Run() })
	h.start()
	th := h.newThread("fake", t.TempDir())
	events := h.mustSSE("GET", "/v1/events?scope=all", nil)

	turn := h.startTurn(th.ID, "ticks 100 100") // 1 s of chunks, then end_turn
	events.until(30*time.Second, isType("message_delta", turn.ID))
	filler := filepath.Join(h.dataDir, "filler")
	fillDisk(t, filler)

	events.until(30*time.Second, func(m sseMsg) bool { return m.event == "disk_full" && m.ev.Message != "" })
	// The agent ends its turn while the disk is full: the end is kept and
	// written again (the hub's log says each try), the turn still running.
	if !waitFor(30*time.Second, func() bool {
		return strings.Contains(h.logText(), "storing the end of a turn failed; trying again")
	}) {
		t.Fatal("the turn's end was never retried while the disk was full")
	}
	if tu := h.history(th.ID, false); len(tu) != 1 || tu[0].Status != "running" {
		t.Fatalf("while the disk is full: %+v, want the turn still running", tu)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	events.until(30*time.Second, func(m sseMsg) bool { return m.event == "disk_full" && m.ev.Message == "" })
	done := h.waitTurn(th.ID, turn.ID, 30*time.Second)
	if done.Status != "completed" {
		t.Fatalf("turn %+v after space returned, want completed", done)
	}
	var kinds []string
	for _, tu := range h.history(th.ID, true) {
		for _, e := range tu.Events {
			kinds = append(kinds, e.Type)
		}
	}
	if !slices.Contains(kinds, "turn_completed") {
		t.Fatalf("history %v: want the turn's end stored", kinds)
	}
	// And the hub goes on: the next turn is stored whole.
	next := h.startTurn(th.ID, "echo after the disk filled")
	if tu := h.waitTurn(th.ID, next.ID, 30*time.Second); tu.Status != "completed" || tu.Output != "after the disk filled" {
		t.Fatalf("the next turn %+v", tu)
	}
}

// fillDisk writes path until its file system has no room left.
func fillDisk(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, size := range []int{1 << 20, 4 << 10, 1} {
		buf := make([]byte, size)
		for {
			if _, err := f.Write(buf); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					t.Fatalf("filling the disk: %v", err)
				}
				break
			}
		}
	}
}
