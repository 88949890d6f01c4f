package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// BenchmarkChunkRedaction is the engine's per-chunk work on a streamed
// message — through the turn's redaction stream, into an event payload —
// with redaction on and off, for 64-byte and 4 KiB chunks of prose.
// docs/PERFORMANCE.md reports it.
func BenchmarkChunkRedaction(b *testing.B) {
	prose := strings.Repeat("The quick brown fox jumps over the lazy dog; it said hello. ", 200)
	e := &Engine{now: time.Now}
	th := hub.Thread{ID: "th", ClientID: "c"}
	for _, size := range []int{64, 4096} {
		chunks := make([]string, 0, len(prose)/size)
		for i := 0; i+size <= len(prose); i += size {
			chunks = append(chunks, prose[i:i+size])
		}
		for _, on := range []bool{false, true} {
			name := map[bool]string{false: "off", true: "on"}[on]
			b.Run(map[int]string{64: "64B", 4096: "4KiB"}[size]+"/"+name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(size))
				tr := &turnRT{}
				for i := 0; b.Loop(); i++ {
					evs := e.deltaEvents(th, "tu", tr.chunk(hub.EventMessageDelta, chunks[i%len(chunks)], on))
					_ = evs
					if i%1024 == 0 {
						tr.output.Reset()
					}
				}
			})
		}
	}
}
