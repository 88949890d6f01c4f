//go:build unix

package app

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// BenchmarkListWorktreeThreads (issue 31): GET /v1/threads over HTTP with
// 50 worktree threads, each carrying its standing (ahead/behind, dirty,
// merged) from the hub's cache, not from a git process per thread per
// read. Reports the p50 and p99 of a 50-thread page (target < 20 ms).
func BenchmarkListWorktreeThreads(b *testing.B) {
	c, dir := startInProcess(b)
	repo := filepath.Join(dir, "repo")
	for _, args := range [][]string{{"init", "-q", "-b", "main", repo}, {"-C", repo, "commit", "-q", "--allow-empty", "-m", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	ctx := context.Background()
	for i := 0; i < 50; i++ {
		if _, err := c.CreateThread(ctx, hub.CreateThreadRequest{Agent: "fake", Cwd: repo, Worktree: &hub.WorktreeRequest{On: true}}); err != nil {
			b.Fatal(err)
		}
	}
	page, err := c.Threads(ctx, 50, "") // the first read fills the cache
	if err != nil || len(page.Threads) != 50 || page.Threads[0].Worktree == nil || page.Threads[0].Worktree.Dirty == nil {
		b.Fatalf("list: %d threads, %v", len(page.Threads), err)
	}
	b.ResetTimer()
	var d []time.Duration
	for i := 0; i < b.N*50; i++ {
		start := time.Now()
		if _, err := c.Threads(ctx, 50, ""); err != nil {
			b.Fatal(err)
		}
		d = append(d, time.Since(start))
	}
	b.StopTimer()
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(d[len(d)*99/100].Microseconds())/1000, "p99-ms")
}
