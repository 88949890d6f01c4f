//go:build unix

package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
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
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/store"
)

// System benchmarks: the hub as users run it (store, engine, HTTP API,
// SSE), with the fake agent as a real subprocess. `make bench` runs them
// with SWITCHBOARD_BENCH_LARGE=1 (1M events, 10k threads); results and
// targets are in docs/PERFORMANCE.md.

func large() bool { return os.Getenv("SWITCHBOARD_BENCH_LARGE") != "" }

// benchConfig writes a config whose agent "fake" is this test binary.
func benchConfig(tb testing.TB, dir string) string {
	path, args, env := acptest.FakeAgentArgv(tb)
	var envYAML []string
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		envYAML = append(envYAML, fmt.Sprintf("%s: %q", k, v))
	}
	cfg := fmt.Sprintf("limits:\n  maxAgentProcesses: 32\nagents:\n  fake:\n    name: Fake\n    command: %q\n    args: [%q]\n    env: {%s}\n",
		path, args[0], strings.Join(envYAML, ", "))
	p := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(p, []byte(cfg), 0o600); err != nil {
		tb.Fatal(err)
	}
	return p
}

// apiClient speaks to a hub over HTTP like any client.
type apiClient struct {
	url, token string
}

func (c apiClient) req(method, path string, body any) *http.Request {
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, c.url+path, r)
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("X-Client-ID", "bench")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req
}

func (c apiClient) json(tb testing.TB, method, path string, body, out any) {
	tb.Helper()
	resp, err := http.DefaultClient.Do(c.req(method, path, body))
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		b, _ := io.ReadAll(resp.Body)
		tb.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			tb.Fatal(err)
		}
	}
}

func (c apiClient) thread(tb testing.TB, cwd string) hub.Thread {
	var r struct{ Thread hub.Thread }
	c.json(tb, "POST", "/v1/threads", map[string]string{"agent": "fake", "cwd": cwd}, &r)
	return r.Thread
}

// sseEvent is the part of an SSE event the benchmarks read.
type sseEvent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// readSSE calls fn for each event of the stream until fn returns false.
// The data is decoded only for the types in decode: a client counting
// events reads the event: line alone.
func readSSE(tb testing.TB, body io.Reader, fn func(sseEvent) bool, decode ...string) {
	br := bufio.NewReaderSize(body, 1<<20)
	var typ string
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			tb.Fatalf("stream ended: %v", err)
		}
		if t, ok := bytes.CutPrefix(line, []byte("event: ")); ok {
			typ = string(bytes.TrimSpace(t))
			continue
		}
		data, ok := bytes.CutPrefix(line, []byte("data: "))
		if !ok {
			continue
		}
		ev := sseEvent{Type: typ}
		if typ == hub.EventError {
			tb.Fatalf("error event: %s", data)
		}
		for _, d := range decode {
			if d == typ {
				if err := json.Unmarshal(data, &ev); err != nil {
					tb.Fatal(err)
				}
			}
		}
		if !fn(ev) {
			return
		}
	}
}

// startInProcess runs the hub in this process (startHub, as serve does).
func startInProcess(tb testing.TB) (apiClient, string) {
	dir := tb.TempDir()
	h, err := startHub(context.Background(), &env{stdio: Stdio{Err: io.Discard}},
		Options{DataDir: filepath.Join(dir, "data"), Config: benchConfig(tb, dir), Listen: "127.0.0.1:0"})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { h.stop(context.Background()) })
	return apiClient{url: h.url, token: h.token}, dir
}

