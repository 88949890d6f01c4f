//go:build linux

package systest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/switchboard-hub/switchboard/acp/acptest"
	"github.com/switchboard-hub/switchboard/app/hubbench/procfig"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

// Issue 30's four figures for hosts (docs/PERFORMANCE.md, "Hosts"),
// measured from outside: the real binaries as their own processes (the
// local hub, each host's hub installed by the link, ssh, sshd), this test
// binary as the client (and, in another process the host's hub starts, the
// fake agent); each host a network namespace with its own sshd and Unix
// user (the sshHost harness: root, ip, OpenSSH). `make bench-hosts` runs
// them: go test -run '^$' -bench BenchmarkHost -benchtime 1x -count 2.
// A benchmark prints its figures; it fails only when something is wrong
// (an event lost or twice, a host that never connects), never on a time.

// hostRate is the workload of the latency and catch-up figures: 10 turns
// at once, each 100 chunks per second.
const (
	hostTurns = 10
	hostRate  = 100
)

// BenchmarkHostChunkLatency: the added latency agent write → the local
// hub's global stream (what the window reads) of 10 turns × 100 chunks/s
// on a host, over the same workload on the local hub's own threads. The
// two alternate, hostRounds rounds of each (a disk or CPU hiccup of the
// shared machine falls on both alike), and the figure pools each side's
// rounds. Only the global stream is read meanwhile.
//
// Then one more round on the host reads the same chunks at three more
// places: twice on the host hub's own socket, and through the link's
// forwarded socket (ssh, without the mirror and the local hub). Each chunk
// is then paired with itself: how much later it came through the link
// than at the host (what the link adds to that chunk), through ssh, and
// at the host's second reader (two readers of one stream: the measuring's
// own noise).
//
// A virtual machine's CPUs can be taken away by its hypervisor for tens
// of milliseconds (steal), which stretches whatever is in flight on
// either side. Each figure is also given for the chunks in whose flight
// no CPU time was stolen ("quiet"), beside the share stolen.
//
// Metrics: local-p99-ms, link-p99-ms, added-p99-ms (their difference,
// target < 2), added-p50-ms, quiet-added-p99-ms, steal-pct, load (the
// 1-minute load average); from the last round paired-p99-ms (the link
// after the host, chunk by chunk), quiet-paired-p99-ms, noise-p99-ms
// (the second reader after the first), quiet-noise-p99-ms, host-p99-ms,
// ssh-hop-p99-ms and mirror-hop-p99-ms (through the link after through
// ssh).
func BenchmarkHostChunkLatency(b *testing.B) {
	secs := benchSeconds(5)
	l := linkedHost(b)
	localCwd := b.TempDir()
	var localThreads, boxThreads []string
	for range hostTurns {
		localThreads = append(localThreads, l.h.newThread("fake", localCwd).ID)
		boxThreads = append(boxThreads, l.boxThread(b))
	}
	g := l.globalReader(b)
	// A first turn on every thread starts its agent (both sides alike):
	// the figure is the streaming's, not the agents' start.
	g.latency(b, l.h, append(slices.Clone(localThreads), boxThreads...), "ticks 10 100", 10)
	input := fmt.Sprintf("ticks %d %d", secs*hostRate, hostRate)
	for i := range b.N {
		load, steal := loadMeter(), procfig.WatchSteal(2*time.Millisecond)
		local, link := &latencies{}, &latencies{}
		for range hostRounds {
			local.join(g.latency(b, l.h, localThreads, input, secs*hostRate))
			link.join(g.latency(b, l.h, boxThreads, input, secs*hostRate))
		}
		share, longest := steal.Stop()
		ld := load()
		quiet := quietIn(steal)
		lp, kp := pct(local.d(nil), 0.99), pct(link.d(nil), 0.99)
		ql, qk := local.d(quiet), link.d(quiet)
		b.Logf("run %d: %d rounds of %d turns × %d chunks/s for %d s, local and through the link alternating; p50/p99/p99.9/max ms: local %s, through the link %s; added p50 %.2f ms, p99 %.2f ms; quiet chunks (%d and %d of %d and %d) local %s, through the link %s, added p99 %.2f ms; CPU stolen %.1f %% (at most %v at once); load %.2f",
			i+1, hostRounds, hostTurns, hostRate, secs, local, link, pct(link.d(nil), 0.5)-pct(local.d(nil), 0.5), kp-lp,
			len(ql), len(qk), len(local.ticks), len(link.ticks), quantiles(ql), quantiles(qk), pct(qk, 0.99)-pct(ql, 0.99), 100*share, longest, ld)
		b.ReportMetric(lp, "local-p99-ms")
		b.ReportMetric(kp, "link-p99-ms")
		b.ReportMetric(kp-lp, "added-p99-ms")
		b.ReportMetric(pct(link.d(nil), 0.5)-pct(local.d(nil), 0.5), "added-p50-ms")
		b.ReportMetric(pct(qk, 0.99)-pct(ql, 0.99), "quiet-added-p99-ms")
		b.ReportMetric(100*share, "steal-pct")
		b.ReportMetric(ld, "load")

		readers := map[string]*hostReader{"host": l.directReader(b), "host2": l.directReader(b), "ssh": l.tunnelReader(b)}
		seen := map[string]*latencies{}
		for name, r := range readers {
			seen[name] = &latencies{}
			r.collect(boxThreads, seen[name])
		}
		steal = procfig.WatchSteal(2 * time.Millisecond)
		diag := g.latency(b, l.h, boxThreads, input, secs*hostRate)
		share, longest = steal.Stop()
		for _, r := range readers {
			r.r.close()
		}
		host := seen["host"]
		paired, noise := diag.after(host, nil), seen["host2"].after(host, nil)
		quiet = quietIn(steal)
		qPaired, qNoise := diag.after(host, quiet), seen["host2"].after(host, quiet)
		sshHop, mirrorHop := seen["ssh"].after(host, nil), diag.after(seen["ssh"], nil)
		b.Logf("run %d, one more round on the host, p50/p99/p99.9/max ms: through the link %s, at the host %s, through ssh alone %s; the same chunks later than at the host: through the link %s (%d chunks), through ssh %s, the mirror and the local hub after ssh %s, a second reader at the host %s; quiet chunks (%d): through the link %s, a second reader %s; CPU stolen %.1f %% (at most %v at once)",
			i+1, diag, host, seen["ssh"], quantiles(paired), len(paired), quantiles(sshHop), quantiles(mirrorHop), quantiles(noise),
			len(qPaired), quantiles(qPaired), quantiles(qNoise), 100*share, longest)
		b.ReportMetric(pct(paired, 0.99), "paired-p99-ms")
		b.ReportMetric(pct(qPaired, 0.99), "quiet-paired-p99-ms")
		b.ReportMetric(pct(noise, 0.99), "noise-p99-ms")
		b.ReportMetric(pct(qNoise, 0.99), "quiet-noise-p99-ms")
		b.ReportMetric(pct(host.d(nil), 0.99), "host-p99-ms")
		b.ReportMetric(pct(sshHop, 0.99), "ssh-hop-p99-ms")
		b.ReportMetric(pct(mirrorHop, 0.99), "mirror-hop-p99-ms")
	}
}

