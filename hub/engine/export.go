package engine

import (
	"bufio"
	"context"
	"encoding/json"
	"io"

	"github.com/switchboard-hub/switchboard/hub"
)

// exportEventPage is how many events an export reads at a time.
const exportEventPage = 5000

// ExportThreads implements Service. A folder's export holds every thread
// of the caller in it, archived ones included, oldest first.
func (e *Engine) ExportThreads(ctx context.Context, c hub.Caller, req hub.ExportRequest, w io.Writer) error {
	if req.Format != hub.ExportMarkdown && req.Format != hub.ExportJSONL {
		return &hub.Error{Code: hub.CodeInvalidArgument, Message: "format must be md or jsonl", Details: map[string]any{"field": "format"}}
	}
	threads, err := e.exportedThreads(ctx, c, req)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	for i, t := range threads {
		if req.Format == hub.ExportJSONL {
			err = e.exportJSONL(ctx, t, bw)
		} else {
			if i > 0 {
				_, _ = bw.WriteString("\n---\n\n")
			}
			err = e.exportMarkdown(ctx, t, bw)
		}
		if err != nil {
			return err
		}
	}
	return bw.Flush()
}

// exportedThreads are the threads req names, checked before anything is
// written.
func (e *Engine) exportedThreads(ctx context.Context, c hub.Caller, req hub.ExportRequest) ([]hub.Thread, error) {
	if req.ThreadID != "" {
		t, err := e.visibleThread(ctx, c, req.ThreadID)
		if err != nil {
			return nil, err
		}
		return []hub.Thread{t}, nil
	}
	if err := checkCaller(c); err != nil {
		return nil, err
	}
	if req.Cwd == "" {
		return nil, &hub.Error{Code: hub.CodeInvalidArgument, Message: "cwd is required to export a folder's threads", Details: map[string]any{"field": "cwd"}}
	}
	var out []hub.Thread
	f := hub.ThreadFilter{ClientID: c.ClientID, All: c.All, Cwd: req.Cwd, Limit: 500}
	for {
		ts, next, err := e.store.ListThreads(ctx, f)
		if err != nil {
			return nil, err
		}
		out = append(out, ts...)
		if next == "" {
			break
		}
		f.Cursor = next
	}
	if len(out) == 0 {
		return nil, hub.Errorf(hub.CodeNotFound, "no thread in %s", req.Cwd)
	}
	// Oldest first, as they were created.
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// exportJSONL writes t as JSON lines: the thread, its turns (internal
// ones included), then its events in seq order.
func (e *Engine) exportJSONL(ctx context.Context, t hub.Thread, w *bufio.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(hub.ExportLine{Schema: hub.ExportSchema, Thread: &t}); err != nil {
		return err
	}
	turns, err := e.store.ListTurns(ctx, t.ID, true)
	if err != nil {
		return err
	}
	for i := range turns {
		if err := enc.Encode(hub.ExportLine{Turn: &turns[i]}); err != nil {
			return err
		}
	}
	return e.eachEvent(ctx, t.ID, "", func(ev hub.Event) error {
		b, err := json.Marshal(ev)
		if err != nil {
			return err
		}
		return enc.Encode(hub.ExportLine{Event: b})
	})
}

// eachEvent calls fn with every stored event of the thread (of one turn
// when turnID is set), in seq order, a page at a time.
func (e *Engine) eachEvent(ctx context.Context, threadID, turnID string, fn func(hub.Event) error) error {
	for after := int64(0); ; {
		page, err := e.store.Events(ctx, hub.EventFilter{After: after, ThreadID: threadID, TurnID: turnID, All: true, Limit: exportEventPage})
		if err != nil {
			return err
		}
		for _, ev := range page {
			if err := fn(ev); err != nil {
				return err
			}
			after = ev.Seq
		}
		if len(page) < exportEventPage {
			return nil
		}
	}
}
