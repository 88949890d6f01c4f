//go:build unix

package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/acp/acptest"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/engine"
)

// seedSessions writes FAKEAGENT_SESSIONS' file and returns its env entry.
func seedSessions(t *testing.T, sessions []map[string]any) string {
	t.Helper()
	b, err := json.Marshal(sessions)
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "sessions.json")
	if err := os.WriteFile(f, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return "FAKEAGENT_SESSIONS=" + f
}

func wantReason(t *testing.T, err error, code, reason string) {
	t.Helper()
	var herr *hub.Error
	if !errors.As(err, &herr) || herr.Code != code || (reason != "" && herr.Details["reason"] != reason) {
		t.Fatalf("error %#v: want %s with reason %q", err, code, reason)
	}
}

// The agent's sessions are listed a page at a time with its cursor, what
// it sends is cleaned, and a session imported with session/load becomes a
// thread whose history is the replay: stored, redacted, searchable. A
// second import finds it; concurrent imports make one thread; another
// client gets CONFLICT; a turn continues the agent's session.
func TestImportAgentSessions(t *testing.T) {
	cwd := t.TempDir()
	other := t.TempDir()
	secret := "ghp_" + strings.Repeat("s3c", 12)
	hostile := "<img src=x onerror=alert(1)>\x1b[31m\u202e" + strings.Repeat("long ", 100)
	seed := seedSessions(t, []map[string]any{
		{"sessionId": "s1", "cwd": cwd, "title": "Fix the parser", "updatedAt": "2026-11-20T10:00:00Z",
			"history": [][2]string{{"first question", "first answer"}, {"my token is " + secret, "noted zebrafish"}}},
		{"sessionId": "s2", "cwd": cwd, "title": hostile, "updatedAt": "not a time", "history": [][2]string{{"q", "a"}}},
		{"sessionId": "bad\nid", "cwd": cwd, "title": "dropped"},
		{"sessionId": "s3", "cwd": cwd, "title": "Three"},
		{"sessionId": "s4", "cwd": cwd, "title": "Four"},
		{"sessionId": "elsewhere", "cwd": other, "title": "Other folder"},
	})
	record := filepath.Join(t.TempDir(), "record.jsonl")
	h := newClockHarness(t, func(c *engine.Config) { c.AgentIdleTimeout = 300 * time.Millisecond },
		fakeSpec(t, "lister", "FAKEAGENT_SESSION_CAPS=1", "FAKEAGENT_LOAD_SESSION=1", "FAKEAGENT_LIST_PAGE=2", "FAKEAGENT_RECORD="+record, seed),
		fakeSpec(t, "fake"))
	ctx := context.Background()

	var all []hub.AgentSession
	cursor, pages := "", 0
	for {
		page, err := h.e.ListAgentSessions(ctx, alice, "lister", cwd, cursor)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		all = append(all, page.Sessions...)
		if cursor = page.NextCursor; cursor == "" {
			break
		}
		if pages > 10 {
			t.Fatal("paging never ends")
		}
	}
	var ids []string
	for _, s := range all {
		ids = append(ids, s.SessionID)
	}
	// Five in cwd, two a page: three pages; the bad id is dropped.
	if pages != 3 || strings.Join(ids, ",") != "s1,s2,s3,s4" {
		t.Fatalf("%d pages, sessions %v", pages, ids)
	}
	if all[0].Title != "Fix the parser" || all[0].UpdatedAt == nil || !all[0].UpdatedAt.Equal(time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)) || all[0].Cwd != cwd {
		t.Errorf("session %+v", all[0])
	}
	if s := all[1]; s.UpdatedAt != nil || utf8.RuneCountInString(s.Title) != 200 || strings.ContainsAny(s.Title, "\x1b\u202e") || !strings.HasPrefix(s.Title, "<img src=x onerror=alert(1)>") {
		t.Errorf("hostile session shown as %+v: want the title as plain text, cleaned, 200 runes", s)
	}

	th, created, err := importSession(h.e, ctx, alice, hub.ImportSessionRequest{Agent: "lister", SessionID: "s1", Cwd: cwd, Title: all[0].Title})
	if err != nil || !created {
		t.Fatalf("import: %v, created %v", err, created)
	}
	if th.Imported == nil || th.Imported.SessionID != "s1" || th.Imported.History != hub.ImportedHistoryStored || th.Title != "Fix the parser" || th.Cwd != cwd {
		t.Fatalf("imported thread %+v (imported %+v)", th, th.Imported)
	}
	hist, err := h.e.History(ctx, alice, th.ID, true, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 2 || hist[0].Input != "first question" || hist[0].Output != "first answer" || hist[1].Output != "noted zebrafish" || hist[0].Status != hub.TurnCompleted {
		t.Fatalf("imported history %+v", hist)
	}
	if strings.Contains(hist[1].Input, secret) || !strings.Contains(hist[1].Input, "[REDACTED") {
		t.Errorf("imported input %q: want the token redacted", hist[1].Input)
	}
	var ty []string
	for _, ev := range hist[0].Events {
		ty = append(ty, ev.Type)
	}
	if got := strings.Join(ty, ","); got != "turn_started,message_delta,turn_completed" {
		t.Errorf("imported turn's events %s", got)
	}
	waitUntil(t, "the imported history to be searchable", func() bool {
		res, err := h.e.Search(ctx, alice, hub.SearchQuery{Q: "zebrafish"})
		return err == nil && len(res.Hits) == 1 && res.Hits[0].ThreadID == th.ID
	})

	t.Run("twice", func(t *testing.T) {
		again, created, err := importSession(h.e, ctx, alice, hub.ImportSessionRequest{Agent: "lister", SessionID: "s1", Cwd: cwd})
		if err != nil || created || again.ID != th.ID {
			t.Fatalf("second import: %v, created %v, thread %s want %s", err, created, again.ID, th.ID)
		}
		page, err := h.e.ListAgentSessions(ctx, alice, "lister", cwd, "")
		if err != nil || page.Sessions[0].ThreadID != th.ID || page.Sessions[1].ThreadID != "" {
			t.Fatalf("list after import %+v, %v: want s1 bound to %s", page.Sessions, err, th.ID)
		}
	})
	t.Run("concurrently", func(t *testing.T) {
		const n = 6
		var wg sync.WaitGroup
		got := make([]hub.Thread, n)
		made := make([]bool, n)
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got[i], made[i], errs[i] = importSession(h.e, ctx, alice, hub.ImportSessionRequest{Agent: "lister", SessionID: "s3", Cwd: cwd})
			}()
		}
		wg.Wait()
		createdN := 0
		for i := range n {
			if errs[i] != nil {
				t.Fatalf("import %d: %v", i, errs[i])
			}
			if made[i] {
				createdN++
			}
			if got[i].ID != got[0].ID {
				t.Errorf("imports made threads %s and %s", got[0].ID, got[i].ID)
			}
		}
		if createdN != 1 {
			t.Errorf("%d imports created a thread, want 1", createdN)
		}
	})
	t.Run("other client", func(t *testing.T) {
		bob := hub.Caller{ClientID: "bob"}
		page, err := h.e.ListAgentSessions(ctx, bob, "lister", cwd, "")
		if err != nil || page.Sessions[0].ThreadID != "" {
			t.Fatalf("bob's list %+v, %v: alice's thread shown", page.Sessions, err)
		}
		_, _, err = importSession(h.e, ctx, bob, hub.ImportSessionRequest{Agent: "lister", SessionID: "s1", Cwd: cwd})
		wantReason(t, err, hub.CodeConflict, hub.ReasonSessionAlreadyImported)
	})
	t.Run("a turn continues the session", func(t *testing.T) {
		sub, err := h.e.Subscribe(ctx, alice, th.ID, -1) // after the replayed turns
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Close()
		if got := h.run(th, sub, "echo carried on"); got.Status != hub.TurnCompleted || got.Output != "carried on" {
			t.Fatalf("turn in the imported thread %+v", got)
		}
		waitIdleStop(t, h, th) // the idle timer stops the agent
		if got := h.run(th, sub, "echo and on"); got.Output != "and on" {
			t.Fatalf("turn after the agent stopped %+v", got)
		}
		b, _ := os.ReadFile(record)
		var loads []string
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var r struct {
				Method string
				Params struct{ SessionID string }
			}
			json.Unmarshal([]byte(line), &r)
			if (r.Params.SessionID == "s1" && r.Method != "session/close") || r.Method == "session/new" {
				loads = append(loads, r.Method+" "+r.Params.SessionID)
			}
		}
		// Imported by session/load; reopened (once or more: the idle timer
		// is short, and closes it) by session/resume, preferred when
		// advertised; never a new session.
		ok := len(loads) >= 2 && loads[0] == "session/load s1"
		for _, l := range loads[min(1, len(loads)):] {
			ok = ok && l == "session/resume s1"
		}
		if !ok {
			t.Errorf("the agent saw %s", strings.Join(loads, ","))
		}
		hist, _ := h.e.History(ctx, alice, th.ID, false, false)
		if len(hist) != 4 {
			t.Errorf("%d turns after two more, want 4", len(hist))
		}
	})
	t.Run("deleted thread frees the session", func(t *testing.T) {
		th2, created, err := importSession(h.e, ctx, alice, hub.ImportSessionRequest{Agent: "lister", SessionID: "s4", Cwd: cwd})
		if err != nil || !created {
			t.Fatal(err)
		}
		if err := h.e.DeleteThread(ctx, alice, th2.ID); err != nil {
			t.Fatal(err)
		}
		th3, created, err := importSession(h.e, ctx, alice, hub.ImportSessionRequest{Agent: "lister", SessionID: "s4", Cwd: cwd})
		if err != nil || !created || th3.ID == th2.ID {
			t.Fatalf("import after delete: %v, created %v", err, created)
		}
	})
	t.Run("bad requests", func(t *testing.T) {
		for name, req := range map[string]hub.ImportSessionRequest{
			"relative cwd":   {Agent: "lister", SessionID: "s2", Cwd: "rel"},
			"missing folder": {Agent: "lister", SessionID: "s2", Cwd: filepath.Join(cwd, "nope")},
			"control id":     {Agent: "lister", SessionID: "s\x002", Cwd: cwd},
			"empty id":       {Agent: "lister", Cwd: cwd},
			"long id":        {Agent: "lister", SessionID: strings.Repeat("x", 600), Cwd: cwd},
			"unknown agent":  {Agent: "nobody", SessionID: "s2", Cwd: cwd},
		} {
			if _, _, err := importSession(h.e, ctx, alice, req); hub.ErrorCode(err) != hub.CodeInvalidArgument {
				t.Errorf("%s: %v, want INVALID_ARGUMENT", name, err)
			}
		}
		if _, err := h.e.ListAgentSessions(ctx, alice, "lister", "rel", ""); hub.ErrorCode(err) != hub.CodeInvalidArgument {
			t.Errorf("relative cwd listed: %v", err)
		}
		if _, err := h.e.ListAgentSessions(ctx, alice, "lister", cwd, "99"); hub.ErrorCode(err) != hub.CodeUpstreamUnavailable {
			t.Errorf("a cursor the agent refuses: %v, want UPSTREAM_UNAVAILABLE", err)
		}
	})
	t.Run("no session/list", func(t *testing.T) {
		_, err := h.e.ListAgentSessions(ctx, alice, "fake", cwd, "")
		wantReason(t, err, hub.CodeInvalidArgument, hub.ReasonSessionListUnsupported)
		// Known now (its initialize is remembered): refused at once.
		_, err = h.e.ListAgentSessions(ctx, alice, "fake", cwd, "")
		wantReason(t, err, hub.CodeInvalidArgument, hub.ReasonSessionListUnsupported)
		_, _, err = importSession(h.e, ctx, alice, hub.ImportSessionRequest{Agent: "fake", SessionID: "x", Cwd: cwd})
		wantReason(t, err, hub.CodeInvalidArgument, hub.ReasonSessionImportUnsupported)
		page, _ := h.e.ListThreads(ctx, alice, 100, "")
		for _, t2 := range page.Threads {
			if t2.Agent == "fake" {
				t.Errorf("a refused import left thread %+v", t2)
			}
		}
	})
}