// BenchmarkSSEFlood: 64-byte chunks from the agent through one turn —
// parsed, stored durably, streamed — to an SSE client (POST turns with
// Accept: text/event-stream). Target ≥ 50k chunks/s.
func BenchmarkSSEFlood(b *testing.B) {
	c, cwd := startInProcess(b)
	th := c.thread(b, cwd)
	const chunks = 200000
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		req := c.req("POST", "/v1/threads/"+th.ID+"/turns", map[string]string{"input": fmt.Sprintf("flood %d 64", chunks)})
		req.Header.Set("Accept", "text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		readSSE(b, resp.Body, func(ev sseEvent) bool {
			if ev.Type == hub.EventMessageDelta {
				n++
			}
			return ev.Type != hub.EventTurnCompleted
		})
		resp.Body.Close()
		if n != chunks {
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
		ids[i] = c.thread(b, cwd).ID
	}
	var lat []time.Duration
	for i := 0; i < b.N; i++ {
		resp, err := http.DefaultClient.Do(c.req("GET", "/v1/events?after=-1", nil))
		if err != nil {
			b.Fatal(err)
		}
		for _, id := range ids {
			c.json(b, "POST", "/v1/threads/"+id+"/turns", map[string]string{"input": fmt.Sprintf("ticks %d %d", rate*seconds, rate)}, nil)
		}
		done := 0
		readSSE(b, resp.Body, func(ev sseEvent) bool {
			switch ev.Type {
			case hub.EventMessageDelta:
				sent, err := strconv.ParseInt(strings.TrimSpace(ev.Text), 10, 64)
				if err != nil {
					b.Fatalf("tick %q", ev.Text)
				}
				lat = append(lat, time.Since(time.Unix(0, sent)))
			case hub.EventTurnCompleted:
				done++
			}
			return done < threads
		}, hub.EventMessageDelta)
		resp.Body.Close()
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
func serveProcess(tb testing.TB, dataDir, config string) (apiClient, *exec.Cmd, time.Duration) {
	bin := headlessBinary(tb)
	os.Remove(filepath.Join(dataDir, discoveryFile))
	start := time.Now()
	cmd := exec.Command(bin, "serve", "--data-dir", dataDir, "--config", config, "--listen", "127.0.0.1:0")
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for {
		if d, err := ReadDiscovery(dataDir); err == nil {
			if resp, err := http.Get(d.URL + "/healthz"); err == nil {
				resp.Body.Close()
				if resp.StatusCode == 200 {
					ready := time.Since(start)
					tok, _ := os.ReadFile(filepath.Join(dataDir, tokenFile))
					return apiClient{url: d.URL, token: strings.TrimSpace(string(tok))}, cmd, ready
				}
			}
		}
		if time.Since(start) > 30*time.Second {
			tb.Fatal("hub not ready after 30s")
		}
		time.Sleep(time.Millisecond)
	}
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
		th := c.thread(b, dir)
		req := c.req("POST", "/v1/threads/"+th.ID+"/turns", map[string]string{"input": "flood 200000 64"})
		req.Header.Set("Accept", "text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		readSSE(b, resp.Body, func(ev sseEvent) bool { return ev.Type != hub.EventTurnCompleted })
		resp.Body.Close()
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
	if err := ensureDataDir(dataDir); err != nil {
		b.Fatal(err)
	}
	historyThread := fillDatabase(b, filepath.Join(dataDir, databaseFile), dir, threads, events)
	b.ResetTimer()
	var ready []time.Duration
	var c apiClient
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
	timeIt := func(path string) float64 {
		var d []time.Duration
		for i := 0; i < 50; i++ {
			start := time.Now()
			c.json(b, "GET", path, nil, nil)
			d = append(d, time.Since(start))
		}
		return median(d)
	}
	b.ReportMetric(median(ready), "ready-ms")
	b.ReportMetric(timeIt("/v1/threads?limit=50"), "list-ms")
	b.ReportMetric(timeIt("/v1/threads/"+historyThread+"/history?includeEvents=true"), "history-ms")
}

// fillDatabase writes threads threads, each with one completed turn, and
// events message_delta events spread over them; it returns one thread's id.
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
	payload := json.RawMessage(`{"text":"` + strings.Repeat("x", 64) + `"}`)
	errs := make(chan error, 1)
	for i := 0; i < events; i += 1000 {
		w := &hub.Write{}
		for j := i; j < i+1000 && j < events; j++ {
			th := ids[j%threads]
			w.Events = append(w.Events, hub.Event{Type: hub.EventMessageDelta, ThreadID: th, TurnID: "tu_" + th,
				ClientID: "bench", At: now, Payload: payload})
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
