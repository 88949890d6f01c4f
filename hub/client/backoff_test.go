package client

import (
	"slices"
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	b := DefaultBackoff()
	var got []time.Duration
	for range 8 {
		got = append(got, b.Next())
	}
	ms := time.Millisecond
	want := []time.Duration{250 * ms, 500 * ms, 1000 * ms, 2000 * ms, 4000 * ms, 5000 * ms, 5000 * ms, 5000 * ms}
	if !slices.Equal(got, want) {
		t.Fatalf("delays %v, want %v", got, want)
	}
	b.Reset()
	if d := b.Next(); d != 250*ms {
		t.Fatalf("after reset %v", d)
	}
}
