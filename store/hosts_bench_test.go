package store

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// BenchmarkHostSeq: store.HostSeq on a log of benchSizes' events (50k; 1M
// with SWITCHBOARD_BENCH_LARGE=1), most of them this hub's own, with the
// copies of two hosts: "idle", whose 10 copies are the log's first events
// (a host that has been quiet since: the mirror resumes it after a
// reconnect), and "busy", one copy in every 10 events up to the end.
func BenchmarkHostSeq(b *testing.B) {
	_, n := benchSizes()
	db := MustOpenDB(b)
	mustCommit(b, db, writeThreads(thread("t1", "c1", 1), thread("th1@idle", "c1", 2), thread("th2@busy", "c1", 3)))
	const batch = 5000
	for start := 0; start < n; start += batch {
		w := &hub.Write{}
		for i := start; i < start+batch && i < n; i++ {
			e := delta(i)
			switch {
			case i < 10:
				e.ThreadID, e.Payload = "th1@idle", copyPayload(int64(i+1))
			case i%10 == 0:
				e.ThreadID, e.Payload = "th2@busy", copyPayload(int64(i))
			}
			w.Events = append(w.Events, e)
		}
		mustCommit(b, db, w)
	}
	ctx := context.Background()
	for _, h := range []struct {
		host string
		want int64
	}{{"idle", 10}, {"busy", int64((n - 1) / 10 * 10)}} {
		b.Run(h.host, func(b *testing.B) {
			for b.Loop() {
				got, _, err := db.HostSeq(ctx, h.host)
				if err != nil || got != h.want {
					b.Fatalf("HostSeq(%s) = %d, %v; want %d", h.host, got, err, h.want)
				}
			}
		})
	}
}

// copyPayload is a copy's payload as engine.Mirror stores it: the host's
// seq beside the event's own fields.
func copyPayload(hostSeq int64) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"hostSeq":%d,"text":"a chunk of the host's answer"}`, hostSeq))
}