// hostRounds is how many rounds of each side BenchmarkHostChunkLatency
// alternates.
const hostRounds = 4

// benchSeconds is SWITCHBOARD_BENCH_HOST_SECONDS, or def: the length of the
// latency figure's turns.
func benchSeconds(def int) int {
	var n int
	if _, err := fmt.Sscan(os.Getenv("SWITCHBOARD_BENCH_HOST_SECONDS"), &n); err == nil && n > 0 {
		return n
	}
	return def
}

// linked is a local hub with one host, box, connected over real OpenSSH,
// the fake agent (this test binary) added to box's config as "fake".
type linked struct {
	s       *sshHost
	h       *hubProc
	project string      // a folder on box its user owns
	direct  *hostReader // box's hub's own global stream (BenchmarkHostCatchUp)
	// cutDown and cutUp cut box's network and restore it (BenchmarkHostCatchUp).
	cutDown, cutUp func(*sshHost)
}

func linkedHost(b *testing.B) *linked {
	b.Helper()
	s := newSSHHost(b)
	s.trustHostKey(b)
	limits := map[string]any{"maxAgentProcesses": 2 * hostTurns} // the default, 8, is below the figure's 10 turns
	s.setConfig(b, "limits", limits)                             // not a setting of the API: the host's file, before its hub starts
	h := hostsHubWith(b, s.sshConfig, hubConfig{"limits": limits})
	h.call("POST", "/v1/hosts", map[string]string{"name": "box", "ssh": s.alias}, 201, nil)
	h.waitHost("box", "connected", 120*time.Second)
	project := s.fakeAgent(b, h)
	return &linked{s: s, h: h, project: project}
}

