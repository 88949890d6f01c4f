//go:build linux

package systest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// 5. Resuming /v1/events with Last-Event-ID during a flood: the union of
// the pieces is the stored log, no gap, no duplicate.
func e2eSSEResume(t *testing.T, bins e2eBins) {
	const chunks, size = 20000, 64
	h := newHub(t, bins, nil)
	th := h.newThread("fake", t.TempDir())
	// The first connection reads from the start; reconnections keep the
	// URL (as EventSource does) and send Last-Event-ID, which wins.
	const path = "/v1/events?after=0"
	s := h.mustSSE("GET", path, nil)
	turn := h.startTurn(th.ID, fmt.Sprintf("flood %d %d", chunks, size))

	var got []sseMsg
	pieces := []int{1, 7, 500, 1500, 3000, 250, 4000, 99}
	for i := 0; ; i++ {
		n := pieces[i%len(pieces)]
		finished := false
		for j := 0; j < n && !finished; j++ {
			m, ok := s.next(60 * time.Second)
			if !ok {
				t.Fatalf("stream %d ended", i)
			}
			got = append(got, m)
			finished = m.event == "turn_completed" && m.ev.TurnID == turn.ID
		}
		s.close()
		if finished {
			break
		}
		if i > 200 {
			t.Fatal("too many reconnections")
		}
		last := got[len(got)-1].id
		s = h.mustSSE("GET", path, nil, "Last-Event-ID", last)
	}

	var seqs []int64
	var turnSeqs []int64
	var turnTexts []string
	var text strings.Builder
	for _, m := range got {
		if m.id != strconv.FormatInt(m.ev.Seq, 10) {
			t.Fatalf("id %q, seq %d", m.id, m.ev.Seq)
		}
		if len(seqs) > 0 && m.ev.Seq <= seqs[len(seqs)-1] {
			t.Fatalf("seq %d after %d: a duplicate or out of order", m.ev.Seq, seqs[len(seqs)-1])
		}
		seqs = append(seqs, m.ev.Seq)
		if m.ev.TurnID == turn.ID {
			turnSeqs = append(turnSeqs, m.ev.Seq)
			turnTexts = append(turnTexts, m.ev.Text)
			if m.event == "message_delta" {
				text.WriteString(m.ev.Text)
			}
		}
	}
	stored := h.turn(th.ID, turn.ID)
	var storedSeqs []int64
	var storedTexts []string
	for _, e := range stored.Events {
		storedSeqs = append(storedSeqs, e.Seq)
		storedTexts = append(storedTexts, e.Text)
	}
	if !slices.Equal(turnTexts, storedTexts) {
		t.Errorf("the streamed deltas' texts differ from the stored ones: stored = streamed")
	}
	if !slices.Equal(turnSeqs, storedSeqs) {
		t.Errorf("resumed stream: %d events of the turn (seq %v…), stored: %d (seq %v…): want the same sequence",
			len(turnSeqs), head(turnSeqs), len(storedSeqs), head(storedSeqs))
		for i := range min(len(turnSeqs), len(storedSeqs)) {
			if turnSeqs[i] != storedSeqs[i] {
				t.Errorf("first difference at %d: streamed %d, stored %d", i, turnSeqs[i], storedSeqs[i])
				break
			}
		}
	}
	// The chunks that waited for the same commit were joined (ADR 0025):
	// fewer deltas than chunks, each of whole chunks within
	// hub.DeltaJoinMax.
	deltas := len(storedSeqs) - 2
	if deltas >= chunks || deltas < chunks*size/hub.DeltaJoinMax {
		t.Errorf("%d stored deltas for %d chunks of a flood: want fewer (joined), none over %d bytes", deltas, chunks, hub.DeltaJoinMax)
	}
	for _, e := range stored.Events {
		if e.Type == "message_delta" && (len(e.Text)%size != 0 || len(e.Text) > hub.DeltaJoinMax) {
			t.Fatalf("a delta of %d bytes: want whole %d-byte chunks, at most %d", len(e.Text), size, hub.DeltaJoinMax)
		}
	}
	if text.Len() != chunks*size || text.String() != stored.Output || stored.Status != "completed" {
		t.Errorf("streamed text %d bytes, turn %s output %d bytes: want %d, equal", text.Len(), stored.Status, len(stored.Output), chunks*size)
	}
	// Last-Event-ID at the end: nothing more, the stream stays open.
	s = h.mustSSE("GET", path, nil, "Last-Event-ID", got[len(got)-1].id)
	next := h.startTurn(th.ID, "echo after")
	ms := s.until(30*time.Second, isType("turn_completed", next.ID))
	if ms[0].event != "turn_started" || ms[0].ev.TurnID != next.ID {
		t.Errorf("after resuming at the end, the first event is %+v, want the next turn's start", ms[0])
	}
	t.Logf("%d events (%d deltas for %d chunks) over %d connections; the turn ran %s", len(got), deltas, chunks, countResumes(pieces, len(got)), turnTime(stored))
}

