package client

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// The archive, export and import calls: their requests, and answers
// decoded; an import is sent as it is read, as application/x-ndjson, and
// never retried.
func TestShelfCalls(t *testing.T) {
	f := newFakeHub(t)
	var imported string
	f.on("GET /v1/threads", jsonAnswer(200, `{"threads":[{"id":"th_a","archived":true}]}`))
	f.on("PATCH /v1/threads/th_a", jsonAnswer(200, `{"thread":{"id":"th_a","archived":false}}`))
	f.on("POST /v1/threads/archive", jsonAnswer(200, `{"archived":4}`))
	f.on("GET /v1/threads/th_a/export", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		io.WriteString(w, `{"schema":1,"thread":{"id":"th_a"}}`+"\n")
	})
	f.on("GET /v1/threads/export", jsonAnswer(404, `{"error":{"code":"NOT_FOUND","message":"no thread in /x"}}`))
	f.on("POST /v1/threads/import", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		imported = r.Header.Get("Content-Type") + " " + string(b)
		jsonAnswer(201, `{"threads":[{"id":"th_b"}],"turns":2,"events":5}`)(w, r)
	})
	c := testClient(f, Options{})
	ctx := context.Background()

	p, err := c.ThreadsQuery(ctx, hub.ThreadQuery{Archived: hub.ArchivedOnly, Limit: 10})
	if err != nil || len(p.Threads) != 1 || !p.Threads[0].Archived {
		t.Fatalf("ThreadsQuery: %+v %v", p, err)
	}
	th, err := c.SetArchived(ctx, "th_a", false)
	if err != nil || th.Archived {
		t.Fatalf("SetArchived: %+v %v", th, err)
	}
	before := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	n, err := c.ArchiveThreads(ctx, hub.ArchiveRequest{Cwd: "/x", IdleBefore: &before})
	if err != nil || n != 4 {
		t.Fatalf("ArchiveThreads: %d %v", n, err)
	}
	rc, err := c.Export(ctx, hub.ExportRequest{ThreadID: "th_a", Format: hub.ExportJSONL})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(rc)
	rc.Close()
	if !strings.HasPrefix(string(b), `{"schema":1`) {
		t.Errorf("export body %q", b)
	}
	if _, err := c.Export(ctx, hub.ExportRequest{Cwd: "/x", Format: hub.ExportMarkdown}); !IsCode(err, hub.CodeNotFound) {
		t.Errorf("folder export: %v", err)
	}
	res, err := c.Import(ctx, strings.NewReader("line 1\nline 2\n"))
	if err != nil || len(res.Threads) != 1 || res.Events != 5 || imported != "application/x-ndjson line 1\nline 2\n" {
		t.Fatalf("Import: %+v %v, sent %q", res, err, imported)
	}
	if _, err := c.ImportInto(ctx, hub.ImportRequest{Cwd: "/home/me"}, strings.NewReader("x\n")); err != nil {
		t.Fatalf("ImportInto: %v", err)
	}

	reqs := f.requests()
	want := []string{
		"GET /v1/threads archived=true&limit=10",
		"PATCH /v1/threads/th_a ",
		"POST /v1/threads/archive ",
		"GET /v1/threads/th_a/export format=jsonl",
		"GET /v1/threads/export cwd=%2Fx&format=md",
		"POST /v1/threads/import ",
		"POST /v1/threads/import cwd=%2Fhome%2Fme",
	}
	for i, w := range want {
		if i >= len(reqs) {
			t.Fatalf("only %d requests", len(reqs))
		}
		if got := reqs[i].Method + " " + reqs[i].URL.Path + " " + reqs[i].URL.RawQuery; got != w {
			t.Errorf("request %d: %q, want %q", i, got, w)
		}
	}
}

// An import answered 401 is not sent again: its body is gone.
func TestImportNotRetried(t *testing.T) {
	f := newFakeHub(t)
	f.on("POST /v1/threads/import", jsonAnswer(401, `{"error":{"code":"UNAUTHORIZED","message":"no"}}`))
	c := testClient(f, Options{})
	if _, err := c.Import(context.Background(), strings.NewReader("x\n")); !IsCode(err, hub.CodeUnauthorized) {
		t.Fatalf("import: %v", err)
	}
	n := 0
	for _, r := range f.requests() {
		if r.URL.Path == "/v1/threads/import" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the import was sent %d times", n)
	}
}
