//go:build unix

package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

func ids(ts []hub.Thread) map[string]bool {
	m := map[string]bool{}
	for _, t := range ts {
		m[t.ID] = true
	}
	return m
}

func (h *harness) query(archived string) map[string]bool {
	h.t.Helper()
	p, err := h.e.QueryThreads(context.Background(), alice, hub.ThreadQuery{Archived: archived})
	if err != nil {
		h.t.Fatal(err)
	}
	return ids(p.Threads)
}

// Archiving hides a thread from the default listing only, and cancels
// nothing: a turn waiting on a permission goes on, the permission stays
// pending and decides the turn afterwards.
func TestArchive(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	a, b, c := h.thread("fake"), h.thread("fake"), h.thread("fakeload")

	sub := h.watch(a)
	if _, err := h.e.StartTurn(ctx, alice, a.ID, hub.TurnInput{Input: "permission"}); err != nil {
		t.Fatal(err)
	}
	until(t, sub, hub.EventPermissionRequired)
	got, err := h.e.SetArchived(ctx, alice, a.ID, true)
	if err != nil || !got.Archived || got.Status != hub.ThreadRunning {
		t.Fatalf("SetArchived: %+v, %v; want archived and still running", got, err)
	}
	if ev := until(t, sub, hub.EventThreadUpdated); !payload[hub.Thread](t, ev, "thread").Archived {
		t.Errorf("thread_updated does not say archived: %s", ev.Payload)
	}
	if l := h.query(""); l[a.ID] || !l[b.ID] || !l[c.ID] {
		t.Errorf("default listing %v: want b and c only", l)
	}
	if l := h.query(hub.ArchivedOnly); !l[a.ID] || len(l) != 1 {
		t.Errorf("archived=true %v: want a only", l)
	}
	if l := h.query(hub.ArchivedAll); len(l) != 3 {
		t.Errorf("archived=all %v: want all three", l)
	}
	if _, err := h.e.QueryThreads(ctx, alice, hub.ThreadQuery{Archived: "yes"}); hub.ErrorCode(err) != hub.CodeInvalidArgument {
		t.Errorf("archived=yes: %v", err)
	}
	ps, err := h.e.ListPermissions(ctx, alice, hub.PermissionPending)
	if err != nil || len(ps) != 1 {
		t.Fatalf("pending permissions of the archived thread: %+v, %v", ps, err)
	}
	if _, err := h.e.DecidePermission(ctx, alice, ps[0].ID, hub.Decision{Outcome: "approved"}); err != nil {
		t.Fatal(err)
	}
	if tu := payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn"); tu.Status != hub.TurnCompleted {
		t.Errorf("the archived thread's turn ended %s", tu.Status)
	}

	// Bulk: by agent, then by idleness; those archived already are not
	// counted; another client's threads are never touched.
	bob := hub.Caller{ClientID: "bob"}
	bobs, err := h.e.CreateThread(ctx, bob, hub.CreateThreadRequest{Agent: "fakeload", Cwd: h.cwd})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := h.e.ArchiveThreads(ctx, alice, hub.ArchiveRequest{Agent: "fakeload"}); err != nil || r.Archived != 1 {
		t.Errorf("archive agent fakeload: %+v, %v; want 1", r, err)
	}
	long := time.Now().Add(-time.Hour)
	if r, err := h.e.ArchiveThreads(ctx, alice, hub.ArchiveRequest{IdleBefore: &long}); err != nil || r.Archived != 0 {
		t.Errorf("archive idle for an hour: %+v, %v; want 0", r, err)
	}
	soon := time.Now().Add(time.Minute)
	if r, err := h.e.ArchiveThreads(ctx, alice, hub.ArchiveRequest{Cwd: h.cwd, IdleBefore: &soon}); err != nil || r.Archived != 1 {
		t.Errorf("archive the rest: %+v, %v; want 1 (b)", r, err)
	}
	if l := h.query(""); len(l) != 0 {
		t.Errorf("left unarchived: %v", l)
	}
	if got, _ := h.e.GetThread(ctx, bob, bobs.ID); got.Archived {
		t.Error("bob's thread was archived by alice")
	}
	if got, err := h.e.SetArchived(ctx, alice, b.ID, false); err != nil || got.Archived {
		t.Errorf("unarchive: %+v, %v", got, err)
	}
	if _, err := h.e.SetArchived(ctx, alice, bobs.ID, true); hub.ErrorCode(err) != hub.CodeNotFound {
		t.Errorf("archiving another client's thread: %v, want NOT_FOUND", err)
	}
}

