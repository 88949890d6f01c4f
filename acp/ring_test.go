package acp

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

func TestRingWrites(t *testing.T) {
	tests := []struct {
		name    string
		max     int
		writes  []string
		want    string
		dropped int64
	}{
		{"empty", 8, nil, "", 0},
		{"under limit", 8, []string{"abc", "de"}, "abcde", 0},
		{"exactly full", 4, []string{"ab", "cd"}, "abcd", 0},
		{"wraps", 4, []string{"abc", "def"}, "cdef", 2},
		{"wraps twice", 3, []string{"ab", "cd", "ef", "g"}, "efg", 4},
		{"one big write", 4, []string{"0123456789"}, "6789", 6},
		{"big write after wrap", 4, []string{"abcde", "0123456789"}, "6789", 11},
		{"zero keeps nothing", 0, []string{"abc"}, "", 3},
		{"many small", 5, strings.Split("abcdefghijklmnop", ""), "lmnop", 11},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRing(tt.max)
			var total int64
			for _, w := range tt.writes {
				n, err := r.Write([]byte(w))
				if n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
				total += int64(len(w))
			}
			if got := string(r.Bytes()); got != tt.want {
				t.Errorf("Bytes = %q, want %q", got, tt.want)
			}
			if got := r.Tail(); got != tt.want {
				t.Errorf("Tail = %q, want %q", got, tt.want)
			}
			if got := r.Dropped(); got != tt.dropped {
				t.Errorf("Dropped = %d, want %d", got, tt.dropped)
			}
			if got := r.Written(); got != total {
				t.Errorf("Written = %d, want %d", got, total)
			}
			if _, trunc := r.Snapshot(); trunc != (tt.dropped > 0) {
				t.Errorf("Snapshot truncated = %v, want %v", trunc, tt.dropped > 0)
			}
		})
	}
}

func TestRingTailUTF8Boundary(t *testing.T) {
	tests := []struct {
		name  string
		max   int
		input string
		want  string
	}{
		// "é" is 2 bytes, "€" 3, "😀" 4.
		{"fits", 5, "aéé", "aéé"},
		{"cut inside 2-byte", 3, "xééé", "é"},
		{"cut inside 3-byte", 4, "€€", "€"},
		{"cut inside 4-byte", 6, "😀😀", "😀"},
		{"cut at boundary", 4, "a😀", "😀"},
		{"not truncated keeps leading garbage", 8, "\x80abc", "\x80abc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRing(tt.max)
			r.Write([]byte(tt.input))
			got := r.Tail()
			if got != tt.want {
				t.Errorf("Tail = %q, want %q", got, tt.want)
			}
			if r.Dropped() > 0 && !utf8.ValidString(got) {
				t.Errorf("Tail %q is not valid UTF-8", got)
			}
		})
	}
}

func TestRingConcurrent(t *testing.T) {
	const writers, perWriter, max = 8, 1000, 100
	r := NewRing(max)
	line := []byte("0123456789")
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			for range perWriter {
				r.Write(line)
				_ = r.Tail()
			}
		})
	}
	wg.Wait()
	total := int64(writers * perWriter * len(line))
	if got := r.Written(); got != total {
		t.Fatalf("Written = %d, want %d", got, total)
	}
	if got := r.Dropped(); got != total-max {
		t.Fatalf("Dropped = %d, want %d", got, total-max)
	}
	// Every write is atomic and 10 bytes long, and max is a multiple of it,
	// so the ring holds whole copies.
	if got := r.Bytes(); !bytes.Equal(got, bytes.Repeat(line, max/len(line))) {
		t.Fatalf("Bytes = %q", got)
	}
}
