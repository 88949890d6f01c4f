//go:build unix

package engine_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// thread_updated says "deleted": true for a deletion, and only then: a
// client watching the stream cannot tell a deleted thread from a closed one
// by the Thread alone (Deleted is not part of the resource).
func TestThreadUpdatedSaysDeleted(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	tray := hub.Caller{ClientID: "tray", All: true}
	th := h.thread("fake")

	tests := []struct {
		name        string
		do          func() error
		wantDeleted bool
		wantTitle   string
		wantStatus  string
	}{
		{"rename", func() error {
			_, err := h.e.RenameThread(ctx, alice, th.ID, "Renamed")
			return err
		}, false, "Renamed", hub.ThreadIdle},
		{"delete", func() error { return h.e.DeleteThread(ctx, alice, th.ID) }, true, "Renamed", hub.ThreadClosed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// The owner's stream and another client's with scope=all both
			// get the event, live.
			for _, c := range []hub.Caller{alice, tray} {
				sub, err := h.e.Subscribe(ctx, c, "", -1)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(sub.Close)
				defer func(c hub.Caller) {
					ev := until(t, sub, hub.EventThreadUpdated)
					var p struct {
						Thread  hub.Thread `json:"thread"`
						Deleted *bool      `json:"deleted"`
					}
					if err := json.Unmarshal(ev.Payload, &p); err != nil {
						t.Fatal(err)
					}
					if p.Thread.ID != th.ID || p.Thread.Title != tc.wantTitle || p.Thread.Status != tc.wantStatus {
						t.Errorf("%s: thread = %+v, want %s %q %s", c.ClientID, p.Thread, th.ID, tc.wantTitle, tc.wantStatus)
					}
					switch {
					case tc.wantDeleted && (p.Deleted == nil || !*p.Deleted):
						t.Errorf("%s: payload %s lacks \"deleted\": true", c.ClientID, ev.Payload)
					case !tc.wantDeleted && p.Deleted != nil:
						t.Errorf("%s: payload %s has \"deleted\"", c.ClientID, ev.Payload)
					}
					// The wire form (SSE data, the window's hub:event) carries it too.
					b, err := ev.MarshalJSON()
					if err != nil {
						t.Fatal(err)
					}
					var wire map[string]any
					if err := json.Unmarshal(b, &wire); err != nil {
						t.Fatal(err)
					}
					if got := wire["deleted"] == true; got != tc.wantDeleted {
						t.Errorf("%s: wire event %s: deleted %v, want %v", c.ClientID, b, got, tc.wantDeleted)
					}
				}(c)
			}
			if err := tc.do(); err != nil {
				t.Fatal(err)
			}
		})
	}

	// A deleted thread's events are not replayed (the store hides them): a
	// client that reconnects learns of the deletion from the thread list.
	page, err := h.e.ListThreads(ctx, tray, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range page.Threads {
		if x.ID == th.ID {
			t.Fatalf("the deleted thread is listed: %+v", x)
		}
	}
}

// ListAgents says how to install an agent, from its catalogue entry, whether
// or not it is installed; a custom agent has no install hint.
func TestListAgentsInstall(t *testing.T) {
	missing := acp.AgentSpec{ID: "missing", Name: "Missing", Command: acp.Command{Path: "switchboard-no-such-agent"},
		Install: "npm install -g switchboard-no-such-agent"}
	h := newHarness(t, nil, fakeSpec(t, "fake"), missing)
	agents, err := h.e.ListAgents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]hub.Agent{}
	for _, a := range agents {
		got[a.ID] = a
	}
	tests := []struct{ id, status, install, reason string }{
		{"missing", hub.AgentUnavailable, missing.Install, "not found on PATH"},
		{"fake", hub.AgentAvailable, "", ""},
	}
	for _, tc := range tests {
		a := got[tc.id]
		if a.Status != tc.status || a.Install != tc.install || !strings.Contains(a.Reason, tc.reason) {
			t.Errorf("agent %s = %+v, want status %s, install %q, reason containing %q", tc.id, a, tc.status, tc.install, tc.reason)
		}
	}
	b, _ := json.Marshal(got["missing"])
	if !strings.Contains(string(b), `"install":"npm install -g switchboard-no-such-agent"`) {
		t.Errorf("JSON %s lacks install", b)
	}
}
