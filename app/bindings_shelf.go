package app

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/switchboard-hub/switchboard/hub"
)

// The window's calls of hub.Shelf (archive, export, import) and its
// "Open in browser".

// QueryThreads is Service.QueryThreads (GET /v1/threads?archived=).
func (b *Bindings) QueryThreads(q hub.ThreadQuery) (hub.ThreadPage, error) {
	return b.svcs.Service.QueryThreads(b.ctx, windowCaller, q)
}

// SetArchived is Service.SetArchived (PATCH /v1/threads/{id} {"archived"}).
func (b *Bindings) SetArchived(id string, archived bool) (hub.Thread, error) {
	return b.svcs.Service.SetArchived(b.ctx, windowCaller, id, archived)
}

// ArchiveThreads is Service.ArchiveThreads (POST /v1/threads/archive).
func (b *Bindings) ArchiveThreads(req hub.ArchiveRequest) (hub.ArchiveResult, error) {
	return b.svcs.Service.ArchiveThreads(b.ctx, windowCaller, req)
}

// maxWindowExport bounds an export the window takes as one string (it
// holds it whole to save it); a larger one is PAYLOAD_TOO_LARGE, and the
// HTTP API streams it.
const maxWindowExport = 256 << 20

// ExportText is Service.ExportThreads (GET /v1/threads/{id}/export, or
// of a folder with req.ThreadID ""), answered as one string for the
// window to save.
func (b *Bindings) ExportText(req hub.ExportRequest) (string, error) {
	var sb boundedBuilder
	sb.max = maxWindowExport
	if err := b.svcs.Service.ExportThreads(b.ctx, windowCaller, req, &sb); err != nil {
		return "", err
	}
	return sb.String(), nil
}

// fileSaver is what the window's Emitter also implements when it can ask
// where to save a file (the native dialog): the desktop build's
// wailsEmitter.
type fileSaver interface {
	SaveFile(title, defaultName string) (string, error)
}

// SaveExport asks where to save an export (the native Save dialog, the
// file named name) and writes it there, streamed: the window's export
// (WebKitGTK saves no download). It answers the path written, or "" when
// the user cancelled. A file that could not be written whole is removed.
func (b *Bindings) SaveExport(req hub.ExportRequest, name string) (string, error) {
	fs, ok := b.emit.(fileSaver)
	if !ok {
		return "", hub.Errorf(hub.CodeInternal, "this window cannot save files")
	}
	path, err := fs.SaveFile("Export", name)
	if err != nil || path == "" {
		return "", err
	}
	return path, writeExport(path, func(w io.Writer) error {
		return b.svcs.Service.ExportThreads(b.ctx, windowCaller, req, w)
	})
}

// writeExport writes what export writes to path (0600), through a
// temporary file renamed into place once whole.
func writeExport(path string, export func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := export(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}

// ImportText is Service.ImportThreads (POST /v1/threads/import) of a
// JSON lines export the window read from a file the user picked; cwd,
// when set, is the folder the user chose for its threads
// (hub.ImportRequest).
func (b *Bindings) ImportText(jsonl, cwd string) (hub.ImportResult, error) {
	return b.svcs.Service.ImportThreads(b.ctx, windowCaller, hub.ImportRequest{Cwd: cwd}, strings.NewReader(jsonl))
}

// urlOpener is what the window's Emitter also implements when it can open
// a URL in the user's browser: the desktop build's wailsEmitter.
type urlOpener interface {
	OpenURL(url string) error
}

// OpenInBrowser opens the thread in the user's browser, signed in by a
// one-time link to /#/t/<id> (no token leaves the app). It is the window's
// own binding: several native windows wait for Wails v3.
func (b *Bindings) OpenInBrowser(threadID string) error {
	if _, err := b.svcs.Service.GetThread(b.ctx, windowCaller, threadID); err != nil {
		return err
	}
	o, ok := b.emit.(urlOpener)
	if !ok || b.signIn == nil {
		return hub.Errorf(hub.CodeInternal, "this window cannot open a browser")
	}
	link, err := b.signIn(ThreadPath(threadID))
	if err != nil {
		return err
	}
	return o.OpenURL(link)
}

// ThreadPath is the web UI's path of a thread: /#/t/<id>.
func ThreadPath(threadID string) string { return "/#/t/" + threadID }

// boundedBuilder is a strings.Builder that refuses to grow past max.
type boundedBuilder struct {
	strings.Builder
	max int
}

func (b *boundedBuilder) Write(p []byte) (int, error) {
	if b.Len()+len(p) > b.max {
		return 0, &hub.Error{Code: hub.CodePayloadTooLarge, Message: "the export is too large for the window: use the HTTP API"}
	}
	return b.Builder.Write(p)
}