// fakeAgent puts the fake agent and a project folder on s (fakeAgentFiles),
// adds the agent to the host's config as "fake" through h (PATCH
// /v1/hosts/box/settings) and returns the folder.
func (s *sshHost) fakeAgent(tb testing.TB, h *hubProc) string {
	tb.Helper()
	agent, project := s.fakeAgentFiles(tb)
	h.call("PATCH", "/v1/hosts/box/settings", map[string]any{"agents": map[string]any{"fake": agent}}, 200, nil)
	return project
}

// fakeAgentFiles puts the fake agent (this test binary) and a project
// folder on s, owned by its user (who must be able to run and enter
// them), and returns the agent's settings entry and the folder.
func (s *sshHost) fakeAgentFiles(tb testing.TB) (agent map[string]any, project string) {
	tb.Helper()
	path := filepath.Join(s.home, "fakeagent")
	copyFileFor(tb, mustExecutable(tb), path, 0o755, s.uid)
	project = filepath.Join(s.home, "project")
	if err := os.Mkdir(project, 0o700); err != nil {
		tb.Fatal(err)
	}
	os.Chown(project, s.uid, -1)
	_, args, env := acptest.FakeAgentArgv(tb)
	agentEnv := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		agentEnv[k] = v
	}
	return map[string]any{"name": "Fake on box", "command": path, "args": args, "env": agentEnv}, project
}

// setConfig sets key in the config file of s's hub, as its user would by
// hand (made, with its folders, if there is none yet).
func (s *sshHost) setConfig(tb testing.TB, key string, v any) {
	tb.Helper()
	p := filepath.Join(s.home, ".config", "switchboard", "config.yaml")
	doc := map[string]any{}
	if b, err := os.ReadFile(p); err == nil {
		if err := yaml.Unmarshal(b, &doc); err != nil {
			tb.Fatal(err)
		}
	}
	doc[key] = v
	out, err := yaml.Marshal(doc)
	if err != nil {
		tb.Fatal(err)
	}
	for _, d := range []string{filepath.Dir(filepath.Dir(p)), filepath.Dir(p)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			tb.Fatal(err)
		}
		os.Chown(d, s.uid, -1)
	}
	tmp := p + ".new"
	if err := os.WriteFile(tmp, out, 0o600); err != nil {
		tb.Fatal(err)
	}
	os.Chown(tmp, s.uid, -1)
	if err := os.Rename(tmp, p); err != nil {
		tb.Fatal(err)
	}
}

// boxThread makes a thread on box (through the local API) and returns its
// local id (<id>@box).
func (l *linked) boxThread(tb testing.TB) string {
	tb.Helper()
	var th hostThread
	if !waitFor(30*time.Second, func() bool {
		var created struct{ Thread hostThread }
		r := l.h.do("POST", "/v1/threads", map[string]string{"agent": "fake", "cwd": l.project, "host": "box"})
		if r.status != 201 {
			return false
		}
		r.decode(tb, &created)
		th = created.Thread
		return true
	}) {
		tb.Fatalf("no thread on box: %s", l.h.do("POST", "/v1/threads", map[string]string{"agent": "fake", "cwd": l.project, "host": "box"}))
	}
	return th.ID
}

