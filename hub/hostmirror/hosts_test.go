package hostmirror

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

// A batch of a host's events goes in one commit; one the local hub
// refuses is left out, and the others are stored, in order: the link does
// not stop at it forever.
func TestStoreBatchesAndLeavesOutWhatIsRefused(t *testing.T) {
	var commits [][]string
	local := Local{
		Mirror: func(w *hub.Write) error {
			var texts []string
			for _, ev := range w.Events {
				var p struct{ Text string }
				_ = json.Unmarshal(ev.Payload, &p)
				if p.Text == "bad" {
					return hub.Errorf(hub.CodeInvalidArgument, "refused")
				}
				texts = append(texts, ev.Type+":"+p.Text)
			}
			commits = append(commits, texts)
			return nil
		},
		HostSeq: func(context.Context, string) (int64, string, error) { return 0, "", nil },
	}
	hs := New(local, Options{})
	defer hs.Close()
	h := &host{name: "box", known: map[string]bool{}}
	ev := func(seq int64, typ, payload string) hub.Event {
		return hub.Event{Seq: seq, Type: typ, ThreadID: "t1", Payload: json.RawMessage(payload)}
	}
	batch := []hub.Event{
		ev(1, hub.EventThreadUpdated, `{"thread":{"id":"t1","agent":"fake","cwd":"/w","status":"idle"}}`),
		ev(2, hub.EventMessageDelta, `{"text":"ok1"}`),
		ev(3, hub.EventMessageDelta, `{"text":"bad"}`),
		ev(4, hub.EventMessageDelta, `{"text":"ok2"}`),
	}
	if err := hs.store(t.Context(), h, nil, batch); err != nil {
		t.Fatal(err)
	}
	var stored []string
	for _, c := range commits {
		stored = append(stored, c...)
	}
	if got := strings.Join(stored, " "); got != "thread_updated: message_delta:ok1 message_delta:ok2" {
		t.Fatalf("stored %q in commits %q", got, commits)
	}
	if !h.known["t1"] {
		t.Fatal("the thread is not known after its copies were stored")
	}

	// Without a refusal, one commit for the whole batch.
	commits = nil
	if err := hs.store(t.Context(), h, nil, []hub.Event{ev(5, hub.EventMessageDelta, `{"text":"a"}`), ev(6, hub.EventMessageDelta, `{"text":"b"}`)}); err != nil {
		t.Fatal(err)
	}
	if len(commits) != 1 || len(commits[0]) != 2 {
		t.Fatalf("commits %q: want the two events in one", commits)
	}
}

// A follower waiting out its backoff after a failed dial tries again at
// once when Kicked (the link is back), not after the backoff: a long cut
// grows the backoff to its cap, and the catch-up would start that late.
func TestKickEndsTheBackoff(t *testing.T) {
	var dials atomic.Int32
	local := Local{
		Mirror:  func(*hub.Write) error { return nil },
		HostSeq: func(context.Context, string) (int64, string, error) { return 0, "", nil },
	}
	// A backoff no test outlives: only a Kick brings the second dial.
	hs := New(local, Options{Backoff: client.Backoff{Min: time.Hour, Max: time.Hour}})
	defer hs.Close()
	if err := hs.Add("box", func(context.Context) (*client.Client, error) {
		dials.Add(1)
		return nil, hub.HostUnreachable("box")
	}); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 10*time.Second, "the first dial", func() bool { return dials.Load() == 1 })
	hs.Kick("nope") // a host not added: nothing
	testkit.Never(t, 200*time.Millisecond, "a second dial before the backoff's end without a Kick", func() bool { return dials.Load() > 1 })
	hs.Kick("box")
	testkit.Eventually(t, 10*time.Second, "a second dial after the Kick", func() bool { return dials.Load() == 2 })
}
