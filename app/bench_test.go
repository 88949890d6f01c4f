//go:build unix

package app

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest"
	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
	"github.com/switchboard-hub/switchboard/app/datadir"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
	"github.com/switchboard-hub/switchboard/store"
)

// System benchmarks: the hub as users run it (store, engine, HTTP API,
// SSE), with the fake agent as a real subprocess. `make bench` runs them
// with SWITCHBOARD_BENCH_LARGE=1 (1M events, 10k threads); results and
// targets are in docs/PERFORMANCE.md.

func large() bool { return os.Getenv("SWITCHBOARD_BENCH_LARGE") != "" }

// benchConfig writes a config whose agent "fake" is this test binary.
func benchConfig(tb testing.TB, dir string, extra ...string) string {
	path, args, env := acptest.FakeAgentArgv(tb)
	var envYAML []string
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		envYAML = append(envYAML, fmt.Sprintf("%s: %q", k, v))
	}
	cfg := fmt.Sprintf("registry:\n  url: \"\"\nlimits:\n  maxAgentProcesses: 32\nagents:\n  fake:\n    name: Fake\n    command: %q\n    args: [%q]\n    env: {%s}\n",
		path, args[0], strings.Join(envYAML, ", "))
	cfg += strings.Join(extra, "")
	p := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(p, []byte(cfg), 0o600); err != nil {
		tb.Fatal(err)
	}
	return p
}

// benchClient is the benchmarks' client of the API: hub/client, as the
// editor bridge and the tray use it.
func benchClient(url, token string) *client.Client {
	return client.ForHub(client.NewHub(url, token), client.Options{ClientID: "bench"})
}

func newThread(tb testing.TB, c *client.Client, cwd string) hub.Thread {
	tb.Helper()
	th, err := c.CreateThread(context.Background(), hub.CreateThreadRequest{Agent: "fake", Cwd: cwd})
	if err != nil {
		tb.Fatal(err)
	}
	return th
}

// readEvents calls fn with each event frame of s until fn returns false;
// the data is left undecoded, as a client counting events would.
func readEvents(tb testing.TB, s *client.Stream, fn func(client.Frame) bool) {
	tb.Helper()
	for {
		f, err := s.NextFrame()
		if err != nil {
			tb.Fatalf("stream ended: %v", err)
		}
		if f.Event == hub.EventError {
			tb.Fatalf("error event: %s", f.Data)
		}
		if !fn(f) {
			return
		}
	}
}

// floodTurn streams one turn of `flood chunks 64` to its end and returns
// the number of chunks its message_delta events held (the hub joins
// chunks that wait for the same commit).
func floodTurn(tb testing.TB, c *client.Client, threadID string, chunks int) int {
	tb.Helper()
	s, err := c.StreamTurn(context.Background(), threadID, hub.TurnInput{Input: fmt.Sprintf("flood %d 64", chunks)}, client.StreamOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	bytes := 0
	readEvents(tb, s, func(f client.Frame) bool {
		if f.Event == hub.EventMessageDelta {
			var d struct{ Text string }
			if err := json.Unmarshal([]byte(f.Data), &d); err != nil {
				tb.Fatal(err)
			}
			bytes += len(d.Text)
		}
		return f.Event != hub.EventTurnCompleted
	})
	return bytes / 64
}

// startInProcess runs the hub in this process (startHub, as serve does),
// with extra lines of config.
func startInProcess(tb testing.TB, extra ...string) (*client.Client, string) {
	dir := tb.TempDir()
	h, err := startHub(context.Background(), &env{stdio: Stdio{Err: io.Discard}},
		Options{DataDir: filepath.Join(dir, "data"), Config: benchConfig(tb, dir, extra...), Listen: "127.0.0.1:0"})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { h.stop(context.Background()) })
	return benchClient(h.url, h.token), dir
}

// BenchmarkSSEFlood: 64-byte chunks from the agent through one turn —
// parsed, stored durably, streamed — to an SSE client (POST turns with
// Accept: text/event-stream). Target ≥ 50k chunks/s. Redaction is on (the
// default); BenchmarkSSEFloodNoRedaction is the same with it off.
func BenchmarkSSEFlood(b *testing.B) { benchSSEFlood(b) }

// BenchmarkSSEFloodNoRedaction is BenchmarkSSEFlood with
// redaction.enabled: false, to measure what redaction costs.
func BenchmarkSSEFloodNoRedaction(b *testing.B) {
	benchSSEFlood(b, "redaction:\n  enabled: false\n")
}

