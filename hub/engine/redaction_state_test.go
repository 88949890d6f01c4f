//go:build unix

package engine_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// An agent's session state — a mode's id and name, a command's name and
// description — and the params of a client request are redacted before
// they are stored, so the thread, the live stream and a resumed stream
// all show the same redacted text (stored = streamed); the editor still
// reads a client request's params as the agent sent them while it serves
// it.
func TestRedactionCoversSessionStateAndClientRequests(t *testing.T) {
	secret := "ghp_" + strings.Repeat("aB3", 12)
	mode := "mode-" + secret
	h := newHarness(t, nil, fakeSpec(t, "fake", "FAKEAGENT_MODES=default,"+mode))
	ctx := context.Background()
	th := h.thread("fake")
	sub := h.watch(th)
	h.run(th, sub, "commands review-"+secret)
	if _, err := h.e.SetMode(ctx, alice, th.ID, mode); err != nil {
		t.Fatal(err)
	}
	got, err := h.e.GetThread(ctx, alice, th.ID)
	if err != nil {
		t.Fatal(err)
	}
	for what, raw := range map[string]json.RawMessage{"modes": got.Modes, "availableCommands": got.AvailableCommands} {
		if strings.Contains(string(raw), secret) || !strings.Contains(string(raw), "[REDACTED:") {
			t.Errorf("stored %s not redacted: %s", what, raw)
		}
	}
	live := until(t, sub, hub.EventModeChanged)
	stored, err := h.e.Subscribe(ctx, alice, th.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer stored.Close()
	if ev := until(t, stored, hub.EventAvailableCommands); strings.Contains(string(ev.Payload), secret) {
		t.Errorf("available_commands stored %s", ev.Payload)
	}
	resumed := until(t, stored, hub.EventModeChanged)
	if strings.Contains(string(live.Payload), secret) || string(live.Payload) != string(resumed.Payload) {
		t.Errorf("mode_changed live %s, stored %s", live.Payload, resumed.Payload)
	}

	// A client request: the event is redacted, the owner reads the params
	// as sent while it is pending.
	d := newDelegatingHarness(t, 0)
	dt := d.delegated(allCaps)
	dsub := d.watch(dt)
	file := filepath.Join(d.cwd, ".env")
	d.start(dt, "fs-write "+file+" TOKEN="+secret)
	ev, r := nextRequest(t, dsub, "fs/write_text_file")
	if strings.Contains(string(ev.Payload), secret) || !r.ParamsRedacted {
		t.Errorf("client_request event %s", ev.Payload)
	}
	full, err := d.e.ClientRequestParams(ctx, alice, dt.ID, r.RequestID)
	if err != nil || !strings.Contains(string(full.Params), "TOKEN="+secret) {
		t.Errorf("the owner's params %s, %v", full.Params, err)
	}
	if _, err := d.e.ClientRequestParams(ctx, hub.Caller{ClientID: "bob", All: true}, dt.ID, r.RequestID); hub.ErrorCode(err) != hub.CodeNotFound {
		t.Errorf("another client read the params: %v", err)
	}
	if err := d.answer(dt, alice, r.RequestID, result(`{}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := d.e.ClientRequestParams(ctx, alice, dt.ID, r.RequestID); hub.ErrorCode(err) != hub.CodeConflict {
		t.Errorf("params of an answered request: %v", err)
	}
	hist, _ := d.e.History(ctx, alice, dt.ID, true, false)
	for _, tu := range hist {
		for _, e := range tu.Events {
			if strings.Contains(string(e.Payload), secret) {
				t.Errorf("stored %s: %s", e.Type, e.Payload)
			}
		}
	}
}
