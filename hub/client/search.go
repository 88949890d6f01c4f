package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// Search runs a full-text search (GET /v1/search), of the client's threads
// or, with Options.All, of every thread. A malformed query is an *Error
// with code INVALID_ARGUMENT.
func (c *Client) Search(ctx context.Context, q hub.SearchQuery) (hub.SearchPage, error) {
	v := url.Values{"q": {q.Q}}
	set := func(k, s string) {
		if s != "" {
			v.Set(k, s)
		}
	}
	set("agent", q.Agent)
	set("folder", q.Folder)
	set("cursor", q.Cursor)
	if !q.From.IsZero() {
		v.Set("from", q.From.Format(time.RFC3339Nano))
	}
	if !q.To.IsZero() {
		v.Set("to", q.To.Format(time.RFC3339Nano))
	}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	var out hub.SearchPage
	err := c.call(ctx, request{method: http.MethodGet, path: "/v1/search", query: v}, &out)
	return out, err
}
