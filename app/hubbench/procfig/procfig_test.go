//go:build linux

package procfig

import (
	"os"
	"testing"
	"time"
)

// sink keeps the loop below from being optimised away.
var sink int

// This process's own figures read back as a Linux process has them.
func TestOwnFigures(t *testing.T) {
	for i := range 100_000_000 { // some CPU time to read (over USER_HZ's 10 ms)
		sink += i * i
	}
	if d, err := CPUTime(os.Getpid()); err != nil || d <= 0 {
		t.Errorf("CPUTime = %v, %v; want a positive time", d, err)
	}
	if m, err := PSSMiB(os.Getpid()); err != nil || m <= 0 {
		t.Errorf("PSSMiB = %v, %v; want a positive size", m, err)
	}
	if l := LoadAvg(); l < 0 {
		t.Errorf("LoadAvg = %v", l)
	}
	if _, err := CPUTime(-1); err == nil {
		t.Error("CPUTime of no process: no error")
	}
}

// Steal reads /proc/stat's counter, which never goes back.
func TestStealReads(t *testing.T) {
	a, err := Steal()
	if err != nil || a < 0 {
		t.Fatalf("Steal = %v, %v", a, err)
	}
	w := WatchSteal(time.Millisecond)
	for i := range 10_000_000 {
		sink += i
	}
	if share, longest := w.Stop(); share < 0 || share > 1 || longest < 0 {
		t.Errorf("Stop = %v, %v; want a share in [0, 1] and a duration", share, longest)
	}
	if b, err := Steal(); err != nil || b < a {
		t.Errorf("Steal went from %v to %v (%v)", a, b, err)
	}
}

// A latency is stretched by stolen time when its span meets where the
// samples put it: the tick before the sample that saw the counter move,
// the gap between the samples, and the time lost before that.
func TestStealWatchTouches(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	w := &StealWatch{last: 5 * clockTick}
	w.observe(at(100), at(102), 5*clockTick) // nothing stolen
	w.observe(at(102), at(104), 8*clockTick) // 30 ms: from 62 (102-30-10) to 104
	cases := []struct {
		from, to int
		want     bool
	}{
		{0, 61, false},
		{0, 63, true},
		{90, 95, true},
		{103, 200, true},
		{105, 200, false},
	}
	for _, c := range cases {
		if got := w.Touches(at(c.from), at(c.to)); got != c.want {
			t.Errorf("Touches(%d ms, %d ms) = %v, want %v", c.from, c.to, got, c.want)
		}
	}
}
