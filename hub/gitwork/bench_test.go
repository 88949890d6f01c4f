package gitwork

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkCheckpoint10k is a checkpoint of a repository of 10,000 files
// of 4 KiB, warm cache, one file changed since the last (target < 300 ms;
// docs/PERFORMANCE.md).
func BenchmarkCheckpoint10k(b *testing.B) {
	isolate(b)
	dir := filepath.Join(b.TempDir(), "repo")
	sh(b, "", "init", "-q", "-b", "main", dir)
	body := strings.Repeat("x", 4095) + "\n"
	for i := 0; i < 10000; i++ {
		write(b, dir, fmt.Sprintf("d%02d/f%05d.txt", i%100, i), body)
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
