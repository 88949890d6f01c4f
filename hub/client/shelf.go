package client

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strconv"

	"github.com/switchboard-hub/switchboard/hub"
)

// ThreadsQuery lists one page of threads with ThreadQuery's filters (GET
// /v1/threads?limit&cursor&archived): archived threads only when
// q.Archived is "true" (only them) or "all".
func (c *Client) ThreadsQuery(ctx context.Context, q hub.ThreadQuery) (hub.ThreadPage, error) {
	v := url.Values{}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	if q.Cursor != "" {
		v.Set("cursor", q.Cursor)
	}
	if q.Archived != "" {
		v.Set("archived", q.Archived)
	}
	var out hub.ThreadPage
	err := c.call(ctx, request{method: http.MethodGet, path: "/v1/threads", query: v}, &out)
	return out, err
}

// SetArchived archives or unarchives a thread (PATCH /v1/threads/{id}
// {"archived"}); it cancels nothing.
func (c *Client) SetArchived(ctx context.Context, id string, archived bool) (hub.Thread, error) {
	var out struct {
		Thread hub.Thread `json:"thread"`
	}
	err := c.call(ctx, request{method: http.MethodPatch, path: "/v1/threads/" + esc(id),
		body: map[string]bool{"archived": archived}}, &out)
	return out.Thread, err
}

// ArchiveThreads archives every thread that req selects (POST
// /v1/threads/archive) and returns how many it archived.
func (c *Client) ArchiveThreads(ctx context.Context, req hub.ArchiveRequest) (int, error) {
	var out hub.ArchiveResult
	err := c.call(ctx, request{method: http.MethodPost, path: "/v1/threads/archive", body: req}, &out)
	return out.Archived, err
}

// Export streams an export (GET /v1/threads/{id}/export, or
// /v1/threads/export?cwd= when req.ThreadID is empty) in req.Format. The
// caller reads and closes the body; a body that ends early (the hub
// failed midway) is an io.ErrUnexpectedEOF when read.
func (c *Client) Export(ctx context.Context, req hub.ExportRequest) (io.ReadCloser, error) {
	r := request{method: http.MethodGet, query: url.Values{"format": {req.Format}}}
	if req.ThreadID != "" {
		r.path = "/v1/threads/" + esc(req.ThreadID) + "/export"
	} else {
		r.path = "/v1/threads/export"
		r.query.Set("cwd", req.Cwd)
	}
	resp, err := c.send(ctx, r)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		return nil, decodeError(resp)
	}
	return resp.Body, nil
}

// Import sends a JSON lines export (POST /v1/threads/import,
// application/x-ndjson) as it reads it from r, and returns the threads it
// made. It is never retried (r is read once). A file whose folder the
// user never chose is refused (INVALID_ARGUMENT, details.reason
// IMPORT_FOLDER): ImportInto puts its threads in the folder the user
// chose.
func (c *Client) Import(ctx context.Context, r io.Reader) (hub.ImportResult, error) {
	return c.ImportInto(ctx, hub.ImportRequest{}, r)
}

// ImportInto is Import with req (?cwd=: the folder the user chose for the
// file's threads, when set).
func (c *Client) ImportInto(ctx context.Context, req hub.ImportRequest, r io.Reader) (hub.ImportResult, error) {
	var out hub.ImportResult
	rq := request{method: http.MethodPost, path: "/v1/threads/import", raw: r, rawType: "application/x-ndjson"}
	if req.Cwd != "" {
		rq.query = url.Values{"cwd": {req.Cwd}}
	}
	err := c.call(ctx, rq, &out)
	return out, err
}
