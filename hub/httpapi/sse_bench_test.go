package httpapi

import (
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

// BenchmarkSSEThroughput measures events per second written to one SSE
// client, over real HTTP, from subscription channel to parsed frame (read
// with hub/client's reader, as the Go clients read it; the raw framing is
// checked by harness_test.go's own reader).
func BenchmarkSSEThroughput(b *testing.B) {
	h := newHarness(b)
	id := h.newThread("c1")
	h.fake.mu.Lock()
	h.fake.setLiveBuffer(b.N + 1)
	h.fake.mu.Unlock()
	resp, err := h.client.Do(h.request("GET", "/v1/threads/"+id+"/events?after=-1", ""))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	waitFor(b, "the subscription", func() bool { return h.fake.openStreams() == 1 })
	b.ResetTimer()
	go h.fake.emit(id, b.N)
	r := client.NewReader(resp.Body, 0)
	for n := 0; n < b.N; {
		f, err := r.Next()
		if err != nil {
			b.Fatalf("after %d events: %v", n, err)
		}
		if f.Event == hub.EventResync {
			b.Fatalf("resync after %d events", n)
		}
		if f.ID != "" {
			n++
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
