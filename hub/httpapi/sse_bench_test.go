package httpapi

import (
	"bufio"
	"bytes"
	"testing"
)

// BenchmarkSSEThroughput measures events per second written to one SSE
// client, over real HTTP, from subscription channel to parsed frame.
func BenchmarkSSEThroughput(b *testing.B) {
	h := newHarness(b)
	id := h.newThread("c1")
	h.fake.mu.Lock()
	h.fake.liveBuffer = b.N + 1
	h.fake.mu.Unlock()
	resp, err := h.client.Do(h.request("GET", "/v1/threads/"+id+"/events?after=-1", ""))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	waitFor(b, "the subscription", func() bool { return h.fake.openStreams() == 1 })
	b.ResetTimer()
	go h.fake.emit(id, b.N)
	br := bufio.NewReaderSize(resp.Body, 64<<10)
	for n := 0; n < b.N; {
		line, err := br.ReadSlice('\n')
		if err != nil {
			b.Fatalf("after %d events: %v", n, err)
		}
		if bytes.HasPrefix(line, []byte("event: resync")) {
			b.Fatalf("resync after %d events", n)
		}
		if bytes.HasPrefix(line, []byte("id: ")) {
			n++
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
