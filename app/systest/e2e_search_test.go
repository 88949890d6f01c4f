//go:build linux

package systest

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

// search calls GET /v1/search?q and wants status 200.
func (h *hubProc) search(q string, extra string, hdr ...string) hub.SearchPage {
	h.t.Helper()
	var page hub.SearchPage
	h.call("GET", "/v1/search?q="+url.QueryEscape(q)+extra, nil, 200, &page, hdr...)
	return page
}

// Search through the real binary: a word split across an agent's chunks
// is found once its message is stored, at the message's first event; a
// client finds only its threads (scope=all: all); the index survives a
// restart; a malformed query is a 400; a deleted thread is not found.
func e2eSearch(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil)
	th := h.newThread("fake", t.TempDir())
	_, text := h.turnText(th.ID, chunksPrompt("chunks", "the hippo", "campus of ", "the matter"))
	if text != "the hippocampus of the matter" {
		t.Fatalf("streamed %q", text)
	}
	hist := h.history(th.ID, true)
	var first int64
	for _, e := range hist[len(hist)-1].Events {
		if e.Type == "message_delta" {
			first = e.Seq
			break
		}
	}
	page := h.search("hippocampus", "")
	if len(page.Hits) != 1 {
		t.Fatalf("hippocampus: %+v", page)
	}
	hit := page.Hits[0]
	if hit.ThreadID != th.ID || hit.Seq != first || hit.Kind != hub.SearchKindMessage || hit.TurnID != hist[len(hist)-1].ID {
		t.Errorf("hit %+v, want thread %s, first chunk seq %d", hit, th.ID, first)
	}
	var marked []string
	for _, p := range hit.Snippet {
		if p.Match {
			marked = append(marked, p.Text)
		}
	}
	if strings.Join(marked, "|") != "hippocampus" {
		t.Errorf("snippet %+v", hit.Snippet)
	}
	// The prompt is found too (the fake agent's command word).
	if p := h.search("chunks", ""); len(p.Hits) != 1 || p.Hits[0].Kind != hub.SearchKindPrompt {
		t.Errorf("the prompt: %+v", p.Hits)
	}

	// Tenancy: bob sees nothing of alice's, unless scope=all.
	if p := h.search("hippocampus", "", "X-Client-ID", "bob"); len(p.Hits) != 0 {
		t.Errorf("bob sees %+v", p.Hits)
	}
	if p := h.search("hippocampus", "&scope=all", "X-Client-ID", "bob"); len(p.Hits) != 1 {
		t.Errorf("bob with scope=all: %+v", p.Hits)
	}

	// A malformed query is a clear 400, never a 500.
	for _, q := range []string{`"open phrase`, "a AND (", "nosuch:column"} {
		r := h.call("GET", "/v1/search?q="+url.QueryEscape(q), nil, 400, nil)
		var body struct{ Error hub.Error }
		_ = json.Unmarshal(r.body, &body)
		if body.Error.Code != hub.CodeInvalidArgument || !strings.Contains(body.Error.Message, "invalid query") {
			t.Errorf("%q: %s", q, r.body)
		}
	}

	r := h.call("GET", "/v1/search?q="+strings.Repeat("a+", 1000), nil, 400, nil)
	if !strings.Contains(string(r.body), "longer than 1024 bytes") {
		t.Errorf("an overlong query: %s", r.body)
	}

	// The typed client, after a restart.
	h.stop()
	h.start()
	c := client.New(h.dataDir, client.Options{ClientID: "alice"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	page, err := c.Search(ctx, hub.SearchQuery{Q: `"hippocampus of"`})
	if err != nil || len(page.Hits) != 1 || page.Hits[0].Seq != first {
		t.Errorf("after a restart, through hub/client: %+v, %v", page, err)
	}
	if _, err := c.Search(ctx, hub.SearchQuery{Q: "(("}); hub.ErrorCode(err) != hub.CodeInvalidArgument {
		t.Errorf("a malformed query through hub/client: %v", err)
	}

	// Search off (search.enabled: false): nothing new is indexed; on at the
	// next start: the index is rebuilt in the background, the answers say
	// indexing until it is done, the log says so, and the words are found.
	h.stop()
	writeConfig(t, h.dir, hubConfig{"search": map[string]any{"enabled": false}})
	h.start()
	off := h.newThread("fake", t.TempDir())
	h.turnText(off.ID, "echo unindexedmarsupial")
	if p := h.search("unindexedmarsupial", ""); len(p.Hits) != 0 {
		t.Errorf("with search off: %+v", p.Hits)
	}
	h.stop()
	writeConfig(t, h.dir, nil)
	h.start()
	var p hub.SearchPage
	if !waitFor(60*time.Second, func() bool {
		p = h.search("unindexedmarsupial", "")
		return !p.Indexing && len(p.Hits) == 2
	}) {
		t.Fatalf("after turning search on again: %+v", p)
	}
	if p := h.search("hippocampus", ""); len(p.Hits) != 1 {
		t.Errorf("the older history after the rebuild: %+v", p.Hits)
	}
	if !strings.Contains(h.logText(), "search index: up to date") {
		t.Errorf("the log does not say the rebuild ended:\n%s", tail(h.logText(), 2000))
	}

	// Deleted: gone from the answers.
	h.call("DELETE", "/v1/threads/"+th.ID, nil, 204, nil)
	if p := h.search("hippocampus", "&scope=all"); len(p.Hits) != 0 {
		t.Errorf("after the deletion: %+v", p.Hits)
	}
}
