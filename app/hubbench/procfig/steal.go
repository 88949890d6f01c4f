package procfig

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Steal is the CPU time the hypervisor has taken from this machine's CPUs
// since boot, all CPUs summed (/proc/stat's steal): time a CPU of a
// virtual machine wanted to run and was not run. On a machine of its own
// it stays 0.
func Steal() (time.Duration, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, fmt.Errorf("/proc/stat: no steal in %q", line)
	}
	v, err := strconv.ParseInt(f[8], 10, 64) // user nice system idle iowait irq softirq steal
	if err != nil {
		return 0, fmt.Errorf("/proc/stat: steal %q", f[8])
	}
	return time.Duration(v) * clockTick, nil
}

// StealWatch samples Steal from WatchSteal until Stop and keeps when CPU
// time was taken: a benchmark can tell the latencies a stolen CPU
// stretched from the ones it did not (Touches).
type StealWatch struct {
	every time.Duration
	start time.Time
	first time.Duration
	stop  chan struct{}
	done  chan struct{}

	mu     sync.Mutex
	stolen []window // in time order
	last   time.Duration
}

// window is a span of time during which lost CPU time was stolen.
type window struct {
	from, to time.Time
	lost     time.Duration
}

// WatchSteal starts sampling Steal every interval. On a system without
// /proc/stat it records nothing.
func WatchSteal(every time.Duration) *StealWatch {
	w := &StealWatch{every: every, start: time.Now(), stop: make(chan struct{}), done: make(chan struct{})}
	w.first, _ = Steal()
	w.last = w.first
	go w.run()
	return w
}

func (w *StealWatch) run() {
	defer close(w.done)
	t := time.NewTicker(w.every)
	defer t.Stop()
	prev := time.Now()
	for {
		select {
		case <-w.stop:
			return
		case now := <-t.C:
			s, err := Steal()
			if err == nil {
				w.observe(prev, now, s)
			}
			prev = now
		}
	}
}

// observe records that Steal read s at now, after the sample at prev. The
// counter moves in USER_HZ ticks, once a CPU runs again, by the time it
// lost: so the time went somewhere in the tick before prev, the gap, and
// the lost time before that.
func (w *StealWatch) observe(prev, now time.Time, s time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if d := s - w.last; d > 0 {
		w.stolen = append(w.stolen, window{prev.Add(-d - clockTick), now, d})
	}
	w.last = s
}

// Stop ends the sampling and returns the share of the CPUs' time stolen
// while it ran (0 to 1), and the longest time stolen between two samples.
func (w *StealWatch) Stop() (share float64, longest time.Duration) {
	close(w.stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, s := range w.stolen {
		longest = max(longest, s.lost)
	}
	return float64(w.last-w.first) / float64(time.Since(w.start)*time.Duration(runtime.NumCPU())), longest
}

// Touches reports whether CPU time was stolen at any moment from from to
// to (as far as the samples tell).
func (w *StealWatch) Touches(from, to time.Time) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, s := range w.stolen {
		if s.from.Before(to) && from.Before(s.to) {
			return true
		}
	}
	return false
}
