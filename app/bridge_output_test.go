//go:build linux

package app_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/switchboard-hub/switchboard/acp/acptest"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

// A turn whose output is over 64 KiB: the editor gets all of it, live and
// when it loads the session again; the hub's turn_completed carries its
// first 64 KiB with outputBytes and outputTruncated, the history the whole
// output (stored once, from the turn's events), and hub/client's
// CompletedTurn fetches it whole.
func bridgeLongOutput(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	b := startBridge(t, bins, h, "fake")
	b.mustInitialize(t)
	cwd := t.TempDir()
	sid := b.newSession(t, cwd)
	// 128,000 bytes of text in 200 chunks: fewer than the 1024
	// notifications acp-go-sdk's client queues before it drops the
	// connection (a slow editor, e.g. under -race, overflowed it with 2000).
	const chunks = 200
	want := strings.Repeat(acptest.FakeText(639)+" ", chunks)

	if got := agentText(b.mustPrompt(t, sid, "flood 200 640", sdk.StopReasonEndTurn)); got != want {
		t.Fatalf("the editor got %d bytes of text, want the whole %d", len(got), len(want))
	}
	turns := h.history(sid, true, asEditor...)
	if len(turns) != 1 || turns[0].Output != want {
		t.Fatalf("history: %d turns, output %d bytes; want the whole %d", len(turns), len(turns[0].Output), len(want))
	}
	var done *apiEvent
	for i, ev := range turns[0].Events {
		if ev.Type == hub.EventTurnCompleted {
			done = &turns[0].Events[i]
		}
	}
	if done == nil {
		t.Fatal("no turn_completed in the history")
	}
	// The event as stored and streamed, read as hub/client reads it.
	c := client.ForHub(client.NewHub(h.url, h.token), client.Options{ClientID: bridgeClientID})
	s, err := c.ThreadEvents(context.Background(), sid, done.Seq-1, client.StreamOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := s.Next()
	s.Close()
	if err != nil || ev.Type != hub.EventTurnCompleted {
		t.Fatalf("thread stream: %+v, %v", ev, err)
	}
	var p struct {
		Turn hub.Turn `json:"turn"`
	}
	if err := json.Unmarshal(ev.Payload, &p); err != nil {
		t.Fatal(err)
	}
	if !p.Turn.OutputTruncated || p.Turn.OutputBytes != len(want) || len(p.Turn.Output) != hub.TurnEventOutputMax || !strings.HasPrefix(want, p.Turn.Output) {
		t.Fatalf("turn_completed: truncated %v, outputBytes %d, output %d bytes", p.Turn.OutputTruncated, p.Turn.OutputBytes, len(p.Turn.Output))
	}
	full, err := c.CompletedTurn(context.Background(), ev)
	if err != nil || full.Output != want {
		t.Fatalf("CompletedTurn: %d bytes, %v; want %d", len(full.Output), err, len(want))
	}

	b.stop()
	b2 := startBridge(t, bins, h, "fake")
	b2.mustInitialize(t)
	if got := agentText(b2.listAndLoad(t, sid, cwd)); got != want {
		t.Fatalf("session/load replayed %d bytes of text, want %d", len(got), len(want))
	}
}
