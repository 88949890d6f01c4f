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
// files outside git); 100,000 files too with SWITCHBOARD_BENCH_LARGE=1.
// Reports p50 and p90 in ms; the difference between "git" and "plain" is
// what the checkpoint costs the prompt's path (docs/PERFORMANCE.md;
// target < 5 ms).
func BenchmarkPromptToAgent(b *testing.B) {
	sizes := []int{10000}
	if os.Getenv("SWITCHBOARD_BENCH_LARGE") != "" {
		sizes = append(sizes, 100000)
	}
	for _, n := range sizes {
		for _, git := range []bool{true, false} {
			name := fmt.Sprintf("files=%d/plain", n)
			if git {
				name = fmt.Sprintf("files=%d/git", n)
			}
			b.Run(name, func(b *testing.B) {
				h := newHarness(b, nil)
				fillFolder(b, h.cwd, n, git)
				th := h.thread("fake")
				sub := h.watch(th)
				h.run(th, sub, "echo warm") // the agent started, the first checkpoint taken
				lat := make([]time.Duration, 0, b.N)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					if err := os.WriteFile(filepath.Join(h.cwd, "d0000", "f000000.txt"), []byte(fmt.Sprintf("changed %d\n", i)), 0o644); err != nil {
						b.Fatal(err)
					}
					if _, err := h.e.ListCheckpoints(context.Background(), alice, th.ID); err != nil { // the lane settled
						b.Fatal(err)
					}
					b.StartTimer()
					start := time.Now()
					if _, err := h.e.StartTurn(context.Background(), alice, th.ID, hub.TurnInput{Input: "echo hi"}); err != nil {
						b.Fatal(err)
					}
					until(b, sub, hub.EventMessageDelta)
					lat = append(lat, time.Since(start))
					b.StopTimer()
					until(b, sub, hub.EventTurnCompleted)
					b.StartTimer()
				}
				b.StopTimer()
				slices.Sort(lat)
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(lat[len(lat)*9/10].Microseconds())/1000, "p90-ms")
			})
		}
	}
}
