//go:build linux

package systest

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestE2EHostReset: a host whose data dir is reset (its hub started again
// on an empty one, its seqs starting over) is copied again from its new
// log's start, never resumed after the old log's point (ADR 0048, 0053):
// the new log's thread, made on the host before the link is back, arrives
// here with every event exactly once and in order, also when the new log
// has passed the old point by then; the old copies stay.
// Through the real binaries, the host reached over the interim link file
// and a TCP relay (as TestE2EHostMirror).
func TestE2EHostReset(t *testing.T) {
	bins := buildE2E(t)
	relay := newRelay(t)
	remote := newHub(t, bins, hubConfig{"allowedHosts": []string{relay.addr()}})
	relay.setTarget(strings.TrimPrefix(remote.url, "http://"))
	local := prepareHub(t, bins, hubConfig{})
	writeLink(t, local.dataDir, "box", "http://"+relay.addr(), remote.dataDir)
	local.start()

	// The old log: a thread with a long turn, copied here.
	cwd := t.TempDir()
	var created struct{ Thread hostThread }
	if !waitFor(30*time.Second, func() bool {
		r := local.do("POST", "/v1/threads", map[string]string{"agent": "fake", "cwd": cwd, "host": "box"})
		if r.status == 201 {
			r.decode(t, &created)
			return true
		}
		return false
	}) {
		t.Fatal("no thread on box within 30s")
	}
	old := created.Thread
	turn := local.startTurn(old.ID, "ticks 60 200")
	local.waitTurn(old.ID, turn.ID, 60*time.Second)
	oldID := strings.TrimSuffix(old.ID, "@box")
	remote.waitTurn(oldID, strings.TrimSuffix(turn.ID, "@box"), 30*time.Second)
	var oldCopies []hostEvent
	if !waitFor(30*time.Second, func() bool {
		oldCopies = copies(t, local, old.ID)
		return caughtUp(oldCopies, copies(t, remote, oldID))
	}) {
		t.Fatalf("the old thread's %d copies never caught up with the host's %d events", len(oldCopies), len(copies(t, remote, oldID)))
	}
	checkCopies(t, oldCopies, copies(t, remote, oldID))
	resumeAt := oldCopies[len(oldCopies)-1].HostSeq
	if resumeAt < 40 {
		t.Fatalf("the old log ends at seq %d: too short for the new one to stay below it", resumeAt)
	}

	// Two resets: the first with the link back while the new log is still
	// short of the old point (its seqs go backwards), the second with the
	// link held down until the new log has passed the point kept here
	// (only the log's id tells it apart, ADR 0053).
	for _, past := range []bool{false, true} {
		if past {
			relay.cut()
		}
		// The reset: the host's hub stopped, its data dir emptied, started
		// again (a new token, link secret and port; the link file names the
		// files).
		remote.stop()
		if err := os.RemoveAll(remote.dataDir); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(remote.dataDir, 0o700); err != nil {
			t.Fatal(err)
		}
		remote.start()
		if !past {
			relay.setTarget(strings.TrimPrefix(remote.url, "http://"))
		}

		// The new log, made on the host while the link is still finding it.
		newTh := remote.newThread("fake", t.TempDir())
		script, want := "echo after the reset", "after the reset"
		if past {
			script = "ticks " + strconv.FormatInt(resumeAt+20, 10) + " 200"
		}
		nt := remote.startTurn(newTh.ID, script)
		got := remote.waitTurn(newTh.ID, nt.ID, 60*time.Second)
		if past {
			want = got.Output
		}
		theirs := copies(t, remote, newTh.ID)
		if last := theirs[len(theirs)-1].Seq; last >= resumeAt != past {
			t.Fatalf("past=%v: the new log reached seq %d, the old point is %d: the case is not made", past, last, resumeAt)
		}
		if past {
			relay.setTarget(strings.TrimPrefix(remote.url, "http://"))
			relay.restore()
		}

		// The new thread arrives here, copied from the new log's start, once.
		var mine []hostEvent
		if !waitFor(60*time.Second, func() bool {
			r := local.do("GET", "/v1/threads/"+newTh.ID+"@box/history?includeEvents=true", nil)
			if r.status != 200 {
				return false
			}
			mine = copies(t, local, newTh.ID+"@box")
			return caughtUp(mine, theirs)
		}) {
			t.Fatalf("past=%v: the new log's thread never arrived here (%d of %d events)\n%s", past, len(mine), len(theirs), tail(local.logText(), 4096))
		}
		checkCopies(t, mine, theirs)
		if got := local.turn(newTh.ID+"@box", nt.ID+"@box"); got.Output != want {
			t.Fatalf("past=%v: the new turn's copy says %q", past, got.Output)
		}
		// The old copies stay as they were.
		if again := copies(t, local, old.ID); len(again) != len(oldCopies) {
			t.Fatalf("past=%v: the old thread has %d copies, had %d", past, len(again), len(oldCopies))
		}
		// Going on: the next events of the new log follow, once.
		nt2 := local.startTurn(newTh.ID+"@box", "echo and on")
		if got := local.waitTurn(newTh.ID+"@box", nt2.ID, 30*time.Second); got.Output != "and on" {
			t.Fatalf("past=%v: the next turn's copy: %+v", past, got)
		}
		if !waitFor(30*time.Second, func() bool {
			return caughtUp(copies(t, local, newTh.ID+"@box"), copies(t, remote, newTh.ID))
		}) {
			t.Fatalf("past=%v: after the next turn: %d copies of %d events", past, len(copies(t, local, newTh.ID+"@box")), len(copies(t, remote, newTh.ID)))
		}
		checkCopies(t, copies(t, local, newTh.ID+"@box"), copies(t, remote, newTh.ID))
		// The point kept is now this log's: the next reset must pass it.
		all := copies(t, local, newTh.ID+"@box")
		resumeAt = all[len(all)-1].HostSeq
	}
}
