//go:build linux

package acp

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// procInfo is what /proc/<pid>/stat says of a process.
type procInfo struct {
	ppid, pgid int
	state      byte   // R, S, D, Z, X…
	start      uint64 // start time in clock ticks since boot
}

// readProc parses /proc/<pid>/stat.
func readProc(pid int) (procInfo, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procInfo{}, false
	}
	// The command name is in parentheses and may contain anything.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procInfo{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 || len(f[0]) != 1 {
		return procInfo{}, false
	}
	var p procInfo
	p.state = f[0][0]
	p.ppid, _ = strconv.Atoi(f[1])
	p.pgid, _ = strconv.Atoi(f[2])
	p.start, _ = strconv.ParseUint(f[19], 10, 64)
	return p, true
}

// treeMembers lists the live processes (zombies are dead) that are in the
// process group root or descend from root, root itself excepted.
func treeMembers(root int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	procs := make(map[int]procInfo, len(ents))
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readProc(pid); ok {
			procs[pid] = p
		}
	}
	var out []int
	for pid, p := range procs {
		if pid == root || p.state == 'Z' || p.state == 'X' {
			continue
		}
		if p.pgid == root || descends(procs, pid, root) {
			out = append(out, pid)
		}
	}
	return out
}

// descends reports whether root is an ancestor of pid in procs.
func descends(procs map[int]procInfo, pid, root int) bool {
	for range len(procs) { // a bound, should the table have a cycle
		p, ok := procs[pid]
		if !ok || p.ppid <= 1 {
			return false
		}
		if p.ppid == root {
			return true
		}
		pid = p.ppid
	}
	return false
}

// killMembers kills treeMembers(root), root itself spared: first it stops
// them (SIGSTOP) in rounds until a read of /proc finds no new one, so that
// none forks or exits meanwhile and root's descendants stay its
// descendants; then it SIGKILLs those a fresh read finds, in rounds until
// none is left. It gives up after about wait and reports whether none was
// left.
//
// A pid is signalled only right after /proc named it as a member, and
// members are stopped: a pid reused between the read and the signal would
// need a member to exit, be reaped and its pid be handed out again within
// that instant.
func killMembers(root int, wait time.Duration) bool {
	deadline := time.Now().Add(wait)
	stopped := map[int]bool{}
	for time.Now().Before(deadline) {
		fresh := false
		for _, pid := range treeMembers(root) {
			if !stopped[pid] {
				_ = syscall.Kill(pid, syscall.SIGSTOP)
				stopped[pid], fresh = true, true
			}
		}
		if !fresh {
			break
		}
	}
	for {
		pids := treeMembers(root)
		if len(pids) == 0 {
			return true
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// KillTree SIGKILLs the process group pgid, its leader, and every
// descendant of the leader, whatever group or session it moved to (the
// orphans a supervisor adopted as a subreaper): the group is stopped
// first, the leader killed last, so that no descendant is orphaned before
// it is found. It takes at most about a second.
//
// The caller must have made sure that pgid is still the process it started
// (same start time), since a pid is reused: recovery does.
func KillTree(pgid int) {
	_ = syscall.Kill(-pgid, syscall.SIGSTOP)
	killMembers(pgid, time.Second)
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	_ = syscall.Kill(pgid, syscall.SIGKILL)
}
