//go:build linux

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest"
	"github.com/switchboard-hub/switchboard/app/hubbench/procfig"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

// phase is one workload: threads turns at once, each of chunks chunks at
// rate per second (0: a flood, as fast as the agent writes).
type phase struct {
	name                  string
	threads, chunks, rate int
}

func phases(o options) ([]phase, error) {
	secs := int(o.duration / time.Second)
	all := map[string]phase{
		"latency": {"latency", o.threads, 1000 * secs, 1000},
		"slow":    {"slow", o.threads, 100 * secs, 100},
		"flood":   {"flood", 1, 20000, 0},
		"big":     {"big", 1, 200000, 0},
	}
	var ps []phase
	for _, n := range strings.Split(o.phases, ",") {
		p, ok := all[strings.TrimSpace(n)]
		if !ok {
			return nil, fmt.Errorf("-phases: unknown phase %q (latency, slow, flood, big)", n)
		}
		ps = append(ps, p)
	}
	return ps, nil
}

func (p phase) input() string {
	if p.rate == 0 {
		return fmt.Sprintf("flood %d %d", p.chunks, acptest.TickSize) // chunks of a tick's size: deltaText
	}
	return fmt.Sprintf("ticks %d %d", p.chunks, p.rate)
}

// result is one phase of one run.
type result struct {
	Phase       string  `json:"phase"`
	Chunks      int     `json:"chunks"`
	Seconds     float64 `json:"seconds"`
	Lat         lat     `json:"latency"`       // turn streams (ticks only)
	Global      lat     `json:"globalLatency"` // the global stream (ticks only)
	CPUPerChunk float64 `json:"cpuPerChunkUs"`
	RSS         float64 `json:"rssMiB"` // 5 s after the phase
	HWM         float64 `json:"hwmMiB"` // during the phase
	Load        float64 `json:"load"`   // mean of the 1-min load average, sampled each second
	Completed   int     `json:"turnCompletedBytes"`
}

// lat is a latency distribution in milliseconds.
type lat struct {
	P50, P99, P999, Max float64
}

func distribution(d []time.Duration) lat {
	if len(d) == 0 {
		return lat{}
	}
	slices.Sort(d)
	ms := func(q float64) float64 {
		i := int(q * float64(len(d)))
		if i >= len(d) {
			i = len(d) - 1
		}
		return float64(d[i].Microseconds()) / 1000
	}
	return lat{ms(0.50), ms(0.99), ms(0.999), float64(d[len(d)-1].Microseconds()) / 1000}
}

// collector gathers latencies from several goroutines.
type collector struct {
	mu sync.Mutex
	d  []time.Duration
}

func (c *collector) add(d []time.Duration) {
	c.mu.Lock()
	c.d = append(c.d, d...)
	c.mu.Unlock()
}

// deltaText is a message_delta's text: whole chunks of acptest.TickSize
// bytes (the phases' ticks and floods), one or several (the hub joins
// chunks that wait for the same commit into one delta).
func deltaText(data string) (string, error) {
	var p struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal([]byte(data), &p); err != nil {
		return "", fmt.Errorf("message_delta: %w", err)
	}
	if len(p.Text)%acptest.TickSize != 0 {
		return "", fmt.Errorf("message_delta of %d bytes: not whole %d-byte chunks", len(p.Text), acptest.TickSize)
	}
	return p.Text, nil
}

// sentAt appends to d the latency of each tick in text, read at now.
func sentAt(d []time.Duration, text string, now time.Time) []time.Duration {
	ts, _ := acptest.TickTimes(text)
	for _, t := range ts {
		d = append(d, now.Sub(t))
	}
	return d
}

// globalReader reads the global stream, as the window and the tray do,
// recording the latency of ticks while a phase collects them.
type globalReader struct {
	s   *client.Stream
	mu  sync.Mutex
	col *collector
}

func (g *globalReader) read() {
	var local []time.Duration
	for {
		f, err := g.s.NextFrame()
		if err != nil {
			return
		}
		if f.Event != hub.EventMessageDelta {
			continue
		}
		now := time.Now()
		g.mu.Lock()
		col := g.col
		g.mu.Unlock()
		if col == nil {
			continue
		}
		if text, err := deltaText(f.Data); err == nil {
			local = sentAt(local[:0], text, now)
			col.add(local)
		}
	}
}

func (g *globalReader) collect(c *collector) {
	g.mu.Lock()
	g.col = c
	g.mu.Unlock()
}