// frame is what the benchmarks read of an event on a stream.
type frame struct {
	Seq      int64  `json:"seq"`
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
	Text     string `json:"text"`
	HostSeq  int64  `json:"hostSeq"`
	// HostSeqFrom: a copy of box's deltas from this seq to HostSeq, joined (ADR 0056).
	HostSeqFrom int64  `json:"hostSeqFrom"`
	Name        string `json:"name"`  // host_changed: the Host
	State       string `json:"state"` // host_changed
}

// streamReader reads one hub's global stream (scope=all) in this process
// and hands each frame, with the time it was read, to the watcher set.
type streamReader struct {
	s     *client.Stream
	mu    sync.Mutex
	watch func(ev string, f frame, at time.Time)
	done  chan struct{} // closed when the stream ended (closed, or failed)
}

func newStreamReader(tb testing.TB, c *client.Client) *streamReader {
	tb.Helper()
	s, err := c.Events(context.Background(), -1, client.StreamOptions{Reconnect: true})
	if err != nil {
		tb.Fatal(err)
	}
	r := &streamReader{s: s, done: make(chan struct{})}
	tb.Cleanup(func() { s.Close(); <-r.done })
	go r.read()
	return r
}

func (r *streamReader) read() {
	defer close(r.done)
	for {
		f, err := r.s.NextFrame()
		if err != nil {
			return
		}
		at := time.Now()
		var x frame
		if json.Unmarshal([]byte(f.Data), &x) != nil {
			continue
		}
		r.mu.Lock()
		w := r.watch
		r.mu.Unlock()
		if w != nil {
			w(f.Event, x, at)
		}
	}
}

// close ends the stream and waits for its reader.
func (r *streamReader) close() {
	r.s.Close()
	<-r.done
}

// setWatch sets (nil: clears) the function each frame goes to.
func (r *streamReader) setWatch(w func(ev string, f frame, at time.Time)) {
	r.mu.Lock()
	r.watch = w
	r.mu.Unlock()
}

// globalReader is the local hub's global stream, as the window reads it.
func (l *linked) globalReader(tb testing.TB) *streamReader {
	hb, err := client.Discover(l.h.dataDir)
	if err != nil {
		tb.Fatal(err)
	}
	return newStreamReader(tb, client.ForHub(hb, client.Options{ClientID: "alice", All: true}))
}

// hostReader reads box's hub's own global stream on its socket (not
// through the link: root reads the host user's socket and token
// directly), to tell what the host adds from what the link adds.
type hostReader struct{ r *streamReader }

func (l *linked) directReader(tb testing.TB) *hostReader {
	return l.hostReaderOn(tb, filepath.Join(l.s.home, ".local/share/switchboard", "run", "hub.sock"))
}

// tunnelReader reads box's hub's stream through the link's forwarded
// socket (ssh, without the mirror and the local hub).
func (l *linked) tunnelReader(tb testing.TB) *hostReader {
	return l.hostReaderOn(tb, filepath.Join(l.h.dataDir, "hosts", "box", "hub.sock"))
}

// hostReaderOn reads box's hub's global stream on socket, with box's token.
func (l *linked) hostReaderOn(tb testing.TB, socket string) *hostReader {
	tok := strings.TrimSpace(string(mustRead(tb, filepath.Join(l.s.home, ".local/share/switchboard", "data", "token"))))
	c := client.ForSocket(socket, tok, client.Options{ClientID: "bench", All: true})
	return &hostReader{r: newStreamReader(tb, c)}
}

// collect records into into the latency of every tick of the given
// threads' turns ("<id>@box" on this side) read on the host's own
// stream; nil stops.
func (d *hostReader) collect(threads []string, into *latencies) {
	if threads == nil {
		d.r.setWatch(nil)
		return
	}
	want := map[string]bool{}
	for _, t := range threads {
		want[strings.TrimSuffix(t, "@box")] = true
	}
	d.r.setWatch(func(ev string, f frame, at time.Time) {
		if ev == hub.EventMessageDelta && want[f.ThreadID] {
			into.add(f.Text, at)
		}
	})
}

// latencies gathers ticks from several goroutines.
type latencies struct {
	mu    sync.Mutex
	ticks []tick
}

