//go:build linux

package systest

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// BenchmarkHostCatchUp: 10 turns × 100 chunks/s on box, its network cut
// for 60 s while they run, then back. Two cuts: cut=link takes the veth
// down (this machine keeps its default route, so packets to box leave by
// it and vanish, as on a path that drops them); cut=noroute leaves the veth
// up and adds an "unreachable" route to box (a connection attempt fails at
// once, as on a laptop whose Wi-Fi is off). Metrics: reconnect-s (network
// back → the link connected again: ssh's retries and connection, the
// remote hub's token), copy-s (connected → the local stream has every
// event box logged for the turns until the network came back), catchup-s
// (their sum: the figure, target < 5 s), events (how many box logged
// during the cut), load. It fails unless the local stream and the local
// copies hold every event of the turns exactly once, in box's order.
// SWITCHBOARD_BENCH_HOST_CUT shortens the cut (seconds) for a try of the
// benchmark itself.
func BenchmarkHostCatchUp(b *testing.B) {
	cut := 60 * time.Second
	if v := os.Getenv("SWITCHBOARD_BENCH_HOST_CUT"); v != "" {
		var n int
		fmt.Sscan(v, &n)
		cut = time.Duration(n) * time.Second
	}
	b.Run("cut=link", func(b *testing.B) {
		benchCatchUp(b, cut, func(s *sshHost) { s.linkDown() }, func(s *sshHost) { s.linkUp() })
	})
	b.Run("cut=noroute", func(b *testing.B) {
		benchCatchUp(b, cut, func(s *sshHost) {
			run(b, "ip", "route", "add", "unreachable", s.addr+"/32")
			b.Cleanup(func() { exec.Command("ip", "route", "del", "unreachable", s.addr+"/32").Run() }) // after a failure
		}, func(s *sshHost) { run(b, "ip", "route", "del", "unreachable", s.addr+"/32") })
	})
}

// benchCatchUp is BenchmarkHostCatchUp with the cut made by down, undone
// by up.
func benchCatchUp(b *testing.B, cut time.Duration, down, up func(*sshHost)) {
	l := linkedHost(b)
	l.direct = l.directReader(b)
	l.cutDown, l.cutUp = down, up
	var threads []string
	for range hostTurns {
		threads = append(threads, l.boxThread(b))
	}
	g := l.globalReader(b)
	g.latency(b, l.h, threads, "ticks 10 100", 10) // the agents started
	for i := range b.N {
		r := l.catchUp(b, g, threads, cut)
		b.Logf("run %d: %d turns × %d chunks/s, the network cut for %s: %d events logged on box meanwhile; back → connected %.2f s, connected → caught up %.2f s, total %.2f s; load %.2f; the turns' %d events in %d copies",
			i+1, hostTurns, hostRate, cut, r.events, r.reconnect.Seconds(), r.copy.Seconds(), (r.reconnect + r.copy).Seconds(), r.load, r.held, r.copies)
		b.ReportMetric(r.reconnect.Seconds(), "reconnect-s")
		b.ReportMetric(r.copy.Seconds(), "copy-s")
		b.ReportMetric((r.reconnect + r.copy).Seconds(), "catchup-s")
		b.ReportMetric(float64(r.events), "events")
		b.ReportMetric(r.load, "load")
	}
}

type catchUpResult struct {
	reconnect, copy time.Duration
	events          int
	copies, held    int // the turns' copies stored here, and the host events they hold
	load            float64
}

// seqLog records, per thread, the seqs (box's) of the events one stream
// showed, and the highest.
type seqLog struct {
	mu      sync.Mutex
	seqs    map[string][]int64
	from    map[int64]int64 // a copy of joined deltas: its hostSeqFrom, by its hostSeq
	max     int64
	reached chan struct{} // closed when max ≥ target
	target  int64
	done    map[string]int64 // turn_completed's seq, by thread
	allDone chan struct{}
}

func newSeqLog(threads int) *seqLog {
	return &seqLog{seqs: map[string][]int64{}, from: map[int64]int64{}, reached: make(chan struct{}), target: -1,
		done: map[string]int64{}, allDone: make(chan struct{})}
}

// add records the event of seq, or the joined deltas from from to seq
// (from 0: one event).
func (s *seqLog) add(thread, ev string, from, seq int64, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seqs[thread] = append(s.seqs[thread], seq)
	if from > 0 {
		s.from[seq] = from
	}
	s.max = max(s.max, seq)
	if s.target >= 0 && s.max >= s.target {
		s.target = -1
		close(s.reached)
	}
	if _, ok := s.done[thread]; ev == hub.EventTurnCompleted && !ok {
		s.done[thread] = seq
		if len(s.done) == n {
			close(s.allDone)
		}
	}
}

// until returns a channel closed once a seq ≥ target has been seen.
func (s *seqLog) until(target int64) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.max >= target {
		close(s.reached)
	} else {
		s.target = target
	}
	return s.reached
}

func (s *seqLog) last() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.max
}

