//go:build linux

package systest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
)

// TestE2EUsageHostileCosts (issue 28): an agent reporting costs near
// MaxFloat64 (whose naive sum is +Inf), absurd token counts and a negative
// cost through the real `switchboard serve`: the turn, the next turn and
// GET /v1/usage answer with finite numbers clamped to the documented caps
// (1e6 a report, 1e9 tokens), and still do after a restart.
func TestE2EUsageHostileCosts(t *testing.T) {
	bins := buildE2E(t)
	h := newHub(t, bins, hubConfig{
		"budgets": map[string]any{"currency": "USD", "monthly": 1e12},
		"agents":  map[string]agentConf{"fake": fakeAgentConf(t)},
	})
	th := h.newThread("fake", t.TempDir())
	run := func(input string) apiTurn {
		t.Helper()
		tu := h.startTurn(th.ID, input)
		return h.waitTurn(th.ID, tu.ID, 30*time.Second)
	}
	if tu := run("usage-hostile"); tu.Status != "completed" || tu.Output != "usage-hostile sent" {
		t.Fatalf("hostile turn %+v", tu)
	}
	check := func(when string) {
		t.Helper()
		if tu := run("echo still serving"); tu.Status != "completed" {
			t.Fatalf("%s: the next turn %+v", when, tu)
		}
		for _, by := range []string{"thread", "day", "agent"} {
			var u apiUsage
			h.call("GET", "/v1/usage?by="+by, nil, 200, &u)
			if len(u.Buckets) != 1 {
				t.Fatalf("%s: by=%s %+v", when, by, u)
			}
			b := u.Buckets[0]
			if c := b.Cost["USD"]; math.IsInf(c, 0) || math.IsNaN(c) || c != 1e6 {
				t.Errorf("%s: by=%s cost %v, want the cap 1e6", when, by, c)
			}
			if b.InputTokens != 1e9 || b.OutputTokens != 1e9 {
				t.Errorf("%s: by=%s tokens %d/%d, want the cap 1e9", when, by, b.InputTokens, b.OutputTokens)
			}
		}
	}
	check("live")
	h.stop()
	h.start()
	check("after a restart")
}

// TestE2ESearchHostileDoesNotStallReads (issue 28): four ~300-byte
// prefix queries sent at once through HTTP are refused 400
// INVALID_ARGUMENT SEARCH_TOO_BROAD, and a history read sent beside them
// answers 200: searches never hold the read pool.
func TestE2ESearchHostileDoesNotStallReads(t *testing.T) {
	bins := buildE2E(t)
	h := newHub(t, bins, hubConfig{"agents": map[string]agentConf{"fake": fakeAgentConf(t)}})
	th := h.newThread("fake", t.TempDir())
	if tu := h.waitTurn(th.ID, h.startTurn(th.ID, "echo alpha beta gamma").ID, 30*time.Second); tu.Status != "completed" {
		t.Fatalf("turn %+v", tu)
	}
	get := func(path string) (int, []byte, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		resp, err := h.client.Do(h.request(ctx, "GET", path, nil))
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, b, err
	}
	type answer struct {
		what   string
		status int
		body   []byte
		err    error
	}
	const hostile = 4
	answers := make(chan answer, hostile+1)
	for i := range hostile {
		q := strings.Repeat(string(rune('a'+i))+"* ", 100) // ~300 bytes of one-letter prefixes
		go func() {
			st, b, err := get("/v1/search?scope=all&q=" + url.QueryEscape(q))
			answers <- answer{"search", st, b, err}
		}()
	}
	go func() {
		st, b, err := get("/v1/threads/" + th.ID + "/history?includeEvents=true")
		answers <- answer{"history", st, b, err}
	}()
	for range hostile + 1 {
		a := <-answers
		if a.err != nil {
			t.Fatalf("%s: %v", a.what, a.err)
		}
		var e struct {
			Error struct {
				Code    string
				Details map[string]any
			}
		}
		json.Unmarshal(a.body, &e)
		switch {
		case a.what == "history" && a.status != 200:
			t.Errorf("history beside hostile searches: %d %s", a.status, a.body)
		case a.what == "search" && (a.status != 400 || e.Error.Code != "INVALID_ARGUMENT" || e.Error.Details["reason"] != "SEARCH_TOO_BROAD"):
			t.Errorf("hostile search: %d %s", a.status, a.body)
		}
	}
	if st, b, err := get("/v1/search?q=" + url.QueryEscape("gam*")); err != nil || st != 200 {
		t.Errorf("a sane prefix search: %d %s %v", st, b, err)
	}
}

// vmKB is a /proc/<pid>/status field in KiB.
func vmKB(t *testing.T, pid int, field string) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// TestE2EStalledAgentReadsBounded (issue 28: 24 reads of a 60 MB file by
// an agent that stopped reading its stdin took the hub from 0.9 to
// 3.3 GB): a whole read past the 4 MiB cap is a clear error naming
// line and limit; 48 reads of 3.5 MB windows from an agent that reads
// nothing grow the hub's peak RSS by far less than the 168 MB they would
// queue (the hub serves 4 at a time and queues at most 16 MiB); once the
// agent reads again, all 48 are answered.
func TestE2EStalledAgentReadsBounded(t *testing.T) {
	bins := buildE2E(t)
	h := newHub(t, bins, hubConfig{"agents": map[string]agentConf{"fake": fakeAgentConf(t)}})
	cwd := t.TempDir()
	path := filepath.Join(cwd, "big.txt")
	const lineLen, window, n = 100, 35000, 48
	if err := os.WriteFile(path, []byte(strings.Repeat(strings.Repeat("x", lineLen-1)+"\n", 2*window)), 0o600); err != nil {
		t.Fatal(err)
	}
	th := h.newThread("fake", cwd)
	run := func(input string) apiTurn {
		t.Helper()
		return h.waitTurn(th.ID, h.startTurn(th.ID, input).ID, 60*time.Second)
	}
	if tu := run("fs-read " + path); !strings.Contains(tu.Output, "line and limit") {
		t.Fatalf("a whole read of a 7 MB file: %q", tu.Output)
	}
	before := vmKB(t, h.pid(), "VmHWM")
	tu := h.startTurn(th.ID, "fs-stall "+strconv.Itoa(n)+" "+strconv.Itoa(window)+" "+path)
	// Measure while the agent reads nothing: what the hub would queue
	// is read and encoded within a second or two.
	peak := before
	testkit.Never(t, 4*time.Second, "the hub's RSS grew by 100 MiB while the agent read nothing", func() bool {
		peak = max(peak, vmKB(t, h.pid(), "VmRSS"))
		return (peak-before)>>10 > 100
	})
	if err := os.WriteFile(path+".go", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	done := h.waitTurn(th.ID, tu.ID, 120*time.Second)
	if done.Output != "fs-stall ok="+strconv.Itoa(n) {
		t.Fatalf("stalled reads: %q", done.Output)
	}
	hwm := vmKB(t, h.pid(), "VmHWM")
	t.Logf("hub RSS peak before %d KiB, while stalled %d KiB, peak over the test %d KiB", before, peak, hwm)
	if grow := (hwm - before) >> 10; grow > 100 {
		t.Errorf("the hub's peak RSS grew by %d MiB serving an agent that stopped reading, want under 100 MiB", grow)
	}
}
