package hostmirror

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
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