func run(o options) error {
	ps, err := phases(o)
	if err != nil {
		return err
	}
	if o.profile != "" {
		if err := os.MkdirAll(o.profile, 0o755); err != nil {
			return err
		}
	}
	fmt.Printf("# hubbench %s: agents=%s redaction=%v search=%v runs=%d duration=%s (%s)\n",
		o.label, o.agents, o.redaction, o.search, o.runs, o.duration, time.Now().UTC().Format(time.RFC3339))
	var all [][]result
	for r := 0; r < o.runs; r++ {
		res, err := runOnce(o, ps, r)
		if err != nil {
			return fmt.Errorf("run %d: %w", r+1, err)
		}
		for _, x := range res {
			fmt.Printf("run %d %-8s %s\n", r+1, x.Phase, x.line())
		}
		all = append(all, res)
	}
	fmt.Printf("# median of %d runs (%s)\n", o.runs, o.label)
	fmt.Println("phase    " + header)
	for i, p := range ps {
		var col []result
		for _, res := range all {
			col = append(col, res[i])
		}
		fmt.Printf("%-8s %s\n", p.name, median(col).line())
	}
	return nil
}

const header = "chunks  p50/p99/p99.9/max ms (turn streams)  global p99/max ms  µs/chunk  RSS MiB  HWM MiB  load  chunks/s  turn_completed B"

func (x result) line() string {
	ls := fmt.Sprintf("%5.2f/%6.2f/%6.2f/%7.2f  %6.2f/%7.2f", x.Lat.P50, x.Lat.P99, x.Lat.P999, x.Lat.Max, x.Global.P99, x.Global.Max)
	if x.Lat == (lat{}) {
		ls = fmt.Sprintf("%-47s", "- (a flood: no send times)")
	}
	return fmt.Sprintf("%6d  %s  %6.1f  %6.1f  %6.1f  %4.2f  %7.0f  %d",
		x.Chunks, ls, x.CPUPerChunk, x.RSS, x.HWM, x.Load, float64(x.Chunks)/x.Seconds, x.Completed)
}

// median takes each figure's median over the runs independently.
func median(rs []result) result {
	m := func(f func(result) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = f(r)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	return result{
		Phase: rs[0].Phase, Chunks: rs[0].Chunks,
		Seconds: m(func(r result) float64 { return r.Seconds }),
		Lat: lat{m(func(r result) float64 { return r.Lat.P50 }), m(func(r result) float64 { return r.Lat.P99 }),
			m(func(r result) float64 { return r.Lat.P999 }), m(func(r result) float64 { return r.Lat.Max })},
		Global:      lat{P99: m(func(r result) float64 { return r.Global.P99 }), Max: m(func(r result) float64 { return r.Global.Max })},
		CPUPerChunk: m(func(r result) float64 { return r.CPUPerChunk }),
		RSS:         m(func(r result) float64 { return r.RSS }),
		HWM:         m(func(r result) float64 { return r.HWM }),
		Load:        m(func(r result) float64 { return r.Load }),
		Completed:   rs[0].Completed,
	}
}

func runOnce(o options, ps []phase, run int) ([]result, error) {
	h, err := startHub(o)
	if err != nil {
		return nil, err
	}
	defer h.stop()
	ctx := context.Background()
	cwd := filepath.Join(h.dir, "work")
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		return nil, err
	}
	n := 0
	for _, p := range ps {
		n = max(n, p.threads)
	}
	ids := make([]string, n)
	for i := range ids {
		th, err := h.c.CreateThread(ctx, hub.CreateThreadRequest{Agent: "fake", Cwd: cwd})
		if err != nil {
			return nil, err
		}
		ids[i] = th.ID
	}
	gs, err := h.c.Events(ctx, -1, client.StreamOptions{Reconnect: true})
	if err != nil {
		return nil, err
	}
	defer gs.Close()
	g := &globalReader{s: gs}
	go g.read()
	var out []result
	for _, p := range ps {
		r, err := h.runPhase(o, p, ids, g, run)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.name, err)
		}
		out = append(out, r)
	}
	return out, nil
}

