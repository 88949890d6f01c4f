package client

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// Search sends the query's fields that are set (times in RFC 3339, scope=all
// with Options.All), decodes the page, and surfaces the hub's 400.
func TestSearch(t *testing.T) {
	f := newFakeHub(t)
	f.on("GET /v1/search",
		jsonAnswer(200, `{"hits":[{"threadId":"th","turnId":"tu","seq":12,"kind":"message","at":"2026-11-24T06:00:00Z","threadTitle":"t","agent":"claude","cwd":"/src","snippet":[{"text":"the "},{"text":"word","match":true}]}],"nextCursor":"12","indexing":true}`),
		jsonAnswer(400, `{"error":{"code":"INVALID_ARGUMENT","message":"search: invalid query: fts5: syntax error near \"\""}}`))
	c := testClient(f, Options{All: true})
	ctx := context.Background()
	from := time.Date(2026, 11, 1, 0, 0, 0, 0, time.FixedZone("x", 3600))
	p, err := c.Search(ctx, hub.SearchQuery{Q: `"a phrase" wo*`, Agent: "claude", Folder: "/src", From: from, Limit: 5, Cursor: "40"})
	if err != nil || len(p.Hits) != 1 || p.Hits[0].Seq != 12 || !p.Hits[0].Snippet[1].Match || p.NextCursor != "12" || !p.Indexing {
		t.Fatalf("page %+v %v", p, err)
	}
	q := f.requests()[0].URL.Query()
	want := map[string]string{"q": `"a phrase" wo*`, "agent": "claude", "folder": "/src", "from": "2026-11-01T00:00:00+01:00", "limit": "5", "cursor": "40", "scope": "all"}
	for k, v := range want {
		if q.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, q.Get(k), v)
		}
	}
	if q.Has("to") {
		t.Errorf("an unset to was sent: %v", q)
	}
	_, err = c.Search(ctx, hub.SearchQuery{Q: "(("})
	var e *Error
	if !errors.As(err, &e) || e.Status != 400 || e.Code != hub.CodeInvalidArgument {
		t.Fatalf("malformed: %#v", err)
	}
}
