package testkit

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

func TestUntil(t *testing.T) {
	var n atomic.Int32
	if !Until(5*time.Second, func() bool { return n.Add(1) >= 3 }) {
		t.Fatal("a condition met on the third look was not seen")
	}
	start := time.Now()
	if Until(30*time.Millisecond, func() bool { return false }) {
		t.Fatal("a condition never met was reported met")
	}
	if d := time.Since(start); d < 30*time.Millisecond {
		t.Fatalf("Until gave up after %v, before its deadline", d)
	}
}

func TestBufferWaitFor(t *testing.T) {
	var b Buffer
	go func() {
		for i := range 5 {
			fmt.Fprintf(&b, "line %d\n", i)
		}
	}()
	if !b.WaitFor(5*time.Second, "line 4\n") {
		t.Fatalf("WaitFor missed a line written: %q", b.String())
	}
	if b.WaitFor(20*time.Millisecond, "never written") {
		t.Fatal("WaitFor found what was never written")
	}
}