// catchUp runs one cut: the turns started, the network cut 5 s in, back
// after cut, the local stream read until it caught up with box and every
// turn completed; then every event checked, once and in order.
func (l *linked) catchUp(b *testing.B, g *streamReader, threads []string, cut time.Duration) catchUpResult {
	b.Helper()
	want := map[string]bool{} // box's thread ids
	for _, th := range threads {
		want[strings.TrimSuffix(th, "@box")] = true
	}
	local, there := newSeqLog(len(threads)), newSeqLog(len(threads))
	connected := make(chan time.Time, 16)
	var mu sync.Mutex
	lost := false // the link saw the cut (ssh's ServerAlive: 15 s)
	g.setWatch(func(ev string, f frame, at time.Time) {
		if ev == hub.EventHostChanged && f.Name == "box" {
			mu.Lock()
			lost = lost || f.State == string(hub.HostStateUnreachable)
			mu.Unlock()
			if f.State == string(hub.HostConnected) {
				connected <- at
			}
		}
		if id, ok := strings.CutSuffix(f.ThreadID, "@box"); ok && want[id] && f.HostSeq > 0 {
			local.add(id, ev, f.HostSeqFrom, f.HostSeq, len(threads))
		}
	})
	defer g.setWatch(nil)
	l.direct.r.setWatch(func(ev string, f frame, _ time.Time) {
		if want[f.ThreadID] {
			there.add(f.ThreadID, ev, 0, f.Seq, len(threads))
		}
	})
	defer l.direct.r.setWatch(nil)

	// Long enough to run through the cut and on for 20 s after it.
	ticks := int((cut+25*time.Second)/time.Second) * hostRate
	var turns []string
	for _, th := range threads {
		turns = append(turns, l.h.startTurn(th, fmt.Sprintf("ticks %d %d", ticks, hostRate)).ID)
	}
	load := loadMeter()
	// The workload's own length (not a wait for state): 5 s of streaming,
	// then the cut's 60 s.
	<-time.After(5 * time.Second)
	l.cutDown(l.s)
	cutAt := there.last()
	<-time.After(cut)
	for len(connected) > 0 {
		<-connected
	}
	target := there.last() // what box logged for the turns until now
	back := time.Now()
	l.cutUp(l.s)
	var res catchUpResult
	mu.Lock()
	wasLost := lost
	mu.Unlock()
	if wasLost {
		select {
		case at := <-connected:
			res.reconnect = at.Sub(back)
		case <-time.After(5 * time.Minute):
			b.Fatalf("box not connected again within 5 min of the network's return")
		}
	} else {
		b.Logf("the link did not see the %s cut (ssh's ServerAlive ends it after 15 s)", cut)
	}
	select {
	case <-local.until(target):
		res.copy = time.Since(back) - res.reconnect
	case <-time.After(5 * time.Minute):
		b.Fatalf("the local stream never reached box's seq %d (at %d)", target, local.last())
	}
	res.load = load()
	res.events = int(target - cutAt)
	select {
	case <-local.allDone:
	case <-time.After(5 * time.Minute):
		b.Fatalf("the turns %v never completed on the local stream", turns)
	}
	<-there.allDone

	// Every event of the turns, once and in box's order: on the local
	// stream and in the local copies.
	for _, th := range threads {
		id := strings.TrimSuffix(th, "@box")
		there.mu.Lock()
		theirs, end := slices.Clone(there.seqs[id]), there.done[id]
		there.mu.Unlock()
		local.mu.Lock()
		mine := heldSeqs(local.seqs[id], func(seq int64) int64 { return local.from[seq] }, theirs)
		local.mu.Unlock()
		// From the first event box logged for the turn to its
		// turn_completed (what follows may still be on its way).
		within := func(seqs []int64) []int64 {
			return slices.DeleteFunc(seqs, func(q int64) bool { return q < theirs[0] || q > end })
		}
		mine, theirs = within(mine), within(theirs)
		if !slices.Equal(mine, theirs) {
			b.Fatalf("thread %s: the local stream showed %d events, box logged %d: %s", th, len(mine), len(theirs), seqDiff(mine, theirs))
		}
		var stored []int64
		from := map[int64]int64{}
		for _, c := range copies(b, l.h, th) {
			stored = append(stored, c.HostSeq)
			from[c.HostSeq] = c.HostSeqFrom
		}
		res.copies += len(within(slices.Clone(stored)))
		stored = within(heldSeqs(stored, func(seq int64) int64 { return from[seq] }, theirs))
		res.held += len(stored)
		if !slices.Equal(stored, theirs) {
			b.Fatalf("thread %s: %d copies stored of box's %d events: %s", th, len(stored), len(theirs), seqDiff(stored, theirs))
		}
	}
	return res
}

// heldSeqs is the host seqs that copies of seqs hold, in order: a copy's
// own, or for one of joined deltas (from(seq) > 0, ADR 0056) each seq of
// the thread's on the host, theirs, from from(seq) to seq. A copy that
// holds none of theirs stays as it is, so a comparison shows it.
func heldSeqs(seqs []int64, from func(int64) int64, theirs []int64) []int64 {
	var out []int64
	for _, seq := range seqs {
		f := from(seq)
		if f == 0 {
			out = append(out, seq)
			continue
		}
		n := len(out)
		for _, q := range theirs {
			if q >= f && q <= seq {
				out = append(out, q)
			}
		}
		if len(out) == n || out[len(out)-1] != seq {
			out = append(out[:n], -seq) // not a run of the host's events
		}
	}
	return out
}

// seqDiff says where two seq lists part.
func seqDiff(a, b []int64) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("at %d: %d against %d", i, a[i], b[i])
		}
	}
	return fmt.Sprintf("one ends at %d", min(len(a), len(b)))
}
