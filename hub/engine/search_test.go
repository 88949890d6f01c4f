//go:build unix

package engine_test

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// What search finds is what the hub stored: a secret the agent streamed
// split across chunks is redacted before it is indexed, so the secret is
// never found and its marker is; a word split across chunks is found. A
// client finds only its threads; the query's bounds are checked.
func TestSearchIndexesWhatIsStored(t *testing.T) {
	h := newHarness(t, nil)
	th := h.thread("fake")
	sub := h.watch(th)
	token := "ghp_" + strings.Repeat("s3c", 12)
	parts := []string{"push with " + token[:20], token[20:] + " to the platy", "pus repository"}
	var cmd strings.Builder
	cmd.WriteString("chunks")
	for _, p := range parts {
		cmd.WriteString(" " + base64.StdEncoding.EncodeToString([]byte(p)))
	}
	if turn := h.run(th, sub, cmd.String()); turn.Status != hub.TurnCompleted {
		t.Fatalf("turn %+v", turn)
	}
	ctx := context.Background()
	search := func(c hub.Caller, q string) hub.SearchPage {
		t.Helper()
		p, err := h.e.Search(ctx, c, hub.SearchQuery{Q: q})
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		return p
	}
	if p := search(alice, "platypus"); len(p.Hits) != 1 || p.Hits[0].Kind != hub.SearchKindMessage || p.Hits[0].ThreadID != th.ID {
		t.Errorf("platypus: %+v", p.Hits)
	}
	if p := search(alice, `"`+token+`"`); len(p.Hits) != 0 {
		t.Errorf("the secret is found: %+v", p.Hits)
	}
	if p := search(alice, "s3cs3cs3c*"); len(p.Hits) != 0 {
		t.Errorf("a part of the secret is found: %+v", p.Hits)
	}
	p := search(alice, `"REDACTED github token"`)
	if len(p.Hits) != 1 {
		t.Fatalf("the marker: %+v", p.Hits)
	}
	var text string
	for _, s := range p.Hits[0].Snippet {
		text += s.Text
	}
	if strings.Contains(text, "s3c") || !strings.Contains(text, "[REDACTED:github-token]") {
		t.Errorf("snippet %q", text)
	}
	if p := search(hub.Caller{ClientID: "bob"}, "platypus"); len(p.Hits) != 0 {
		t.Errorf("bob finds alice's: %+v", p.Hits)
	}
	if p := search(hub.Caller{ClientID: "bob", All: true}, "platypus"); len(p.Hits) != 1 {
		t.Errorf("scope=all: %+v", p.Hits)
	}
	now := time.Now()
	for _, q := range []hub.SearchQuery{
		{Q: "a", Limit: hub.MaxSearchLimit + 1},
		{Q: "a", Limit: -1},
		{Q: "a", From: now, To: now.Add(-time.Hour)},
		{Q: strings.Repeat("a ", hub.MaxSearchQueryBytes)},
		{Q: "a AND ("},
		{Q: ""},
	} {
		if _, err := h.e.Search(ctx, alice, q); hub.ErrorCode(err) != hub.CodeInvalidArgument {
			t.Errorf("%+v: %v, want INVALID_ARGUMENT", q, err)
		}
	}
	if _, err := h.e.Search(ctx, hub.Caller{}, hub.SearchQuery{Q: "a"}); err == nil {
		t.Error("a caller without a client id searched")
	}
}