// BenchmarkSSEFloodNoSearch is BenchmarkSSEFlood with search.enabled:
// false, to measure what indexing for search costs.
func BenchmarkSSEFloodNoSearch(b *testing.B) {
	benchSSEFlood(b, "search:\n  enabled: false\n")
}

func benchSSEFlood(b *testing.B, config ...string) {
	c, cwd := startInProcess(b, config...)
	th := newThread(b, c, cwd)
	const chunks = 200000
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if n := floodTurn(b, c, th.ID, chunks); n != chunks {
			b.Fatalf("%d of %d chunks", n, chunks)
		}
	}
	b.ReportMetric(float64(chunks*b.N)/time.Since(start).Seconds(), "chunks/s")
}

// BenchmarkSSELatency: 10 threads, each agent writing 1000 chunks/s; the
// time from the agent's write to the SSE client's read, p50 and p99.
// Target p99 < 5 ms.
func BenchmarkSSELatency(b *testing.B) {
	c, cwd := startInProcess(b)
	const threads, rate, seconds = 10, 1000, 3
	ids := make([]string, threads)
	for i := range ids {
		ids[i] = newThread(b, c, cwd).ID
	}
	var lat []time.Duration
	for i := 0; i < b.N; i++ {
		s, err := c.Events(context.Background(), -1, client.StreamOptions{})
		if err != nil {
			b.Fatal(err)
		}
		for _, id := range ids {
			if _, err := c.StartTurn(context.Background(), id, hub.TurnInput{Input: fmt.Sprintf("ticks %d %d", rate*seconds, rate)}); err != nil {
				b.Fatal(err)
			}
		}
		done := 0
		readEvents(b, s, func(f client.Frame) bool {
			switch f.Event {
			case hub.EventMessageDelta:
				var d struct{ Text string }
				if err := json.Unmarshal([]byte(f.Data), &d); err != nil {
					b.Fatal(err)
				}
				sent, err := acptest.TickTimes(d.Text) // one or more: joined
				if err != nil {
					b.Fatal(err)
				}
				now := time.Now()
				for _, t := range sent {
					lat = append(lat, now.Sub(t))
				}
			case hub.EventTurnCompleted:
				done++
			}
			return done < threads
		})
		s.Close()
	}
	if want := b.N * threads * rate * seconds; len(lat) != want {
		b.Fatalf("%d of %d chunks", len(lat), want)
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
}

var buildOnce struct {
	sync.Once
	path string
	err  error
}

// headlessBinary builds `switchboard` with -tags headless once per run.
func headlessBinary(tb testing.TB) string {
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "switchboard-bench-")
		if err != nil {
			buildOnce.err = err
			return
		}
		buildOnce.path = filepath.Join(dir, "switchboard")
		cmd := exec.Command("go", "build", "-tags", "headless", "-o", buildOnce.path, "..")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildOnce.err = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if buildOnce.err != nil {
		tb.Fatal(buildOnce.err)
	}
	return buildOnce.path
}

// serveProcess starts the headless binary on dataDir and waits until
// /healthz answers; it returns the client and how long that took.
func serveProcess(tb testing.TB, dataDir, config string) (*client.Client, *exec.Cmd, time.Duration) {
	bin := headlessBinary(tb)
	os.Remove(filepath.Join(dataDir, datadir.DiscoveryFile))
	start := time.Now()
	cmd := exec.Command(bin, "serve", "--data-dir", dataDir, "--config", config, "--listen", "127.0.0.1:0")
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var c *client.Client
	if !testkit.UntilEvery(30*time.Second, time.Millisecond, func() bool {
		h, err := client.Discover(dataDir)
		if err != nil {
			return false
		}
		c = client.ForHub(h, client.Options{ClientID: "bench"})
		return c.Healthz(context.Background()) == nil
	}) {
		tb.Fatal("hub not ready after 30s")
	}
	return c, cmd, time.Since(start)
}

func rssMiB(tb testing.TB, pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return float64(kb) / 1024
		}
	}
	tb.Fatal("no VmRSS")
	return 0
}