// An agent with session/resume but no session/load: the imported thread
// has no stored history ("kept by the agent") and its turns go on in the
// agent's session.
func TestImportResumeOnly(t *testing.T) {
	cwd := t.TempDir()
	seed := seedSessions(t, []map[string]any{{"sessionId": "r1", "cwd": cwd, "title": "Resumable", "history": [][2]string{{"old", "older"}}}})
	h := newHarness(t, nil, fakeSpec(t, "resumer", "FAKEAGENT_SESSION_CAPS=1", seed))
	ctx := context.Background()
	th, created, err := importSession(h.e, ctx, alice, hub.ImportSessionRequest{Agent: "resumer", SessionID: "r1", Cwd: cwd})
	if err != nil || !created || th.Imported == nil || th.Imported.History != hub.ImportedHistoryAgent {
		t.Fatalf("import %+v, %v, %v", th, created, err)
	}
	if hist, _ := h.e.History(ctx, alice, th.ID, false, false); len(hist) != 0 {
		t.Fatalf("resume-only import stored %d turns", len(hist))
	}
	sub := h.watch(th)
	if got := h.run(th, sub, "echo resumed"); got.Output != "resumed" {
		t.Fatalf("turn %+v", got)
	}
}

// A hub at its process limit answers a listing 429 instead of starting
// another process, when no idle agent can be evicted.
func TestListSessionsProcessLimit(t *testing.T) {
	cwd := t.TempDir()
	h := newHarness(t, func(c *engine.Config) { c.MaxAgentProcesses = 1 },
		fakeSpec(t, "lister", "FAKEAGENT_SESSION_CAPS=1"), fakeSpec(t, "fake"))
	th := h.thread("fake")
	sub := h.watch(th)
	if _, err := h.e.StartTurn(context.Background(), alice, th.ID, hub.TurnInput{Input: "hang"}); err != nil {
		t.Fatal(err)
	}
	until(t, sub, hub.EventTurnStarted)
	_, err := h.e.ListAgentSessions(context.Background(), alice, "lister", cwd, "")
	if hub.ErrorCode(err) != hub.CodeTooManyRequests {
		t.Fatalf("list at the limit: %v, want TOO_MANY_REQUESTS", err)
	}
}

