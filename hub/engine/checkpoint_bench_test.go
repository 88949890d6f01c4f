//go:build unix

package engine_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// fillFolder writes n files of 100 bytes under dir (100 per folder) and,
// when git, commits them in a new repository.
func fillFolder(b *testing.B, dir string, n int, git bool) {
	b.Helper()
	body := []byte(strings.Repeat("x", 99) + "\n")
	for i := 0; i < n; i++ {
		sub := filepath.Join(dir, fmt.Sprintf("d%04d", i/100))
		if i%100 == 0 {
			if err := os.MkdirAll(sub, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%06d.txt", i)), body, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if !git {
		return
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-qm", "init"}} {
		c := exec.Command("git", args...)
		c.Dir = dir
		c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_NAME=B", "GIT_AUTHOR_EMAIL=b@example.com",
			"GIT_COMMITTER_NAME=B", "GIT_COMMITTER_EMAIL=b@example.com")
		if out, err := c.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// BenchmarkPromptToAgent is the time from StartTurn to the agent's first
// answer (its first message_delta at a subscriber) in a folder of 10,000
// files, with checkpoints (a git repository, one file changed before each
// turn: the checkpoint runs beside the prompt) and without (the same
// files outside git), one turn of each in turn so that the machine's load
// weighs on both alike; 100,000 files too with SWITCHBOARD_BENCH_LARGE=1.
// Reports the p50 and p90 of each and the p50 of the pairs' difference
// (git − plain), in ms: what the checkpoint costs the prompt's path
// (docs/PERFORMANCE.md; target < 5 ms).
func BenchmarkPromptToAgent(b *testing.B) {
	sizes := []int{10000}
	if os.Getenv("SWITCHBOARD_BENCH_LARGE") != "" {
		sizes = append(sizes, 100000)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			h := newHarness(b, nil)
			type side struct {
				dir string
				th  hub.Thread
				sub *hub.Subscription
				lat []time.Duration
			}
			var sides [2]*side // git, plain
			for i, git := range []bool{true, false} {
				dir := filepath.Join(b.TempDir(), "folder")
				if err := os.MkdirAll(dir, 0o755); err != nil {
					b.Fatal(err)
				}
				fillFolder(b, dir, n, git)
				th, err := h.e.CreateThread(context.Background(), alice, hub.CreateThreadRequest{Agent: "fake", Cwd: dir})
				if err != nil {
					b.Fatal(err)
				}
				sides[i] = &side{dir: dir, th: th, sub: h.watch(th)}
				h.run(th, sides[i].sub, "echo warm") // the agent started, the first checkpoint taken
			}
			turn := func(s *side, i int) {
				if err := os.WriteFile(filepath.Join(s.dir, "d0000", "f000000.txt"), []byte(fmt.Sprintf("changed %d\n", i)), 0o644); err != nil {
					b.Fatal(err)
				}
				if _, err := h.e.ListCheckpoints(context.Background(), alice, s.th.ID); err != nil { // the lane settled
					b.Fatal(err)
				}
				start := time.Now()
				if _, err := h.e.StartTurn(context.Background(), alice, s.th.ID, hub.TurnInput{Input: "echo hi"}); err != nil {
					b.Fatal(err)
				}
				until(b, s.sub, hub.EventMessageDelta)
				s.lat = append(s.lat, time.Since(start))
				until(b, s.sub, hub.EventTurnCompleted)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				turn(sides[0], i)
				turn(sides[1], i)
			}
			b.StopTimer()
			diff := make([]time.Duration, b.N)
			for i := range diff {
				diff[i] = sides[0].lat[i] - sides[1].lat[i]
			}
			ms := func(d []time.Duration, q int) float64 {
				d = slices.Clone(d)
				slices.Sort(d)
				return float64(d[len(d)*q/100].Microseconds()) / 1000
			}
			b.ReportMetric(ms(sides[0].lat, 50), "git-p50-ms")
			b.ReportMetric(ms(sides[0].lat, 90), "git-p90-ms")
			b.ReportMetric(ms(sides[1].lat, 50), "plain-p50-ms")
			b.ReportMetric(ms(sides[1].lat, 90), "plain-p90-ms")
			b.ReportMetric(ms(diff, 50), "diff-p50-ms")
		})
	}
}