func (h *harness) export(id, format string) []byte {
	h.t.Helper()
	var buf bytes.Buffer
	if err := h.e.ExportThreads(context.Background(), alice, hub.ExportRequest{ThreadID: id, Format: format}, &buf); err != nil {
		h.t.Fatal(err)
	}
	return buf.Bytes()
}

func (h *harness) runTurn(th hub.Thread, input string, decide bool) {
	h.t.Helper()
	sub := h.watch(th)
	// The previous turn's end is announced just before the thread is free.
	waitUntil(h.t, "the thread to be free for a turn", func() bool {
		_, err := h.e.StartTurn(context.Background(), alice, th.ID, hub.TurnInput{Input: input})
		if err != nil && hub.ErrorCode(err) != hub.CodeConflict {
			h.t.Fatal(err)
		}
		return err == nil
	})
	if decide {
		ev := until(h.t, sub, hub.EventPermissionRequired)
		p := payload[hub.Permission](h.t, ev, "permission")
		if _, err := h.e.DecidePermission(context.Background(), alice, p.ID, hub.Decision{Outcome: "approved"}); err != nil {
			h.t.Fatal(err)
		}
	}
	until(h.t, sub, hub.EventTurnCompleted)
	sub.Close()
}

// A thread exported as JSON lines and imported again is the same
// conversation under new ids; the Markdown export reads as one.
func TestExportImportRoundTrip(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	th := h.thread("fake")
	h.runTurn(th, "echo hello there", false)
	h.runTurn(th, "tools", false)
	h.runTurn(th, "permission", true)

	md := string(h.export(th.ID, hub.ExportMarkdown))
	for _, want := range []string{"# " + th.Title, "**You:**\n\n> echo hello there", "**Agent:**\n\nhello there",
		"**Tool call:** Write hello.txt · edit · completed", "```diff\n--- ", "+hello\n", "Run make clean",
		"- Permission for Run make clean: **approved** by client:alice", "## Turn 3"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}

	jl := h.export(th.ID, hub.ExportJSONL)
	var first hub.ExportLine
	if err := json.Unmarshal(jl[:bytes.IndexByte(jl, '\n')], &first); err != nil || first.Schema != 1 || first.Thread == nil || first.Thread.ID != th.ID {
		t.Fatalf("first line %+v, %v", first, err)
	}
	res, err := h.e.ImportThreads(ctx, alice, hub.ImportRequest{}, bytes.NewReader(jl))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Threads) != 1 || res.Turns != 3 {
		t.Fatalf("import: %+v", res)
	}
	nt := res.Threads[0]
	if nt.ID == th.ID || nt.Title != th.Title || nt.Cwd != th.Cwd || nt.Agent != th.Agent || !nt.CreatedAt.Equal(th.CreatedAt) {
		t.Errorf("imported thread %+v, from %+v", nt, th)
	}
	orig, err := h.e.History(ctx, alice, th.ID, true, true)
	if err != nil {
		t.Fatal(err)
	}
	imp, err := h.e.History(ctx, alice, nt.ID, true, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(imp) != len(orig) {
		t.Fatalf("%d turns imported, %d exported", len(imp), len(orig))
	}
	var lastSeq int64
	for i := range orig {
		o, n := orig[i], imp[i]
		if n.ID == o.ID || n.ThreadID != nt.ID || n.Input != o.Input || n.Output != o.Output || n.Status != o.Status {
			t.Errorf("turn %d: %+v, from %+v", i, n.Turn, o.Turn)
		}
		var oe []hub.Event
		for _, e := range o.Events {
			if e.Type != hub.EventThreadUpdated {
				oe = append(oe, e)
			}
		}
		if len(n.Events) != len(oe) {
			t.Fatalf("turn %d: %d events imported, %d exported", i, len(n.Events), len(oe))
		}
		for j, e := range n.Events {
			if e.Seq <= lastSeq || e.Seq <= oe[j].Seq || e.Type != oe[j].Type || e.TurnID != n.ID || !e.At.Equal(oe[j].At) {
				t.Errorf("turn %d event %d: %+v from %+v", i, j, e, oe[j])
			}
			lastSeq = e.Seq
			if bytes.Contains(e.Payload, []byte(th.ID)) || bytes.Contains(e.Payload, []byte(o.ID)) {
				t.Errorf("imported event names the old ids: %s", e.Payload)
			}
			if e.Type == hub.EventPermissionResolved {
				p := payload[hub.Permission](t, e, "permission")
				if p.ThreadID != nt.ID || p.TurnID != n.ID || p.Status != hub.PermissionApproved || strings.HasPrefix(p.ID, "pm_") != true {
					t.Errorf("imported permission: %+v", p)
				}
			}
		}
	}
	// Imported permissions are history, not requests: none is pending.
	if ps, _ := h.e.ListPermissions(ctx, alice, hub.PermissionPending); len(ps) != 0 {
		t.Errorf("pending after import: %+v", ps)
	}
	// The imported thread exports the same Markdown, but for its id.
	md2 := strings.ReplaceAll(string(h.export(nt.ID, hub.ExportMarkdown)), nt.ID, th.ID)
	if md2 != md {
		t.Errorf("markdown of the imported thread differs:\n%s\n---\n%s", md2, md)
	}
}