// importSession is ImportSession's answer as three values.
func importSession(e *engine.Engine, ctx context.Context, c hub.Caller, req hub.ImportSessionRequest) (hub.Thread, bool, error) {
	r, err := e.ImportSession(ctx, c, req)
	return r.Thread, r.Created, err
}

// An agent that refuses the session (here: it wants a sign-in first) fails
// the import with UPSTREAM_UNAVAILABLE, and no thread stays behind.
func TestImportRefusedLeavesNothing(t *testing.T) {
	cwd := t.TempDir()
	h := newHarness(t, nil, fakeSpec(t, "authy", "FAKEAGENT_SESSION_CAPS=1", "FAKEAGENT_LOAD_SESSION=1", "FAKEAGENT_AUTH_REQUIRED=1"))
	ctx := context.Background()
	sub, err := h.e.Subscribe(ctx, alice, "", -1)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	_, _, err = importSession(h.e, ctx, alice, hub.ImportSessionRequest{Agent: "authy", SessionID: "x1", Cwd: cwd})
	if hub.ErrorCode(err) != hub.CodeUpstreamUnavailable {
		t.Fatalf("import of a refused session: %v, want UPSTREAM_UNAVAILABLE", err)
	}
	if page, _ := h.e.ListThreads(ctx, alice, 100, ""); len(page.Threads) != 0 {
		t.Fatalf("a failed import left %+v", page.Threads)
	}
	// Announced, then announced deleted: a client that saw it drops it.
	ev := until(t, sub, hub.EventThreadUpdated)
	var p struct{ Deleted bool }
	json.Unmarshal(ev.Payload, &p)
	if !p.Deleted {
		ev = until(t, sub, hub.EventThreadUpdated)
		json.Unmarshal(ev.Payload, &p)
	}
	if !p.Deleted {
		t.Errorf("no deletion announced for the failed import's thread: %s", ev.Payload)
	}
	// The session is free again: a later import may try once more.
	_, _, err = importSession(h.e, ctx, alice, hub.ImportSessionRequest{Agent: "authy", SessionID: "x1", Cwd: cwd})
	if hub.ErrorCode(err) != hub.CodeUpstreamUnavailable {
		t.Fatalf("second try: %v", err)
	}
}

