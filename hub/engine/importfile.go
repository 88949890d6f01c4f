package engine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// Import bounds. The body as a whole is bounded by the caller
// (limits.importMaxBytes); these bound what one line may hold and how
// much is kept in memory before it is committed.
const (
	importMaxLine    = 64 << 20 // one JSON line: a thread, a turn or an event
	importBatchRows  = 500
	importBatchBytes = 8 << 20
)

// ImportThreads implements Service.
func (e *Engine) ImportThreads(ctx context.Context, c hub.Caller, req hub.ImportRequest, r io.Reader) (hub.ImportResult, error) {
	if err := checkCaller(c); err != nil {
		return hub.ImportResult{}, err
	}
	im := &fileImporter{e: e, c: c, ctx: ctx}
	if req.Cwd != "" {
		cwd, err := checkCwd(req.Cwd)
		if err != nil {
			return hub.ImportResult{}, err
		}
		im.cwd = cwd
	}
	err := im.run(ctx, bufio.NewReaderSize(r, 64<<10))
	if err == nil {
		err = im.closeThread()
	}
	if err != nil {
		im.undo(context.WithoutCancel(ctx))
		return hub.ImportResult{}, err
	}
	if im.res.Threads == nil {
		return hub.ImportResult{}, malformed(0, "the import holds no thread")
	}
	return im.res, nil
}

// fileImporter is one import's state: the thread being imported and the new
// ids given to what the export named.
type fileImporter struct {
	e   *Engine
	c   hub.Caller
	ctx context.Context
	cwd string // the folder the user chose (ImportRequest.Cwd, checked); "": the file's, if known (importfile_folder.go)
	res hub.ImportResult

	thread *hub.Thread       // the new thread lines are added to
	oldID  string            // its id in the export
	turns  map[string]string // export turn id → new id
	perms  map[string]string // export permission id → new id
	// open are the thread's permissions the file asked and never
	// resolved (by new id): closeThread resolves them as cancelled.
	open map[string]hub.Permission
	// elicits and openElicits are the same for its questions
	// (elicitations): export id → new id, and those left pending.
	elicits     map[string]string
	openElicits map[string]hub.Elicitation
	lastAt      time.Time
	created     []string // every thread stored so far, for undo

	w     hub.Write // rows waiting to be committed
	wRows int
	wSize int
}

func malformed(line int, format string, args ...any) error {
	return &hub.Error{Code: hub.CodeInvalidArgument, Message: fmt.Sprintf("import line %d: ", line) + fmt.Sprintf(format, args...),
		Details: map[string]any{"reason": hub.ReasonImportMalformed, "line": line}}
}

