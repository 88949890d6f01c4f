package gitwork

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkCheckpoint10k is a checkpoint of a repository of 10,000 files
// of 4 KiB, warm cache, one file changed since the last (target < 300 ms;
// docs/PERFORMANCE.md). A checkpoint never uses the repository's
// fsmonitor (spaces run with core.fsmonitor off).
func BenchmarkCheckpoint10k(b *testing.B) {
	benchCheckpoint(b, 10000, 4096)
}

// BenchmarkCheckpoint100k is BenchmarkCheckpoint10k with 100,000 files of
// 100 bytes; it runs only with SWITCHBOARD_BENCH_LARGE=1 (the repository
// takes a while to make).
func BenchmarkCheckpoint100k(b *testing.B) {
	if os.Getenv("SWITCHBOARD_BENCH_LARGE") == "" {
		b.Skip("SWITCHBOARD_BENCH_LARGE=1 runs it")
	}
	benchCheckpoint(b, 100000, 100)
}

// benchCheckpoint checkpoints a repository of n files of size bytes, one
// file changed before each.
func benchCheckpoint(b *testing.B, n, size int) {
	isolate(b)
	dir := filepath.Join(b.TempDir(), "repo")
	sh(b, "", "init", "-q", "-b", "main", dir)
	body := strings.Repeat("x", size-1) + "\n"
	for i := 0; i < n; i++ {
		write(b, dir, fmt.Sprintf("d%04d/f%06d.txt", i/100, i), body)
	}
	sh(b, dir, "add", "-A")
	sh(b, dir, "commit", "-q", "-m", "init")
	r := open(b, dir)
	ctx := context.Background()
	if _, err := Checkpoint(ctx, r, "refs/switchboard/checkpoints/warm/up", "warm"); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		write(b, dir, "d00/f00000.txt", fmt.Sprintf("changed %d\n", i))
		b.StartTimer()
		if _, err := Checkpoint(ctx, r, fmt.Sprintf("refs/switchboard/checkpoints/th/tu%d", i), "cp"); err != nil {
			b.Fatal(err)
		}
	}
}
