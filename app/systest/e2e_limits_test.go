//go:build linux

package systest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest"
)

// TestE2ELimits bounds the real `switchboard serve` as an attacker would
// push it (issue 12, "Bound the hub"), each limit at its default.
func TestE2ELimits(t *testing.T) {
	bins := buildE2E(t)
	tests := []struct {
		name string
		run  func(*testing.T, e2eBins)
	}{
		{"StreamsPerClient", e2eStreamsPerClient},
		{"AgentFlood", e2eAgentFlood},
		{"LiveEventCut", e2eLiveEventCut},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.run(t, bins)
		})
	}
}

// A client opening SSE streams gets 16; the 17th is 429 with Retry-After
// and details.reason STREAMS_PER_CLIENT, and another client (the tray) is
// not starved; closing one frees its slot.
func e2eStreamsPerClient(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	var open []*sseStream
	for range 16 {
		open = append(open, h.mustSSE("GET", "/v1/events?scope=all", nil))
	}
	s, r := h.sse("GET", "/v1/events", nil)
	if s != nil || r.status != 429 || r.errorCode() != "TOO_MANY_REQUESTS" {
		t.Fatalf("17th stream: %s, want 429", r)
	}
	var body struct {
		Error struct{ Details map[string]any }
	}
	r.decode(t, &body)
	if ra, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || ra < 1 || body.Error.Details["reason"] != "STREAMS_PER_CLIENT" {
		t.Fatalf("17th stream: Retry-After %q, details %v", r.header.Get("Retry-After"), body.Error.Details)
	}
	h.mustSSE("GET", "/v1/events?scope=all", nil, "X-Client-ID", "switchboard-tray").close()
	open[0].close()
	if !waitFor(5*time.Second, func() bool {
		s, _ := h.sse("GET", "/v1/events", nil)
		if s != nil {
			s.close()
		}
		return s != nil
	}) {
		t.Fatal("closing a stream did not free its slot")
	}
}

// An agent firing 10 fs reads at once has them all answered (at most 4
// served at a time: acp's TestClientBoundsAgentRequests counts them); one
// asking 40 permissions in a turn gets 32 in front of the user and 8
// refused at once (its reject_once option), logged.
func e2eAgentFlood(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	cwd := t.TempDir()
	big := filepath.Join(cwd, "big.txt")
	if err := os.WriteFile(big, []byte(strings.Repeat("x", 1<<20)), 0o600); err != nil {
		t.Fatal(err)
	}
	th := h.newThread("fake", cwd)
	tu := h.startTurn(th.ID, "fs-read-many 10 "+big)
	if done := h.waitTurn(th.ID, tu.ID, 60*time.Second); done.Output != "fs-read-many ok=10" {
		t.Fatalf("fs-read-many: %+v", done)
	}

	tu = h.startTurn(th.ID, "permissions 40")
	var pending []apiPermission
	// Every request has arrived once 32 are pending and 8 refusals are
	// logged: only then approve (an approval frees a slot).
	if !waitFor(30*time.Second, func() bool {
		pending = h.permissions("pending")
		return len(pending) == 32 && strings.Count(h.logText(), "too many pending in the turn") == 8
	}) {
		t.Fatalf("%d pending permissions, want 32; log:\n%s", len(pending), tail(h.logText(), 4096))
	}
	for _, p := range pending {
		if r := h.decide(p.ID, map[string]string{"outcome": "approved"}); r.status != 200 {
			t.Fatalf("approve: %s", r)
		}
	}
	done := h.waitTurn(th.ID, tu.ID, 60*time.Second)
	if done.Output != "permissions selected:allow-once=32 selected:reject-once=8" {
		t.Fatalf("permissions: %+v", done)
	}
	if all := h.permissions(""); len(all) != 32 {
		t.Fatalf("%d permissions stored, want 32 (the refused ones are never raised)", len(all))
	}
}

// A 3 MB message chunk is stored whole, sent cut on the live stream and
// on a resumed one (with truncated and its full size), and whole in
// history.
func e2eLiveEventCut(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	th := h.newThread("fake", t.TempDir())
	live := h.mustSSE("GET", "/v1/threads/"+th.ID+"/events", nil)
	tu := h.startTurn(th.ID, "bigline 3000000")
	h.waitTurn(th.ID, tu.ID, 60*time.Second)
	cut := func(s *sseStream) int64 {
		t.Helper()
		m := lastMsg(s.until(30*time.Second, isType("message_delta")))
		var d struct {
			Text      string `json:"text"`
			Truncated bool   `json:"truncated"`
			Bytes     int    `json:"bytes"`
		}
		if err := json.Unmarshal([]byte(m.data), &d); err != nil {
			t.Fatal(err)
		}
		// Redaction may hold back the chunk's last word (≤ 256 bytes) for
		// the next delta: the first one is the chunk less that.
		if len(m.data) > 1<<20 || !d.Truncated || d.Bytes < 3000000-256 || d.Text == "" || !strings.HasPrefix(acptest.FakeText(3000000), d.Text) {
			t.Fatalf("streamed: %d bytes, truncated %v, bytes %d, text %d bytes", len(m.data), d.Truncated, d.Bytes, len(d.Text))
		}
		return m.ev.Seq
	}
	seq := cut(live)
	cut(h.mustSSE("GET", "/v1/threads/"+th.ID+"/events?after="+strconv.FormatInt(seq-1, 10), nil))
	// History serves it whole: the cut event's text in full, and with the
	// tail the redactor may have held back for the next delta, the chunk.
	found := false
	var all strings.Builder
	for _, e := range h.turn(th.ID, tu.ID).Events {
		if e.Type == "message_delta" {
			all.WriteString(e.Text)
		}
		if e.Seq == seq {
			found = true
			if len(e.Text) < 3000000-256 || !strings.HasPrefix(acptest.FakeText(3000000), e.Text) {
				t.Fatalf("history: %d bytes of text, want the whole event", len(e.Text))
			}
		}
	}
	if all.String() != acptest.FakeText(3000000) {
		t.Fatalf("history: %d bytes of message text, want the whole 3000000", all.Len())
	}
	if !found {
		t.Fatalf("event %d not in history", seq)
	}
}