// tick is one chunk: sent by the agent, read at.
type tick struct{ sent, at time.Time }

// quietIn keeps the ticks in whose flight w saw no CPU time stolen.
func quietIn(w *procfig.StealWatch) func(tick) bool {
	return func(t tick) bool { return !w.Touches(t.sent, t.at) }
}

func (l *latencies) add(text string, at time.Time) {
	ts, err := acptest.TickTimes(text)
	if err != nil {
		return
	}
	l.mu.Lock()
	for _, t := range ts {
		l.ticks = append(l.ticks, tick{t, at})
	}
	l.mu.Unlock()
}

// join adds o's ticks to l's.
func (l *latencies) join(o *latencies) {
	l.mu.Lock()
	l.ticks = append(l.ticks, o.ticks...)
	l.mu.Unlock()
}

// d is the latencies of the ticks keep keeps (nil: all).
func (l *latencies) d(keep func(tick) bool) []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	var d []time.Duration
	for _, t := range l.ticks {
		if keep == nil || keep(t) {
			d = append(d, t.at.Sub(t.sent))
		}
	}
	return d
}

// after pairs each tick of l with the same tick (by its send time) read
// by first, and returns how much later l read it: a chunk's delay between
// two places. keep (nil: all) is given the tick from its send to l's
// read.
func (l *latencies) after(first *latencies, keep func(tick) bool) []time.Duration {
	first.mu.Lock()
	at := make(map[int64]time.Time, len(first.ticks))
	for _, t := range first.ticks {
		at[t.sent.UnixNano()] = t.at
	}
	first.mu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	var d []time.Duration
	for _, t := range l.ticks {
		if f, ok := at[t.sent.UnixNano()]; ok && (keep == nil || keep(t)) {
			d = append(d, t.at.Sub(f))
		}
	}
	return d
}

func (l *latencies) String() string { return quantiles(l.d(nil)) }

// quantiles is d's p50/p99/p99.9/max in milliseconds.
func quantiles(d []time.Duration) string {
	return fmt.Sprintf("%.2f/%.2f/%.2f/%.2f", pct(d, 0.5), pct(d, 0.99), pct(d, 0.999), pct(d, 1))
}

// pct is the q-quantile of d in milliseconds (d is sorted in place).
func pct(d []time.Duration, q float64) float64 {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	i := min(int(q*float64(len(d))), len(d)-1)
	return float64(d[i].Microseconds()) / 1000
}

// latency starts input as a turn on each thread at once (each thread has
// no other turn meanwhile), reads the ticks of their turns on r until
// every turn_completed has come, and returns their latencies. It fails b
// if a turn's ticks are not all there, each exactly once.
func (r *streamReader) latency(b *testing.B, h *hubProc, threads []string, input string, ticks int) *latencies {
	b.Helper()
	out := &latencies{}
	var mu sync.Mutex
	want := map[string]bool{}
	for _, th := range threads {
		want[th] = true
	}
	count := map[string]int{}
	completed := map[string]bool{}
	allDone := make(chan struct{})
	r.setWatch(func(ev string, f frame, at time.Time) {
		if !want[f.ThreadID] {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		switch ev {
		case hub.EventMessageDelta:
			out.add(f.Text, at)
			count[f.TurnID] += len(f.Text) / acptest.TickSize
		case hub.EventTurnCompleted:
			if !completed[f.TurnID] {
				completed[f.TurnID] = true
				if len(completed) == len(threads) {
					close(allDone)
				}
			}
		}
	})
	defer r.setWatch(nil)
	var turns []string
	for _, th := range threads {
		turns = append(turns, h.startTurn(th, input).ID)
	}
	select {
	case <-allDone:
	case <-time.After(time.Duration(ticks/hostRate)*time.Second + 120*time.Second):
		b.Fatalf("the turns %v did not all complete on the stream", turns)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, tu := range turns {
		if count[tu] != ticks {
			b.Fatalf("turn %s: %d ticks on the stream, want %d (each once)", tu, count[tu], ticks)
		}
	}
	return out
}
