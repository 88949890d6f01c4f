package redact

import (
	"strings"
	"testing"
)

// BenchmarkStream is the cost redaction adds to one streamed chunk of
// prose (no secret: the common case) and of prose with a token in every
// chunk, for 64-byte and 4 KiB chunks. docs/PERFORMANCE.md reports it.
func BenchmarkStream(b *testing.B) {
	prose := strings.Repeat("The quick brown fox jumps over the lazy dog; it said hello. ", 80)
	withToken := strings.Repeat("Use "+ghp+" to push the branch, then say done. ", 60)
	for _, size := range []int{64, 4096} {
		for _, tc := range []struct{ name, text string }{{"prose", prose}, {"token", withToken}} {
			chunks := make([]string, 0, len(tc.text)/size)
			for i := 0; i+size <= len(tc.text); i += size {
				chunks = append(chunks, tc.text[i:i+size])
			}
			b.Run(tc.name+"/"+sizeName(size), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(size))
				var s Stream
				for i := 0; b.Loop(); i++ {
					_ = s.Write(chunks[i%len(chunks)])
				}
			})
		}
	}
}

func sizeName(n int) string {
	if n >= 1024 {
		return itoa(n/1024) + "KiB"
	}
	return itoa(n) + "B"
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for ; n > 0; n /= 10 {
		d = append([]byte{byte('0' + n%10)}, d...)
	}
	return string(d)
}

// BenchmarkJSON is the cost on a tool call's raw JSON without a secret.
func BenchmarkJSON(b *testing.B) {
	raw := []byte(`{"toolCallId":"tool-1","title":"Write hello.txt","kind":"edit","status":"pending","locations":[{"path":"/home/u/p/hello.txt"}],"rawInput":{"path":"/home/u/p/hello.txt","content":"hello\n"}}`)
	b.ReportAllocs()
	for b.Loop() {
		_, _ = JSON(raw)
	}
}