// A folder's export holds all its threads; imported, it makes as many.
func TestExportFolder(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	a, b := h.thread("fake"), h.thread("fake")
	h.runTurn(a, "echo one", false)
	h.runTurn(b, "echo two", false)
	if _, err := h.e.SetArchived(ctx, alice, b.ID, true); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := h.e.ExportThreads(ctx, alice, hub.ExportRequest{Cwd: h.cwd, Format: hub.ExportJSONL}, &buf); err != nil {
		t.Fatal(err)
	}
	res, err := h.e.ImportThreads(ctx, alice, hub.ImportRequest{}, &buf)
	if err != nil || len(res.Threads) != 2 || res.Turns != 2 {
		t.Fatalf("import of the folder: %+v, %v", res, err)
	}
	if res.Threads[0].Archived || !res.Threads[1].Archived {
		t.Errorf("archived flags not kept, in order: %+v", res.Threads)
	}
	for _, req := range []hub.ExportRequest{{Cwd: "/nowhere", Format: "md"}, {ThreadID: "th_nope", Format: "md"}} {
		if err := h.e.ExportThreads(ctx, alice, req, &buf); hub.ErrorCode(err) != hub.CodeNotFound {
			t.Errorf("export %+v: %v, want NOT_FOUND", req, err)
		}
	}
	if err := h.e.ExportThreads(ctx, alice, hub.ExportRequest{ThreadID: a.ID, Format: "pdf"}, &buf); hub.ErrorCode(err) != hub.CodeInvalidArgument {
		t.Errorf("format pdf: %v", err)
	}
	if err := h.e.ExportThreads(ctx, hub.Caller{ClientID: "bob"}, hub.ExportRequest{ThreadID: a.ID, Format: "md"}, &buf); hub.ErrorCode(err) != hub.CodeNotFound {
		t.Errorf("bob exports alice's thread: %v", err)
	}
}

