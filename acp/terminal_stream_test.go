//go:build unix

package acp

import (
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// chunkLog records OnOutput calls.
type chunkLog struct {
	mu     sync.Mutex
	chunks []TerminalChunk
	at     []time.Time
}

func (l *chunkLog) add(c TerminalChunk) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.chunks = append(l.chunks, c)
	l.at = append(l.at, time.Now())
}

func (l *chunkLog) get() ([]TerminalChunk, []time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]TerminalChunk(nil), l.chunks...), append([]time.Time(nil), l.at...)
}

// checkChunks checks what holds for every stream of terminal id: session
// and id set, valid UTF-8, at most streamBytes a chunk, exactly one exit, on
// the last call. It returns the concatenated text and the exit status.
func checkChunks(t *testing.T, chunks []TerminalChunk, id string) (string, string) {
	t.Helper()
	if len(chunks) == 0 {
		t.Fatal("no OnOutput call")
	}
	var text strings.Builder
	for i, c := range chunks {
		if c.SessionID != "s" || c.TerminalID != id {
			t.Errorf("chunk %d: session %q terminal %q, want s %q", i, c.SessionID, c.TerminalID, id)
		}
		if !utf8.ValidString(c.Text) {
			t.Errorf("chunk %d: invalid UTF-8 %q", i, c.Text)
		}
		if len(c.Text) > streamBytes {
			t.Errorf("chunk %d: %d bytes, over %d", i, len(c.Text), streamBytes)
		}
		if (c.Exit != nil) != (i == len(chunks)-1) {
			t.Errorf("chunk %d of %d: exit %v; want it on the last call only", i, len(chunks), c.Exit)
		}
		text.WriteString(c.Text)
	}
	return text.String(), exitOf(t, TerminalOutputResponse{ExitStatus: chunks[len(chunks)-1].Exit})
}

func TestTerminalStreamsOutput(t *testing.T) {
	tests := []struct {
		name   string
		script string
		want   string
		exit   string
	}{
		{"two bursts", "printf a; sleep 0.3; printf b", "ab", "0"},
		{"exit code", "printf 'x\\ny\\n'; exit 2", "x\ny\n", "2"},
		{"signal", "printf z; kill -TERM $$", "z", "SIGTERM"},
		{"no output", "true", "", "0"},
		{"rune split across writes", `printf '\360\237'; sleep 0.3; printf '\230\200!'`, "😀!", "0"},
		{"invalid bytes", `printf 'a\377b'`, "a\uFFFDb", "0"},
		{"many multi-byte runes", `yes '€€' | head -n 30000`, strings.Repeat("€€\n", 30000), "0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log chunkLog
			ts := newTerminals(t, TerminalOptions{OnOutput: log.add})
			id, out := run(t, ts, t.TempDir(), CreateTerminalRequest{Command: "sh", Args: []string{"-c", tt.script}})
			// The last call comes before WaitForExit returns: no waiting here.
			chunks, _ := log.get()
			text, exit := checkChunks(t, chunks, id)
			if text != tt.want {
				t.Errorf("streamed %q, want %q", trimmed(text), trimmed(tt.want))
			}
			if exit != tt.exit {
				t.Errorf("exit %s, want %s", exit, tt.exit)
			}
			if utf8.ValidString(out.Output) && text != out.Output {
				t.Errorf("streamed %q, terminal/output %q", trimmed(text), trimmed(out.Output))
			}
			for i, c := range chunks {
				if c.Dropped {
					t.Errorf("chunk %d: Dropped under the limit", i)
				}
			}
		})
	}
}

func trimmed(s string) string {
	if len(s) > 60 {
		return s[:30] + "…" + s[len(s)-30:]
	}
	return s
}

// TestTerminalStreamsLive checks output is passed on while the command
// still runs, not only at exit.
func TestTerminalStreamsLive(t *testing.T) {
	var log chunkLog
	ts := newTerminals(t, TerminalOptions{OnOutput: log.add})
	start := time.Now()
	run(t, ts, t.TempDir(), CreateTerminalRequest{Command: "sh", Args: []string{"-c", "printf a; sleep 0.6; printf b"}})
	chunks, at := log.get()
	if len(chunks) < 2 || chunks[0].Text != "a" {
		t.Fatalf("chunks %+v: want \"a\" first, on its own", chunks)
	}
	if exitAt := at[len(at)-1]; exitAt.Sub(at[0]) < 400*time.Millisecond {
		t.Errorf("\"a\" passed on %v after start, only %v before the exit: not live", at[0].Sub(start), exitAt.Sub(at[0]))
	}
}

