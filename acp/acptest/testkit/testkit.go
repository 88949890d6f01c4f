// Package testkit is what the repository's tests share to wait on state
// rather than on the clock: Until (poll a condition with a deadline),
// Eventually (the same, failing the test), and Buffer (a locked
// bytes.Buffer for a process's or a logger's output, waited on with
// WaitFor). It imports nothing of this module, so any package's tests
// import it, acp's own included.
package testkit

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// pollEvery is how often Until looks at its condition at most: it starts
// at 1 ms and doubles up to this, so a condition met soon is seen soon
// and a long wait costs little CPU.
const pollEvery = 50 * time.Millisecond

// Until reports whether cond became true within timeout, polling it (the
// first time at once, the last time at the deadline).
func Until(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	wait := time.Millisecond
	for {
		if cond() {
			return true
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		<-time.After(min(wait, left))
		wait = min(2*wait, pollEvery)
	}
}

// UntilEvery is Until polling every interval exactly: for a benchmark
// that times how soon something happens.
func UntilEvery(timeout, every time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for !cond() {
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		<-time.After(min(every, left))
	}
	return true
}

// Eventually fails t (Fatalf, with what) unless cond becomes true within
// timeout.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Until(timeout, cond) {
		t.Fatalf("timed out after %v waiting for %s", timeout, what)
	}
}

// Never fails t (Fatalf, with what) if cond becomes true within d: for the
// absence of something that, were it coming, would have come by then
// (the one wait that must last its whole time).
func Never(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	if Until(d, cond) {
		t.Fatalf("%s within %v", what, d)
	}
}

// ModuleRoot is the nearest parent of the working directory with a
// go.mod: the repository's root, for a test that builds a binary of it
// or reads its files.
func ModuleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Buffer is a bytes.Buffer safe for concurrent use: a process's stdout
// and stderr, a logger and the test that reads them. Its zero value is
// ready to use.
type Buffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{} // closed at the next Write
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.changed != nil {
		close(b.changed)
		b.changed = nil
	}
	return b.b.Write(p)
}

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Len is the number of bytes written so far.
func (b *Buffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Len()
}

// WaitFor reports whether what has been written contains s within
// timeout, waking at each Write.
func (b *Buffer) WaitFor(timeout time.Duration, s string) bool {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		b.mu.Lock()
		if strings.Contains(b.b.String(), s) {
			b.mu.Unlock()
			return true
		}
		if b.changed == nil {
			b.changed = make(chan struct{})
		}
		changed := b.changed
		b.mu.Unlock()
		select {
		case <-changed:
		case <-timer.C:
			return strings.Contains(b.String(), s)
		}
	}
}
