package httpapi

import (
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

func TestSearchEndpoint(t *testing.T) {
	h := newHarness(t)
	for _, c := range []string{"c1", "c2"} {
		id := h.newThread(c)
		h.mustJSON(h.call("PATCH", "/v1/threads/"+id, `{"title":"alpha `+c+`"}`, withHeader("X-Client-ID", c)), 200, nil)
	}
	var page hub.SearchPage
	h.mustJSON(h.call("GET", "/v1/search?q=alpha&agent=echo&folder=/src&from=2026-01-02T03:04:05Z&to=2026-02-02T03:04:05.5%2B01:00&limit=7&cursor=42", ""), 200, &page)
	if len(page.Hits) != 1 || page.Hits[0].ThreadTitle != "alpha c1" {
		t.Errorf("c1's hits: %+v", page.Hits)
	}
	q := h.fake.lastSearch
	wantFrom := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	wantTo := time.Date(2026, 2, 2, 2, 4, 5, 5e8, time.UTC)
	if q.Q != "alpha" || q.Agent != "echo" || q.Folder != "/src" || !q.From.Equal(wantFrom) || !q.To.Equal(wantTo) || q.Limit != 7 || q.Cursor != "42" {
		t.Errorf("the service got %+v", q)
	}
	h.mustJSON(h.call("GET", "/v1/search?q=alpha&scope=all", ""), 200, &page)
	if len(page.Hits) != 2 {
		t.Errorf("scope=all: %+v", page.Hits)
	}
	// No hit is [], not null.
	r := h.call("GET", "/v1/search?q=nothing", "")
	if r.status != 200 || string(r.body) != "{\"hits\":[],\"indexing\":false}\n" {
		t.Errorf("no hits: %d %s", r.status, r.body)
	}
	for _, c := range []struct {
		path   string
		status int
		code   string
	}{
		{"/v1/search?q=bad(", 400, hub.CodeInvalidArgument},
		{"/v1/search?q=a&from=yesterday", 400, hub.CodeInvalidArgument},
		{"/v1/search?q=a&to=2026-13-01", 400, hub.CodeInvalidArgument},
		{"/v1/search?q=a&limit=many", 400, hub.CodeInvalidArgument},
		{"/v1/search?q=a&scope=everything", 400, hub.CodeInvalidArgument},
	} {
		if r := h.call("GET", c.path, ""); r.status != c.status || r.code() != c.code {
			t.Errorf("%s: %d %s, want %d %s", c.path, r.status, r.body, c.status, c.code)
		}
	}
	if r := h.call("GET", "/v1/search?q=alpha", "", noToken); r.status != 401 {
		t.Errorf("without a token: %d", r.status)
	}
}