// TestTerminalStreamCoalesces checks many small writes make few calls.
func TestTerminalStreamCoalesces(t *testing.T) {
	var log chunkLog
	ts := newTerminals(t, TerminalOptions{OnOutput: log.add})
	start := time.Now()
	id, _ := run(t, ts, t.TempDir(), CreateTerminalRequest{Command: "sh", Args: []string{"-c", "i=0; while [ $i -lt 100 ]; do printf x; sleep 0.01; i=$((i+1)); done"}})
	took := time.Since(start)
	chunks, _ := log.get()
	text, _ := checkChunks(t, chunks, id)
	if text != strings.Repeat("x", 100) {
		t.Errorf("streamed %q", text)
	}
	// One call per streamInterval at most, plus the first and the last.
	if most := int(took/streamInterval) + 2; len(chunks) > most {
		t.Errorf("%d calls in %v for 100 writes, want at most %d", len(chunks), took, most)
	}
}

func TestTerminalStreamLimit(t *testing.T) {
	var log chunkLog
	// 1001 bytes of 2-byte runes: the limit falls inside a character.
	ts := newTerminals(t, TerminalOptions{OnOutput: log.add, StreamLimit: 1001})
	id, out := run(t, ts, t.TempDir(), CreateTerminalRequest{Command: "sh", Args: []string{"-c", `yes é | head -n 2000 | tr -d '\n'`}})
	chunks, _ := log.get()
	text, exit := checkChunks(t, chunks, id)
	if want := strings.Repeat("é", 500); text != want {
		t.Errorf("streamed %d bytes, want the first %d", len(text), len(want))
	}
	if exit != "0" {
		t.Errorf("exit %s", exit)
	}
	if out.Output != strings.Repeat("é", 2000) {
		t.Errorf("terminal/output has %d bytes: the stream limit must not cut it", len(out.Output))
	}
	first := -1
	for i, c := range chunks {
		if c.Dropped && first < 0 {
			first = i
		}
		if first >= 0 && i > first && i < len(chunks)-1 {
			t.Errorf("chunk %d after the limit was reached, before the last: %+v", i, c)
		}
	}
	if first < 0 || !chunks[len(chunks)-1].Dropped {
		t.Errorf("Dropped on chunk %d and last %v: want it where the limit is reached and on the last", first, chunks[len(chunks)-1].Dropped)
	}
	if last := chunks[len(chunks)-1]; last.Text != "" {
		t.Errorf("last call has text %q past the limit", last.Text)
	}
}

func TestPartialRune(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"abc", 0},
		{"é", 0},
		{"a\xc3", 1},
		{"a\xe2\x82", 2},
		{"\xf0\x9f\x98", 3},
		{"\xf0\x9f\x98\x80", 0},
		{"a\xff", 0},        // invalid, not a prefix: passed on as U+FFFD
		{"\x80\x80\x80", 0}, // stray continuation bytes
	}
	for _, tt := range tests {
		if got := partialRune([]byte(tt.in)); got != tt.want {
			t.Errorf("partialRune(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// BenchmarkTerminalOutput is one command printing 16 MiB, with and without
// streaming (which stops at the 1 MiB limit but still reads everything).
func BenchmarkTerminalOutput(b *testing.B) {
	for _, streamed := range []bool{false, true} {
		name := "plain"
		if streamed {
			name = "streamed"
		}
		b.Run(name, func(b *testing.B) {
			opts := TerminalOptions{}
			calls := 0
			if streamed {
				opts.OnOutput = func(TerminalChunk) { calls++ }
			}
			ts := NewTerminals(opts)
			defer ts.Close()
			b.SetBytes(16 << 20)
			for b.Loop() {
				c, err := ts.Create(b.Context(), b.TempDir(), CreateTerminalRequest{SessionID: "s", Command: "head", Args: []string{"-c", "16777216", "/dev/zero"}})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := ts.WaitForExit(b.Context(), WaitForTerminalExitRequest{SessionID: "s", TerminalID: c.TerminalID}); err != nil {
					b.Fatal(err)
				}
				_, _ = ts.Release(b.Context(), ReleaseTerminalRequest{SessionID: "s", TerminalID: c.TerminalID})
			}
			if streamed && calls == 0 {
				b.Fatal("no OnOutput call")
			}
		})
	}
}