// Imports are untrusted: a newer schema names both versions, a bad line
// says which, the text is redacted, and a failed import leaves nothing.
func TestImportRefusesAndRedacts(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	secret := "ghp_" + strings.Repeat("aB3", 12)
	head := `{"schema":1,"thread":{"id":"th_0123456789","agent":"fake","cwd":"/tmp/x","title":"key ` + secret + `"}}`
	turn := `{"turn":{"id":"tu_0123456789","threadId":"th_0123456789","status":"running","input":"use ` + secret + `","output":""}}`
	ev := `{"event":{"seq":7,"type":"message_delta","threadId":"th_0123456789","turnId":"tu_0123456789","at":"2025-01-02T03:04:05Z","text":"here: ` + secret + `"}}`

	res, err := h.e.ImportThreads(ctx, alice, hub.ImportRequest{Cwd: t.TempDir()}, strings.NewReader(head+"\n"+turn+"\n"+ev+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	nt := res.Threads[0]
	hist, err := h.e.History(ctx, alice, nt.ID, true, false)
	if err != nil || len(hist) != 1 || len(hist[0].Events) != 1 {
		t.Fatalf("history %+v, %v", hist, err)
	}
	all := fmt.Sprintf("%s %s %s", nt.Title, hist[0].Input, hist[0].Events[0].Payload)
	if strings.Contains(all, secret) || strings.Count(all, "[REDACTED:") != 3 {
		t.Errorf("imported text not redacted: %s", all)
	}
	if hist[0].Status != hub.TurnInterrupted {
		t.Errorf("an imported running turn is %s, want interrupted", hist[0].Status)
	}
	if at := hist[0].Events[0].At; !at.Equal(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)) {
		t.Errorf("event time %v not kept", at)
	}

	before := h.query(hub.ArchivedAll)
	for name, body := range map[string]string{
		"newer schema": `{"schema":2,"thread":{"id":"th_0123456789"}}`,
		"no schema":    `{"thread":{"id":"th_0123456789"}}`,
		"event first":  ev,
		"not json":     head + "\n" + turn + "\n{nope\n",
		"empty":        "",
	} {
		_, err := h.e.ImportThreads(ctx, alice, hub.ImportRequest{Cwd: t.TempDir()}, strings.NewReader(body))
		var he *hub.Error
		if hub.ErrorCode(err) != hub.CodeInvalidArgument || !errorsAs(err, &he) {
			t.Errorf("%s: %v, want INVALID_ARGUMENT", name, err)
			continue
		}
		if name == "newer schema" && (!strings.Contains(he.Message, "schema 2") || !strings.Contains(he.Message, "schema 1") ||
			he.Details["reason"] != hub.ReasonSchemaTooNew || he.Details["supported"] != 1) {
			t.Errorf("newer schema: %+v", he)
		}
		if name == "not json" && he.Details["line"] != 3 {
			t.Errorf("not json: %+v, want line 3", he.Details)
		}
	}
	if after := h.query(hub.ArchivedAll); len(after) != len(before) {
		t.Errorf("failed imports left threads: %v, before %v", after, before)
	}
}

func errorsAs(err error, he **hub.Error) bool {
	e, ok := err.(*hub.Error)
	*he = e
	return ok
}

// A permission exported while it waited is imported as history, resolved
// (cancelled by the hub) at the end of the thread: nothing shows it as
// waiting for an answer that no agent would receive.
func TestImportClosesPendingPermissions(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	th := h.thread("fake")
	sub := h.watch(th)
	if _, err := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "permission"}); err != nil {
		t.Fatal(err)
	}
	until(t, sub, hub.EventPermissionRequired)
	jl := h.export(th.ID, hub.ExportJSONL) // the turn runs, the permission waits
	res, err := h.e.ImportThreads(ctx, alice, hub.ImportRequest{}, bytes.NewReader(jl))
	if err != nil {
		t.Fatal(err)
	}
	hist, err := h.e.History(ctx, alice, res.Threads[0].ID, true, false)
	if err != nil || len(hist) != 1 {
		t.Fatalf("history %+v %v", hist, err)
	}
	if hist[0].Status != hub.TurnInterrupted {
		t.Errorf("turn %s, want interrupted", hist[0].Status)
	}
	evs := hist[0].Events
	last := evs[len(evs)-1]
	p := payload[hub.Permission](t, last, "permission")
	if last.Type != hub.EventPermissionResolved || p.Status != hub.PermissionCancelled || p.DecidedBy != hub.DecidedByHub || p.ThreadID != res.Threads[0].ID {
		t.Errorf("last imported event %s %+v", last.Type, p)
	}
	// The original still waits; only it is pending.
	ps, _ := h.e.ListPermissions(ctx, alice, hub.PermissionPending)
	if len(ps) != 1 || ps[0].ThreadID != th.ID {
		t.Errorf("pending: %+v", ps)
	}
}
