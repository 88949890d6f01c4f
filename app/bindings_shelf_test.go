//go:build unix

package app

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// opener is a recorder that can also open URLs, as the desktop build's
// emitter does.
type opener struct {
	*recorder
	mu   sync.Mutex
	urls []string
	save string // what the Save dialog answers
}

func (o *opener) SaveFile(title, name string) (string, error) { return o.save, nil }

func (o *opener) OpenURL(u string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.urls = append(o.urls, u)
	return nil
}

func TestBindingsShelf(t *testing.T) {
	_, _, h, dir := bindingsHub(t)
	op := &opener{recorder: newRecorder()}
	b := NewBindings(context.Background(), h.engine.Services(), op, nil)
	t.Cleanup(b.stop)
	th, err := b.CreateThread(hub.CreateThreadRequest{Agent: "fake", Cwd: dir, Title: "Kept"})
	if err != nil {
		t.Fatal(err)
	}

	// Archive and the listing's filter.
	if got, err := b.SetArchived(th.ID, true); err != nil || !got.Archived {
		t.Fatalf("SetArchived: %+v, %v", got, err)
	}
	if p, _ := b.ListThreads(0, ""); len(p.Threads) != 0 {
		t.Errorf("ListThreads shows an archived thread: %+v", p.Threads)
	}
	if p, _ := b.QueryThreads(hub.ThreadQuery{Archived: hub.ArchivedOnly}); len(p.Threads) != 1 {
		t.Errorf("QueryThreads archived=true: %+v", p.Threads)
	}
	if _, err := b.SetArchived(th.ID, false); err != nil {
		t.Fatal(err)
	}
	if r, err := b.ArchiveThreads(hub.ArchiveRequest{Cwd: dir}); err != nil || r.Archived != 1 {
		t.Errorf("ArchiveThreads: %+v, %v", r, err)
	}

	// Export and import as strings.
	jl, err := b.ExportText(hub.ExportRequest{ThreadID: th.ID, Format: hub.ExportJSONL})
	if err != nil || !strings.HasPrefix(jl, `{"schema":1,"thread":{"id":"`+th.ID+`"`) {
		t.Fatalf("ExportText jsonl: %v\n%.200s", err, jl)
	}
	md, err := b.ExportText(hub.ExportRequest{Cwd: dir, Format: hub.ExportMarkdown})
	if err != nil || !strings.HasPrefix(md, "# Kept\n") {
		t.Errorf("ExportText md of the folder: %v\n%s", err, md)
	}
	res, err := b.ImportText(jl, "")
	if err != nil || len(res.Threads) != 1 || res.Threads[0].ID == th.ID || res.Threads[0].ClientID != "window" {
		t.Errorf("ImportText: %+v, %v", res, err)
	}
	// A file naming a folder the user never used: refused, unless the
	// window passes the folder the user chose.
	other := strings.Replace(jl, `"cwd":"`+dir+`"`, `"cwd":"/"`, 1)
	if _, err := b.ImportText(other, ""); hub.ErrorCode(err) != hub.CodeInvalidArgument {
		t.Errorf("ImportText of a file in /: %v", err)
	}
	if res, err := b.ImportText(other, dir); err != nil || len(res.Threads) != 1 || res.Threads[0].Cwd != dir {
		t.Errorf("ImportText into the chosen folder: %+v, %v", res, err)
	}
	if _, err := b.ImportText(`{"schema":99,"thread":{"id":"x"}}`, ""); hub.ErrorCode(err) != hub.CodeInvalidArgument {
		t.Errorf("ImportText of a newer schema: %v", err)
	}

	// Save: the dialog's path gets the export; cancelled, nothing.
	op.save = filepath.Join(dir, "out.md")
	if p, err := b.SaveExport(hub.ExportRequest{ThreadID: th.ID, Format: hub.ExportMarkdown}, "switchboard-Kept.md"); err != nil || p != op.save {
		t.Fatalf("SaveExport: %q %v", p, err)
	}
	if got, _ := os.ReadFile(op.save); !strings.HasPrefix(string(got), "# Kept\n") {
		t.Errorf("the saved file: %q", got)
	}
	if _, err := b.SaveExport(hub.ExportRequest{ThreadID: "th_nope", Format: hub.ExportMarkdown}, "x.md"); hub.ErrorCode(err) != hub.CodeNotFound {
		t.Errorf("SaveExport of an unknown thread: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".out.md.*")); len(left) != 0 {
		t.Errorf("temporary files left: %q", left)
	}
	op.save = ""
	if p, err := b.SaveExport(hub.ExportRequest{ThreadID: th.ID, Format: hub.ExportMarkdown}, "x.md"); p != "" || err != nil {
		t.Errorf("cancelled: %q %v", p, err)
	}

	// Open in browser: no sign-in maker, no opener: refused; with both, a
	// one-time link to the thread, opened, never the token.
	if err := b.OpenInBrowser(th.ID); hub.ErrorCode(err) != hub.CodeInternal {
		t.Errorf("OpenInBrowser without a way to sign in: %v", err)
	}
	b.signIn = func(next string) (string, error) {
		l, err := h.http.NewLoginLink(next)
		return l.URL, err
	}
	if err := b.OpenInBrowser("th_nope"); hub.ErrorCode(err) != hub.CodeNotFound {
		t.Errorf("OpenInBrowser of an unknown thread: %v", err)
	}
	if err := b.OpenInBrowser(th.ID); err != nil {
		t.Fatal(err)
	}
	if len(op.urls) != 1 || !strings.Contains(op.urls[0], "/auth?code=") || strings.Contains(op.urls[0], h.token) {
		t.Fatalf("opened %q", op.urls)
	}
	resp, err := http.Get(op.urls[0])
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(page), strconv.Quote("/#/t/"+th.ID)) {
		t.Errorf("the link: %d\n%s", resp.StatusCode, page)
	}
}

func TestThreadToOpen(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"open", "th_1"}, "th_1"},
		{[]string{"open", "--data-dir", "/d", "th_2"}, "th_2"},
		{[]string{"open", "http://127.0.0.1:8686/#/t/th_3"}, "th_3"},
		{[]string{"open", "--browser"}, ""},
		{[]string{"--data-dir", "/d"}, ""},
		{[]string{"open"}, ""},
		{nil, ""},
	} {
		if got := threadToOpen(tt.args); got != tt.want {
			t.Errorf("threadToOpen(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}