func (h *hubProc) runPhase(o options, p phase, ids []string, g *globalReader, run int) (result, error) {
	pid := h.cmd.Process.Pid
	res := result{Phase: p.name, Chunks: p.threads * p.chunks}
	if err := resetPeak(pid); err != nil {
		return res, err
	}
	turns, global := &collector{}, &collector{}
	if p.rate > 0 {
		g.collect(global)
	}
	load := procfig.LoadMeter()
	profDone := make(chan error, 1)
	if h.pprof != "" {
		secs := max(1, int(o.duration/time.Second)-2)
		if p.rate == 0 {
			secs = map[int]int{20000: 1, 200000: 3}[p.chunks]
		}
		go func() {
			profDone <- fetch(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", h.pprof, secs),
				filepath.Join(o.profile, fmt.Sprintf("%s-run%d-%s.cpu.pprof", safe(o.label), run+1, p.name)))
		}()
		// What is live halfway through (a GC first: the figures of a
		// profiled run are not the benchmark's).
		time.AfterFunc(time.Duration(secs)*time.Second/2, func() {
			_ = fetch(fmt.Sprintf("http://%s/debug/pprof/heap?gc=1", h.pprof),
				filepath.Join(o.profile, fmt.Sprintf("%s-run%d-%s.midheap.pprof", safe(o.label), run+1, p.name)))
		})
	} else {
		profDone <- nil
	}
	cpu0, err := procfig.CPUTime(pid)
	if err != nil {
		return res, err
	}
	start := time.Now()
	errs := make([]error, p.threads)
	counts := make([]int, p.threads)
	sizes := make([]int, p.threads)
	var wg sync.WaitGroup
	for i := 0; i < p.threads; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			counts[i], sizes[i], errs[i] = h.streamTurn(ids[i], p, turns)
		}()
	}
	wg.Wait()
	res.Seconds = time.Since(start).Seconds()
	cpu1, err := procfig.CPUTime(pid)
	if err != nil {
		return res, err
	}
	g.collect(nil)
	res.Load = load()
	if err := errors.Join(errs...); err != nil {
		return res, err
	}
	for i, c := range counts {
		if c != p.chunks {
			return res, fmt.Errorf("thread %d: %d of %d chunks", i, c, p.chunks)
		}
		res.Completed = max(res.Completed, sizes[i])
	}
	res.CPUPerChunk = float64((cpu1 - cpu0).Microseconds()) / float64(res.Chunks)
	res.Lat, res.Global = distribution(turns.d), distribution(global.d)
	if err := <-profDone; err != nil {
		return res, err
	}
	_, hwm, err := memory(pid)
	if err != nil {
		return res, err
	}
	time.Sleep(5 * time.Second)
	rss, _, err := memory(pid)
	if err != nil {
		return res, err
	}
	res.RSS, res.HWM = rss, hwm
	if h.pprof != "" {
		if err := fetch(fmt.Sprintf("http://%s/debug/pprof/heap", h.pprof),
			filepath.Join(o.profile, fmt.Sprintf("%s-run%d-%s.heap.pprof", safe(o.label), run+1, p.name))); err != nil {
			return res, err
		}
	}
	return res, nil
}

// streamTurn runs one turn on its own SSE stream (POST turns with Accept:
// text/event-stream) and returns the chunks its message_delta events held
// (a delta may hold several: deltaText) and the size of turn_completed's
// data.
func (h *hubProc) streamTurn(threadID string, p phase, col *collector) (n, completed int, err error) {
	// Reconnect: a reader that falls behind a flood (on a loaded
	// machine) gets a resync and resumes from its last id, as the editor
	// bridge does; nothing is lost or counted twice.
	s, err := h.c.StreamTurn(context.Background(), threadID, hub.TurnInput{Input: p.input()}, client.StreamOptions{Reconnect: true})
	if err != nil {
		return 0, 0, err
	}
	defer s.Close()
	var d []time.Duration
	if p.rate > 0 {
		d = make([]time.Duration, 0, p.chunks)
	}
	for {
		f, err := s.NextFrame()
		if err == io.EOF {
			break
		}
		if err != nil {
			return n, completed, err
		}
		switch f.Event {
		case hub.EventMessageDelta:
			now := time.Now()
			text, err := deltaText(f.Data)
			if err != nil {
				return n, completed, err
			}
			n += len(text) / acptest.TickSize
			if p.rate > 0 {
				d = sentAt(d, text, now)
			}
		case hub.EventTurnCompleted:
			completed = len(f.Data)
		case hub.EventError:
			return n, completed, fmt.Errorf("error event: %s", f.Data)
		}
	}
	col.add(d)
	return n, completed, nil
}

func fetch(url, file string) error {
	resp, err := http.Get(url)
	if err != nil {
		return fmt.Errorf("profile: %w (is the binary built with -tags headless,pprof?)", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("profile: %s", resp.Status)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func safe(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' {
			return '_'
		}
		return r
	}, s)
}
