package httpapi

import (
	"io"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

func TestShelfRoutes(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Limits = Limits{ImportMaxBytes: 4096} })
	id := h.newThread("c1")

	// The archived filter reaches the Service as given; PATCH sets the flag.
	h.mustJSON(h.call("GET", "/v1/threads?archived=all", ""), 200, nil)
	if q := h.fake.lastThreadQuery; q.Archived != "all" {
		t.Errorf("query %+v, want archived all", q)
	}
	var got struct{ Thread hub.Thread }
	h.mustJSON(h.call("PATCH", "/v1/threads/"+id, `{"archived":true}`), 200, &got)
	if !got.Thread.Archived {
		t.Errorf("PATCH archived: %+v", got.Thread)
	}
	h.mustJSON(h.call("PATCH", "/v1/threads/"+id, `{"title":"T","archived":false}`), 200, &got)
	if got.Thread.Archived || got.Thread.Title != "T" {
		t.Errorf("PATCH title+archived: %+v", got.Thread)
	}
	if r := h.call("PATCH", "/v1/threads/"+id, `{}`); r.status != 400 {
		t.Errorf("PATCH {}: %d %s", r.status, r.body)
	}
	if r := h.call("PATCH", "/v1/threads/"+id, `{"archived":"yes"}`); r.status != 400 {
		t.Errorf("PATCH archived string: %d %s", r.status, r.body)
	}

	var res hub.ArchiveResult
	h.mustJSON(h.call("POST", "/v1/threads/archive", `{"cwd":"/tmp/project","agent":"echo","idleBefore":"2026-11-01T00:00:00Z"}`), 200, &res)
	if res.Archived != 3 || h.fake.lastArchive.Cwd != "/tmp/project" || h.fake.lastArchive.IdleBefore == nil {
		t.Errorf("archive: %+v, request %+v", res, h.fake.lastArchive)
	}
	if r := h.call("POST", "/v1/threads/archive", `{"folder":"/x"}`); r.status != 400 {
		t.Errorf("archive with an unknown field: %d", r.status)
	}

	// Export: an attachment with a safe file name; errors before the
	// first byte are JSON errors.
	r := h.call("GET", "/v1/threads/"+id+"/export?format=jsonl", "")
	if r.status != 200 || r.header.Get("Content-Type") != "application/x-ndjson" ||
		!strings.Contains(r.header.Get("Content-Disposition"), "attachment; filename*=UTF-8''switchboard-"+id+".jsonl") {
		t.Errorf("export: %d %v %s", r.status, r.header, r.body)
	}
	if r := h.call("GET", "/v1/threads/th_nope/export?format=md", ""); r.status != 404 || r.code() != "NOT_FOUND" {
		t.Errorf("export of an unknown thread: %d %s", r.status, r.body)
	}
	if r := h.call("GET", "/v1/threads/"+id+"/export?format=md", "", withHeader("X-Client-ID", "c2")); r.status != 404 {
		t.Errorf("export of another client's thread: %d %s", r.status, r.body)
	}
	r = h.call("GET", "/v1/threads/export?cwd=/tmp/my%20project&format=md", "")
	if r.status != 200 || !strings.Contains(r.header.Get("Content-Disposition"), "switchboard-my_project.md") ||
		r.header.Get("Content-Type") != "text/markdown; charset=utf-8" {
		t.Errorf("folder export: %d %v", r.status, r.header)
	}

	// A failure after the first byte cuts the body: the client sees an
	// unexpected end, never a complete-looking export.
	resp, err := h.client.Do(h.request("GET", "/v1/threads/export?cwd=/cut&format=md", ""))
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || err == nil {
		t.Errorf("an export cut midway: %d, read error %v", resp.StatusCode, err)
	}

	// Import: its own media type, its own bound (here 4096 bytes, past
	// which the answer is 413 IMPORT_TOO_LARGE, declared or not).
	ndjson := withHeader("Content-Type", "application/x-ndjson")
	var imp hub.ImportResult
	h.mustJSON(h.call("POST", "/v1/threads/import", strings.Repeat("{}\n", 100), ndjson), 201, &imp)
	if imp.Events != 300 || imp.Threads == nil {
		t.Errorf("import: %+v", imp)
	}
	if r := h.call("POST", "/v1/threads/import", `{}`); r.status != 415 {
		t.Errorf("import as application/json: %d", r.status)
	}
	big := strings.Repeat("x", 5000)
	if r := h.call("POST", "/v1/threads/import", big, ndjson); r.status != 413 || !strings.Contains(string(r.body), hub.ReasonImportTooLarge) {
		t.Errorf("import over the bound: %d %s", r.status, r.body)
	}
	req := h.request("POST", "/v1/threads/import", "", ndjson)
	req.Body = nopCloser{strings.NewReader(big)}
	req.ContentLength = -1 // chunked: the bound is found while reading
	if r := h.send(req); r.status != 413 || !strings.Contains(string(r.body), hub.ReasonImportTooLarge) {
		t.Errorf("chunked import over the bound: %d %s", r.status, r.body)
	}
	if r := h.call("POST", "/v1/threads/import", "{}\n", ndjson, noToken); r.status != 401 {
		t.Errorf("import without the token: %d", r.status)
	}
}

type nopCloser struct{ *strings.Reader }

func (nopCloser) Close() error { return nil }