func (im *fileImporter) run(ctx context.Context, br *bufio.Reader) error {
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, err := readLine(br, importMaxLine)
		if errors.Is(err, errLineTooLong) {
			return malformed(n, "longer than %d bytes", importMaxLine)
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("import: read: %w", err)
		}
		if len(bytes.TrimSpace(line)) > 0 {
			if lerr := im.line(n, line); lerr != nil {
				return lerr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
	}
}

var errLineTooLong = errors.New("line too long")

// readLine reads one line (without its newline) of at most max bytes.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var buf []byte
	for {
		part, err := br.ReadSlice('\n')
		if len(buf)+len(part) > max+1 {
			return nil, errLineTooLong
		}
		buf = append(buf, part...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(buf, []byte("\n")), err
	}
}

// line imports one line of the export.
func (im *fileImporter) line(n int, b []byte) error {
	var l struct {
		Schema *int            `json:"schema"`
		Thread *hub.Thread     `json:"thread"`
		Turn   *hub.Turn       `json:"turn"`
		Event  json.RawMessage `json:"event"`
	}
	if err := json.Unmarshal(b, &l); err != nil {
		return malformed(n, "not a JSON object: %v", err)
	}
	switch {
	case l.Thread != nil:
		if l.Schema == nil || *l.Schema < 1 {
			return malformed(n, "a thread line needs schema")
		}
		if *l.Schema > hub.ExportSchema {
			return &hub.Error{Code: hub.CodeInvalidArgument,
				Message: fmt.Sprintf("the export has schema %d, newer than this hub reads (schema %d): import it with a newer Switchboard", *l.Schema, hub.ExportSchema),
				Details: map[string]any{"reason": hub.ReasonSchemaTooNew, "schema": *l.Schema, "supported": hub.ExportSchema, "line": n}}
		}
		return im.startThread(n, *l.Thread)
	case im.thread == nil:
		return malformed(n, "the first line must be {\"schema\":%d,\"thread\":…}", hub.ExportSchema)
	case l.Turn != nil:
		return im.addTurn(*l.Turn)
	case len(l.Event) > 0:
		var ev hub.Event
		if err := json.Unmarshal(l.Event, &ev); err != nil || ev.Type == "" {
			return malformed(n, "not an event")
		}
		return im.addEvent(ev)
	}
	return malformed(n, "neither a thread, a turn nor an event")
}

// startThread stores the export's thread as a new thread of the caller.
func (im *fileImporter) startThread(line int, t hub.Thread) error {
	if err := im.closeThread(); err != nil {
		return err
	}
	cwd, err := im.folder(line, t.Cwd)
	if err != nil {
		return err
	}
	e := im.e
	now := e.now()
	nt := hub.Thread{ID: newID("th"), Agent: t.Agent, Cwd: cwd, Title: e.redactString(t.Title), ClientID: im.c.ClientID,
		Status: hub.ThreadIdle, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt, Archived: t.Archived}
	if nt.CreatedAt.IsZero() {
		nt.CreatedAt = now
	}
	if nt.UpdatedAt.IsZero() {
		nt.UpdatedAt = nt.CreatedAt
	}
	ev, err := hub.NewEvent(hub.EventThreadUpdated, nt, "", now, map[string]any{"thread": nt})
	if err != nil {
		return err
	}
	if err := e.commit(&hub.Write{Threads: []hub.Thread{nt}, Events: []hub.Event{ev}}); err != nil {
		return err
	}
	im.created = append(im.created, nt.ID)
	im.res.Threads = append(im.res.Threads, nt)
	im.thread, im.oldID = &im.res.Threads[len(im.res.Threads)-1], t.ID
	im.turns, im.perms, im.open = map[string]string{}, map[string]string{}, map[string]hub.Permission{}
	im.elicits, im.openElicits = map[string]string{}, map[string]hub.Elicitation{}
	im.lastAt = nt.UpdatedAt
	return nil
}

// closeThread ends the thread being imported: a permission the file
// left pending (exported while its turn ran) is resolved as cancelled by
// the hub, as restart recovery resolves one, so no inbox shows it as
// waiting; then the queue is committed.
func (im *fileImporter) closeThread() error {
	if im.thread != nil && len(im.open) > 0 {
		ids := make([]string, 0, len(im.open))
		for id := range im.open {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			p := im.open[id]
			at := im.lastAt
			p.Status, p.DecidedBy, p.DecidedAt = hub.PermissionCancelled, hub.DecidedByHub, &at
			ev, err := hub.NewEvent(hub.EventPermissionResolved, *im.thread, p.TurnID, at, map[string]any{"permission": p})
			if err != nil {
				return err
			}
			im.w.Events = append(im.w.Events, ev)
			im.res.Events++
			im.wRows++
		}
		im.open = map[string]hub.Permission{}
	}
	if im.thread != nil {
		if err := im.closeElicitations(); err != nil {
			return err
		}
	}
	return im.flush()
}

// newTurnID is the new id of the export's turn old ("" stays "").
func (im *fileImporter) newTurnID(old string) string {
	if old == "" {
		return ""
	}
	id, ok := im.turns[old]
	if !ok {
		id = newID("tu")
		im.turns[old] = id
	}
	return id
}

func (im *fileImporter) addTurn(t hub.Turn) error {
	e := im.e
	old := t.ID
	t.ID, t.ThreadID = im.newTurnID(old), im.thread.ID
	if t.ID == "" {
		t.ID = newID("tu")
	}
	if t.Status == hub.TurnRunning {
		// Nothing runs it here.
		t.Status = hub.TurnInterrupted
	}
	t.Input, t.Output, t.Error = e.redactString(t.Input), e.redactString(t.Output), e.redactString(t.Error)
	t.Content = e.redactJSON(t.Content)
	im.w.Turns = append(im.w.Turns, t)
	im.res.Turns++
	return im.grew(len(t.Input) + len(t.Output) + len(t.Content))
}

// addEvent queues an event of the export under the new ids: its thread,
// its turn and, in a permission's events, the permission get the new
// ones (everywhere the payload names them), and its text is redacted.
// thread_updated events are left out: they describe the thread in the
// other hub, and the import announces the new one itself.
func (im *fileImporter) addEvent(ev hub.Event) error {
	switch ev.Type {
	case hub.EventThreadUpdated, hub.EventResync, hub.EventConfigError, hub.EventConfigApplied:
		return nil
	}
	p := ev.Payload
	oldTurn := ev.TurnID
	ev.Seq, ev.ThreadID, ev.TurnID, ev.ClientID = 0, im.thread.ID, im.newTurnID(oldTurn), im.c.ClientID
	p = replaceID(p, im.oldID, im.thread.ID)
	if oldTurn != "" {
		p = replaceID(p, oldTurn, ev.TurnID)
	}
	if ev.Type == hub.EventPermissionRequired || ev.Type == hub.EventPermissionResolved {
		var pp struct {
			Permission struct {
				ID string `json:"id"`
			} `json:"permission"`
		}
		if json.Unmarshal(p, &pp) == nil && pp.Permission.ID != "" {
			id, ok := im.perms[pp.Permission.ID]
			if !ok {
				id = newID("pm")
				im.perms[pp.Permission.ID] = id
			}
			p = replaceID(p, pp.Permission.ID, id)
		}
	}
	p = im.renameElicitation(ev.Type, p)
	ev.Payload = im.e.redactJSON(p)
	im.track(ev)
	im.w.Events = append(im.w.Events, ev)
	im.res.Events++
	return im.grew(len(ev.Payload))
}

// track notes the permissions the thread's events leave pending, and
// the time of its last event.
func (im *fileImporter) track(ev hub.Event) {
	if ev.At.After(im.lastAt) {
		im.lastAt = ev.At
	}
	im.trackElicitation(ev)
	if ev.Type != hub.EventPermissionRequired && ev.Type != hub.EventPermissionResolved {
		return
	}
	var pp struct {
		Permission *hub.Permission `json:"permission"`
	}
	if json.Unmarshal(ev.Payload, &pp) != nil || pp.Permission == nil || pp.Permission.ID == "" {
		return
	}
	if pp.Permission.Status == hub.PermissionPending {
		im.open[pp.Permission.ID] = *pp.Permission
	} else {
		delete(im.open, pp.Permission.ID)
	}
}

// replaceID replaces old by new wherever it is a whole JSON string in p.
// An id shorter than 8 bytes is left alone: no id the hub makes is, and
// a hostile export's "text" must not rename every "text" key.
func replaceID(p json.RawMessage, old, new string) json.RawMessage {
	if len(old) < 8 || old == new {
		return p
	}
	return bytes.ReplaceAll(p, []byte(strconv.Quote(old)), []byte(strconv.Quote(new)))
}

// grew counts a queued row and commits the queue when it is big enough.
func (im *fileImporter) grew(size int) error {
	im.wRows++
	im.wSize += size
	if im.wRows >= importBatchRows || im.wSize >= importBatchBytes {
		return im.flush()
	}
	return nil
}

// flush commits the queued rows (turns before events: one Write applies
// them in that order).
func (im *fileImporter) flush() error {
	if im.wRows == 0 {
		return nil
	}
	w := im.w
	im.w, im.wRows, im.wSize = hub.Write{}, 0, 0
	return im.e.commit(&w)
}

// undo deletes every thread this import stored (a failed import leaves
// nothing behind).
func (im *fileImporter) undo(ctx context.Context) {
	for _, id := range im.created {
		if err := im.e.deleteThread(ctx, im.c, id); err != nil {
			im.e.log.Warn("hub: undoing a failed import", "thread", id, "err", err)
		}
	}
}