// turnTime is how long a turn ran, from its events' times.
func turnTime(tu apiTurn) time.Duration {
	if len(tu.Events) < 2 {
		return 0
	}
	a, _ := time.Parse(time.RFC3339Nano, tu.Events[0].At)
	b, _ := time.Parse(time.RFC3339Nano, tu.Events[len(tu.Events)-1].At)
	return b.Sub(a)
}

func head(s []int64) []int64 { return s[:min(len(s), 5)] }

func countResumes(pieces []int, n int) int {
	c := 0
	for i := 0; n > 0; i++ {
		n -= pieces[i%len(pieces)]
		c++
	}
	return c
}

// 6. A subscriber that does not read does not slow the hub: other
// requests and turns go on, the flood completes, and the slow stream
// either keeps up or gets resync and is closed — resumable with its last
// id.
func e2eSlowSubscriber(t *testing.T, bins e2eBins) {
	const chunks = 200000
	h := newHub(t, bins, nil)
	a := h.newThread("fake", t.TempDir())
	b := h.newThread("fake", t.TempDir())
	slow := h.mustSSE("GET", "/v1/events", nil) // live events only; never read for now
	floodStart := time.Now()
	flood := h.startTurn(a.ID, fmt.Sprintf("flood %d 64", chunks))

	// While the flood runs, the hub answers promptly.
	var worst time.Duration
	var seq int64
	for i := 0; i < 5; i++ {
		start := time.Now()
		h.call("GET", "/healthz", nil, 200, nil)
		h.call("GET", "/v1/threads", nil, 200, nil)
		worst = max(worst, time.Since(start))
		// The next probe once the flood has stored more.
		seq = max(seq, h.nextStoredSeq(a.ID, seq, 5*time.Second))
	}
	start := time.Now()
	s := h.mustSSE("POST", "/v1/threads/"+b.ID+"/turns", map[string]string{"input": "echo meanwhile"})
	msgs := s.wantEnd(30 * time.Second)
	other := time.Since(start)
	if last := lastMsg(msgs); last.event != "turn_completed" || last.ev.Turn == nil || last.ev.Turn.Output != "meanwhile" {
		t.Errorf("the other thread's turn ended %v", types(msgs))
	}
	if worst > 2*time.Second || other > 20*time.Second {
		t.Errorf("during the flood: slowest health/list pair %v, other turn %v: want prompt answers", worst, other)
	}
	if th := h.thread(a.ID); th.Status != "running" {
		t.Logf("note: the flood had ended before the other turn finished (thread %s)", th.Status)
	}
	done := h.waitTurn(a.ID, flood.ID, 90*time.Second)
	if done.Status != "completed" || len(done.Output) != chunks*64 {
		t.Errorf("flood turn %s with %d bytes, want completed with %d", done.Status, len(done.Output), chunks*64)
	}
	t.Logf("during the flood: health+list ≤ %v, other turn %v; the flood ended %v after it started", worst, other, time.Since(floodStart).Round(time.Millisecond))

	// Now read the slow stream: it ends with resync, or carries the flood
	// to its end.
	var lastID string
	deltas, textBytes := 0, 0
	for {
		m, ok := slow.next(60 * time.Second)
		if !ok {
			t.Fatalf("slow stream ended after %d deltas without resync or the flood's end", deltas)
		}
		if m.event == "resync" {
			if m.id != "" && m.id != lastID {
				t.Errorf("resync id %q, want the last delivered id %q", m.id, lastID)
			}
			if _, ok := slow.next(10 * time.Second); ok {
				t.Error("the slow stream went on after resync")
			}
			t.Logf("slow subscriber: resync after %d deltas", deltas)
			break
		}
		if m.ev.TurnID == flood.ID && m.event == "message_delta" {
			deltas++
			textBytes += len(m.ev.Text)
		}
		lastID = m.id
		if m.event == "turn_completed" && m.ev.TurnID == flood.ID {
			if textBytes != chunks*64 {
				t.Errorf("slow subscriber kept up, but got %d bytes of %d", textBytes, chunks*64)
			}
			t.Logf("slow subscriber kept up: %d chunks in %d deltas", chunks, deltas)
			slow.close()
			return
		}
	}
	// Resumed with its last id, it goes on with the next stored event.
	last, err := strconv.ParseInt(lastID, 10, 64)
	if err != nil {
		t.Fatalf("last id %q", lastID)
	}
	want := int64(-1)
	for _, th := range []apiThread{a, b} {
		if seq := h.nextStoredSeq(th.ID, last, 3*time.Second); seq > 0 && (want < 0 || seq < want) {
			want = seq
		}
	}
	resumed := h.mustSSE("GET", "/v1/events", nil, "Last-Event-ID", lastID)
	if m, _ := resumed.next(30 * time.Second); m.ev.Seq != want {
		t.Errorf("resumed after %d with %s %d, want the next stored event, %d", last, m.event, m.ev.Seq, want)
	}
}
