package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/switchboard-hub/switchboard/hub"
)

// The fake's Shelf: enough to test the adapter (the engine's tests and
// the end-to-end ones test the behaviour).

func (f *fake) QueryThreads(ctx context.Context, c hub.Caller, q hub.ThreadQuery) (hub.ThreadPage, error) {
	f.mu.Lock()
	f.lastThreadQuery = q
	f.mu.Unlock()
	return f.ListThreads(ctx, c, q.Limit, q.Cursor)
}

func (f *fake) SetArchived(ctx context.Context, c hub.Caller, id string, archived bool) (hub.Thread, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.enterLocked(c); err != nil {
		return hub.Thread{}, err
	}
	t, err := f.threadLocked(c, id)
	if err != nil {
		return hub.Thread{}, err
	}
	t.Archived = archived
	return *t, nil
}

func (f *fake) ArchiveThreads(ctx context.Context, c hub.Caller, req hub.ArchiveRequest) (hub.ArchiveResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.enterLocked(c); err != nil {
		return hub.ArchiveResult{}, err
	}
	f.lastArchive = req
	return hub.ArchiveResult{Archived: 3}, nil
}

func (f *fake) ExportThreads(ctx context.Context, c hub.Caller, req hub.ExportRequest, w io.Writer) error {
	f.mu.Lock()
	if err := f.enterLocked(c); err != nil {
		f.mu.Unlock()
		return err
	}
	if req.ThreadID != "" {
		if _, err := f.threadLocked(c, req.ThreadID); err != nil {
			f.mu.Unlock()
			return err
		}
	}
	f.mu.Unlock()
	if req.Cwd == "/cut" { // fails midway, as a disk error would
		if _, err := w.Write(make([]byte, 256<<10)); err != nil {
			return err
		}
		return errors.New("fake: the store failed midway")
	}
	_, err := fmt.Fprintf(w, "export %s %s %s\n", req.ThreadID, req.Cwd, req.Format)
	return err
}

func (f *fake) ImportThreads(ctx context.Context, c hub.Caller, req hub.ImportRequest, r io.Reader) (hub.ImportResult, error) {
	f.mu.Lock()
	err := f.enterLocked(c)
	f.mu.Unlock()
	if err != nil {
		return hub.ImportResult{}, err
	}
	n, err := io.Copy(io.Discard, r)
	if err != nil {
		return hub.ImportResult{}, fmt.Errorf("fake import: %w", err)
	}
	return hub.ImportResult{Events: int(n)}, nil
}