// BenchmarkRSS: resident memory of the headless hub, idle after start and
// after streaming 200k chunks through one turn. Target idle < 30 MiB.
func BenchmarkRSS(b *testing.B) {
	for i := 0; i < b.N; i++ {
		dir := b.TempDir()
		c, cmd, _ := serveProcess(b, filepath.Join(dir, "data"), benchConfig(b, dir))
		time.Sleep(500 * time.Millisecond)
		idle := rssMiB(b, cmd.Process.Pid)
		floodTurn(b, c, newThread(b, c, dir).ID, 200000)
		b.ReportMetric(idle, "idle-MiB")
		b.ReportMetric(rssMiB(b, cmd.Process.Pid), "loaded-MiB")
	}
}

// BenchmarkLargeDatabase: a database of 1M events over 10k threads
// (100k / 1k without SWITCHBOARD_BENCH_LARGE). Reports the time from exec
// to a ready API (target < 300 ms), and the p50 of a thread list page and
// of a history page with events (target < 20 ms each), over HTTP.
func BenchmarkLargeDatabase(b *testing.B) {
	threads, events := 1000, 100000
	if large() {
		threads, events = 10000, 1000000
	}
	dir := b.TempDir()
	dataDir := filepath.Join(dir, "data")
	if err := datadir.Ensure(dataDir); err != nil {
		b.Fatal(err)
	}
	historyThread := fillDatabase(b, filepath.Join(dataDir, datadir.DatabaseFile), dir, threads, events)
	b.ResetTimer()
	var ready []time.Duration
	var c *client.Client
	for i := 0; i < b.N; i++ {
		var cmd *exec.Cmd
		var r time.Duration
		c, cmd, r = serveProcess(b, dataDir, benchConfig(b, dir))
		ready = append(ready, r)
		if i < b.N-1 {
			cmd.Process.Signal(os.Interrupt)
			cmd.Wait()
		}
	}
	b.StopTimer()
	median := func(d []time.Duration) float64 {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return float64(d[len(d)/2].Microseconds()) / 1000
	}
	timeIt := func(call func(context.Context) error) float64 {
		var d []time.Duration
		for i := 0; i < 50; i++ {
			start := time.Now()
			if err := call(context.Background()); err != nil {
				b.Fatal(err)
			}
			d = append(d, time.Since(start))
		}
		return median(d)
	}
	b.ReportMetric(median(ready), "ready-ms")
	b.ReportMetric(timeIt(func(ctx context.Context) error { _, err := c.Threads(ctx, 50, ""); return err }), "list-ms")
	b.ReportMetric(timeIt(func(ctx context.Context) error { _, err := c.History(ctx, historyThread, true); return err }), "history-ms")
	benchSearch(b, c, filepath.Join(dataDir, datadir.DatabaseFile))
}

// benchSearch reports, on the database BenchmarkLargeDatabase built, the
// p50 and p99 of a first page (20 hits) of GET /v1/search over HTTP for a
// one-word query and a phrase (target p50 < 30 ms), and the index's
// share of the database file (dbstat).
func benchSearch(b *testing.B, c *client.Client, dbPath string) {
	pct := func(d []time.Duration, p float64) float64 {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return float64(d[int(float64(len(d)-1)*p)].Microseconds()) / 1000
	}
	for _, q := range []struct {
		name string
		q    hub.SearchQuery
		runs int
	}{
		{"word", hub.SearchQuery{Q: benchWord(40)}, 200},
		{"phrase", hub.SearchQuery{Q: `"` + benchWord(2) + " " + benchWord(3) + `"`}, 200},
		// The worst case: a common word whose every match the filter
		// rejects, so the whole doclist is walked for an empty page.
		{"filtered", hub.SearchQuery{Q: benchWord(0), Agent: "none"}, 10},
	} {
		var d []time.Duration
		for i := 0; i < q.runs; i++ {
			start := time.Now()
			page, err := c.Search(context.Background(), q.q)
			if err != nil {
				b.Fatal(err)
			}
			if (len(page.Hits) == 0) != (q.name == "filtered") || page.Indexing {
				b.Fatalf("%s %+v: %d hits, indexing %v", q.name, q.q, len(page.Hits), page.Indexing)
			}
			d = append(d, time.Since(start))
		}
		b.ReportMetric(pct(d, 0.5), q.name+"-p50-ms")
		b.ReportMetric(pct(d, 0.99), q.name+"-p99-ms")
	}
	// Another client, with no thread, searching the commonest word: the
	// owner token in the index makes it an empty intersection, not a walk.
	other := client.ForHub(c.Hub(), client.Options{ClientID: "other"})
	var d []time.Duration
	for i := 0; i < 50; i++ {
		start := time.Now()
		page, err := other.Search(context.Background(), hub.SearchQuery{Q: benchWord(0)})
		if err != nil || len(page.Hits) != 0 {
			b.Fatalf("another client: %+v %v", page, err)
		}
		d = append(d, time.Since(start))
	}
	b.ReportMetric(pct(d, 0.5), "otherclient-p50-ms")
	db, err := sql.Open("sqlite", "file:"+dbPath+"?mode=ro")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var share float64
	if err := db.QueryRow(`SELECT 100.0 * SUM(CASE WHEN name LIKE 'search%' THEN pgsize ELSE 0 END) / SUM(pgsize) FROM dbstat`).Scan(&share); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(share, "index-%")
}