// TestListingPagesShareOneProcess: paging through an agent's sessions asks
// one agent process for every page (importing used to start one per
// page). The idle lister holds its slot only until someone needs it: at a
// limit of one process, a thread's turn takes the slot, and the next
// listing starts a process again.
func TestListingPagesShareOneProcess(t *testing.T) {
	cwd := t.TempDir()
	starts := filepath.Join(t.TempDir(), "starts")
	var sessions []map[string]any
	for _, id := range []string{"s1", "s2", "s3", "s4", "s5"} {
		sessions = append(sessions, map[string]any{"sessionId": id, "cwd": cwd, "title": "Session " + id})
	}
	path, args, env := acptest.FakeAgentArgv(t, "FAKEAGENT_SESSION_CAPS=1", "FAKEAGENT_LIST_PAGE=2", seedSessions(t, sessions))
	lister := acp.AgentSpec{ID: "lister", Name: "Fake lister", Command: acp.Command{
		Path: "/bin/sh", Args: append([]string{"-c", `echo started >>"$STARTS"; exec "$0" "$@"`, path}, args...),
		Env: append(env, "STARTS="+starts)}}
	h := newHarness(t, func(c *engine.Config) { c.MaxAgentProcesses = 1 }, lister, fakeSpec(t, "fake"))
	ctx := context.Background()
	processes := func() int { b, _ := os.ReadFile(starts); return strings.Count(string(b), "started\n") }
	list := func() (ids []string) {
		t.Helper()
		for cursor, pages := "", 0; ; pages++ {
			page, err := h.e.ListAgentSessions(ctx, alice, "lister", cwd, cursor)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range page.Sessions {
				ids = append(ids, s.SessionID)
			}
			if cursor = page.NextCursor; cursor == "" || pages > 10 {
				return ids
			}
		}
	}
	if ids := list(); strings.Join(ids, ",") != "s1,s2,s3,s4,s5" {
		t.Fatalf("listed %v", ids)
	}
	if n := processes(); n != 1 {
		t.Fatalf("three pages started %d agent processes, want 1", n)
	}

	th := h.thread("fake")
	sub := h.watch(th)
	if _, err := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "echo hi"}); err != nil {
		t.Fatalf("a turn at the limit, the lister idle: %v", err)
	}
	if turn := payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn"); turn.Status != hub.TurnCompleted {
		t.Fatalf("turn %+v", turn)
	}
	if ids := list(); len(ids) != 5 || processes() != 2 {
		t.Fatalf("listing again: %v, %d processes started in all, want 2", ids, processes())
	}
}
