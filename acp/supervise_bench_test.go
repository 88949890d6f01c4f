//go:build linux

package acp

import (
	"bufio"
	"context"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkStartProcess measures an agent's start, from StartProcess to
// its first answer (cat echoing a line), directly and behind a
// supervisor, and reports the supervisor's resident memory once it runs
// (Close is not timed).
// SWITCHBOARD_SUPERVISOR names the binary to use as the supervisor (the
// built hub, as in production); by default this test binary is.
// docs/PERFORMANCE.md reports it.
func BenchmarkStartProcess(b *testing.B) {
	sup := &Supervisor{Path: os.Getenv("SWITCHBOARD_SUPERVISOR")}
	if sup.Path == "" {
		exe, err := os.Executable()
		if err != nil {
			b.Fatal(err)
		}
		sup.Path = exe
	}
	for _, bc := range []struct {
		name string
		sup  *Supervisor
	}{{"direct", nil}, {"supervised", sup}} {
		b.Run(bc.name, func(b *testing.B) {
			var rss, n int64
			for b.Loop() {
				p, err := StartProcess(Command{Path: "cat"}, ProcessOptions{Supervisor: bc.sup})
				if err != nil {
					b.Fatal(err)
				}
				io.WriteString(p.Stdin(), "ready\n")
				if line, _ := bufio.NewReader(p.Stdout()).ReadString('\n'); line != "ready\n" {
					b.Fatalf("read %q", line)
				}
				b.StopTimer()
				if bc.sup != nil {
					rss += vmRSS(p.PID())
					n++
				}
				p.Close(context.Background())
				b.StartTimer()
			}
			if n > 0 {
				b.ReportMetric(float64(rss/n), "supervisor-RSS-KiB")
			}
		})
	}
}

// vmRSS is pid's resident set size in KiB (/proc/<pid>/status).
func vmRSS(pid int) int64 {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