// benchWord is the rank'th word (0: the most common) of the benchmark
// database's made-up vocabulary.
func benchWord(rank int) string {
	syl := []string{"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "pe", "do", "gu", "ha", "ji", "ze", "fo", "bu"}
	w := "w"
	for n := rank + 16; n > 0; n /= 16 {
		w += syl[n%16]
	}
	return w
}

// benchText is about n bytes of words drawn from the vocabulary with a
// Zipf distribution (a few common words, a long tail of rare ones, as in
// prose), ending with a space.
func benchText(z *rand.Zipf, n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(benchWord(int(z.Uint64())))
		b.WriteByte(' ')
	}
	return b.String()
}

// fillDatabase writes threads threads, each with one completed turn, and
// events events spread over them (messages of words and tool calls, see
// below), indexed for search as the hub indexes them; it returns one
// thread's id.
func fillDatabase(tb testing.TB, path, cwd string, threads, events int) string {
	db, err := store.Open(path, store.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	now := time.Now().UTC()
	ids := make([]string, threads)
	w := &hub.Write{}
	for i := range ids {
		ids[i] = fmt.Sprintf("th_bench%06d", i)
		at := now.Add(time.Duration(i) * time.Millisecond)
		w.Threads = append(w.Threads, hub.Thread{ID: ids[i], Agent: "fake", Cwd: cwd, Title: "bench", ClientID: "bench",
			Status: hub.ThreadIdle, CreatedAt: at, UpdatedAt: at})
		w.Turns = append(w.Turns, hub.Turn{ID: "tu_" + ids[i], ThreadID: ids[i], Status: hub.TurnCompleted, Input: "flood",
			StartedAt: at, EndedAt: &at})
		if len(w.Threads) == 500 {
			if err := db.Commit(ctx, w); err != nil {
				tb.Fatal(err)
			}
			w = &hub.Write{}
		}
	}
	if err := db.Commit(ctx, w); err != nil {
		tb.Fatal(err)
	}
	// Each thread's events: nine message chunks of about 64 bytes of
	// words, then a tool call (title, command, path), and again.
	z := rand.NewZipf(rand.New(rand.NewSource(1)), 1.1, 4, 4095)
	errs := make(chan error, 1)
	for i := 0; i < events; i += 1000 {
		w := &hub.Write{}
		for j := i; j < i+1000 && j < events; j++ {
			th := ids[j%threads]
			ev := hub.Event{Type: hub.EventMessageDelta, ThreadID: th, TurnID: "tu_" + th, ClientID: "bench", At: now}
			if k := j / threads; k%10 == 9 {
				word := benchWord(int(z.Uint64()))
				ev.Type = hub.EventToolCall
				ev.Payload = json.RawMessage(fmt.Sprintf(`{"toolCall":{"toolCallId":"c%d","title":"Read %s.go","rawInput":{"command":"grep -rn %s ."},"locations":[{"path":"/src/app/%s.go"}]}}`,
					k, word, word, word))
			} else {
				q, _ := json.Marshal(benchText(z, 60))
				ev.Payload = json.RawMessage(`{"text":` + string(q) + `}`)
			}
			w.Events = append(w.Events, ev)
		}
		db.CommitAsync(w, func(_ *hub.Write, err error) {
			if err != nil {
				select {
				case errs <- err:
				default:
				}
			}
		})
	}
	if err := db.Commit(ctx, &hub.Write{}); err != nil {
		tb.Fatal(err)
	}
	select {
	case err := <-errs:
		tb.Fatal(err)
	default:
	}
	return ids[threads/2]
}
