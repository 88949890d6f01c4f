//go:build linux

package systest

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest"
	"github.com/switchboard-hub/switchboard/acp/acptest/fakemodel"
)

// TestE2EImportSessions imports the agent's own sessions (issue 16)
// through the real `switchboard serve`: a real agent's session (Qwen
// Code, offline) made by one hub is listed and imported by another, its
// history arriving and its turns going on in it; the fake agent pages,
// refuses session/list, and takes duplicate and concurrent imports.
func TestE2EImportSessions(t *testing.T) {
	bins := buildE2E(t)
	tests := []struct {
		name string
		run  func(*testing.T, e2eBins)
	}{
		{"Qwen", func(t *testing.T, bins e2eBins) { e2eImportReal(t, bins, "qwen", acptest.Qwen) }},
		{"OpenCode", func(t *testing.T, bins e2eBins) { e2eImportReal(t, bins, "opencode", acptest.OpenCode) }},
		{"Claude", func(t *testing.T, bins e2eBins) { e2eImportReal(t, bins, "claude", acptest.Claude) }},
		{"Fake", e2eImportFake},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.run(t, bins)
		})
	}
}

type apiAgentSession struct {
	SessionID string `json:"sessionId"`
	Cwd       string `json:"cwd"`
	Title     string `json:"title"`
	UpdatedAt string `json:"updatedAt"`
	ThreadID  string `json:"threadId"`
}

type apiSessionPage struct {
	Sessions   []apiAgentSession `json:"sessions"`
	NextCursor string            `json:"nextCursor"`
}

type apiImported struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Imported *struct {
		SessionID string `json:"sessionId"`
		History   string `json:"history"`
	} `json:"imported"`
}

func (h *hubProc) agentSessions(agent, cwd, cursor string) apiSessionPage {
	h.t.Helper()
	q := url.Values{"cwd": {cwd}}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	var p apiSessionPage
	h.call("GET", "/v1/agents/"+agent+"/sessions?"+q.Encode(), nil, 200, &p)
	return p
}

func (h *hubProc) importSession(agent, sessionID, cwd string, want int) apiImported {
	h.t.Helper()
	var r struct{ Thread apiImported }
	h.call("POST", "/v1/threads/import-session", map[string]string{"agent": agent, "sessionId": sessionID, "cwd": cwd}, want, &r)
	return r.Thread
}

// A real agent's session (Qwen Code, OpenCode, Claude Code: each lists
// its sessions and loads them) made through one hub is imported by
// another hub (a fresh data dir, the same agent and HOME): its history
// comes from session/load, a second import finds the thread, and a turn in
// it — also after the hub restarts — continues the agent's session (the
// model sees the earlier exchange).
func e2eImportReal(t *testing.T, bins e2eBins, id string, start func(testing.TB, string, string) acptest.RealAgent) {
	model := fakemodel.Start(t)
	model.SetSide(fakemodel.NoTools, fakemodel.Text(`{"title":"Fake session"}`))
	ra := start(t, acptest.ToolsDir(t), model.URL)
	cfg := hubConfig{"agents": map[string]agentConf{id: realAgentConf(id, ra)}}
	const slow = 120 * time.Second
	cwd := t.TempDir()

	first := newHub(t, bins, cfg)
	th := first.newThread(id, cwd)
	model.Push(fakemodel.Text("The first answer is fennel."))
	tu := first.startTurn(th.ID, "Tell me about herbs.")
	if done := first.waitTurn(th.ID, tu.ID, slow); done.Status != "completed" {
		t.Fatalf("first hub's turn %+v", done)
	}
	first.stop()

	h := newHub(t, bins, cfg)
	listStart := time.Now()
	page := h.agentSessions(id, cwd, "")
	listTook := time.Since(listStart)
	var sid string
	for _, s := range page.Sessions {
		if s.ThreadID != "" {
			t.Errorf("session %+v bound to a thread in a fresh hub", s)
		}
		sid = s.SessionID
	}
	if len(page.Sessions) != 1 || sid == "" {
		t.Fatalf("%s listed %+v in %s, want the one session", id, page, cwd)
	}
	t.Logf("%s listed %+v", id, page.Sessions[0])
	importStart := time.Now()
	imp := h.importSession(id, sid, cwd, 201)
	t.Logf("%s: listing took %v (an agent start and session/list), the import %v (a start and session/load)", id, listTook.Round(time.Millisecond), time.Since(importStart).Round(time.Millisecond))
	if imp.Imported == nil || imp.Imported.SessionID != sid || imp.Imported.History != "stored" {
		t.Fatalf("imported %+v", imp)
	}
	hist := h.history(imp.ID, true)
	if len(hist) == 0 || !strings.Contains(hist[0].Input, "Tell me about herbs.") || !strings.Contains(hist[len(hist)-1].Output, "The first answer is fennel.") {
		t.Fatalf("imported history %+v", hist)
	}
	if again := h.importSession(id, sid, cwd, 200); again.ID != imp.ID {
		t.Errorf("second import %s, want %s", again.ID, imp.ID)
	}
	if p := h.agentSessions(id, cwd, ""); len(p.Sessions) != 1 || p.Sessions[0].ThreadID != imp.ID {
		t.Errorf("listed after import %+v, want threadId %s", p, imp.ID)
	}

	turnSees := func(h *hubProc, answer string) {
		t.Helper()
		model.Push(fakemodel.Text(answer))
		tu := h.startTurn(imp.ID, "And then?")
		done := h.waitTurn(imp.ID, tu.ID, slow)
		if done.Status != "completed" || !strings.Contains(done.Output, answer) {
			t.Fatalf("turn in the imported thread %+v", done)
		}
		reqs := model.ModelRequests(false)
		if last := reqs[len(reqs)-1]; !last.Contains("The first answer is fennel.") {
			t.Errorf("the model's request for %q lacks the imported exchange: the agent's session was not continued", answer)
		}
	}
	turnSees(h, "Continued in the imported session.")
	h.stop()
	h.start()
	turnSees(h, "Continued after a restart.")
}

// The fake agent: paging with its cursor, an untrusted title shown as
// cleaned text, session/list refused by an agent without it, a session
// imported twice and concurrently (one thread), a turn after a restart.
func e2eImportFake(t *testing.T, bins e2eBins) {
	cwd := t.TempDir()
	var seeded []map[string]any
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		seeded = append(seeded, map[string]any{"sessionId": "sess-" + id, "cwd": cwd, "title": "Session " + id,
			"updatedAt": "2026-11-2" + string(rune('0'+len(seeded))) + "T08:00:00Z", "history": [][2]string{{"question " + id, "answer " + id}}})
	}
	seeded[4]["title"] = "<script>alert(1)</script>\x07" + strings.Repeat("x", 300)
	b, _ := json.Marshal(seeded)
	file := filepath.Join(t.TempDir(), "sessions.json")
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	h := newHub(t, bins, hubConfig{"agents": map[string]agentConf{
		"lister": fakeAgentConf(t, "FAKEAGENT_SESSION_CAPS=1", "FAKEAGENT_LOAD_SESSION=1", "FAKEAGENT_LIST_PAGE=2", "FAKEAGENT_SESSIONS="+file),
		"fake":   fakeAgentConf(t),
	}})

	var all []apiAgentSession
	cursor := ""
	for range 5 {
		p := h.agentSessions("lister", cwd, cursor)
		all = append(all, p.Sessions...)
		if cursor = p.NextCursor; cursor == "" {
			break
		}
	}
	if len(all) != 5 || cursor != "" || all[0].SessionID != "sess-a" || all[4].SessionID != "sess-e" || all[0].UpdatedAt != "2026-11-20T08:00:00Z" {
		t.Fatalf("paged %+v", all)
	}
	if ti := all[4].Title; len([]rune(ti)) != 200 || strings.ContainsRune(ti, '\x07') || !strings.HasPrefix(ti, "<script>") {
		t.Errorf("untrusted title %q: want it capped, cleaned, as text", ti)
	}

	r := h.do("GET", "/v1/agents/fake/sessions?cwd="+url.QueryEscape(cwd), nil)
	if r.status != 400 || !strings.Contains(string(r.body), "SESSION_LIST_UNSUPPORTED") {
		t.Errorf("agent without session/list: %s", r)
	}
	if r := h.do("GET", "/v1/agents/lister/sessions?cwd=relative", nil); r.status != 400 {
		t.Errorf("relative cwd: %s", r)
	}

	imp := h.importSession("lister", "sess-b", cwd, 201)
	if hist := h.history(imp.ID, false); len(hist) != 1 || hist[0].Input != "question b" || hist[0].Output != "answer b" {
		t.Fatalf("imported history %+v", hist)
	}
	h.importSession("lister", "sess-b", cwd, 200)

	const n = 8
	var wg sync.WaitGroup
	statuses := make([]int, n)
	ids := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := h.do("POST", "/v1/threads/import-session", map[string]string{"agent": "lister", "sessionId": "sess-c", "cwd": cwd})
			var out struct{ Thread apiImported }
			json.Unmarshal(r.body, &out)
			statuses[i], ids[i] = r.status, out.Thread.ID
		}()
	}
	wg.Wait()
	created := 0
	for i := range n {
		if statuses[i] == 201 {
			created++
		} else if statuses[i] != 200 {
			t.Errorf("concurrent import %d: %d", i, statuses[i])
		}
		if ids[i] != ids[0] || ids[i] == "" {
			t.Errorf("concurrent imports made threads %q and %q", ids[0], ids[i])
		}
	}
	if created != 1 {
		t.Errorf("%d concurrent imports answered 201, want 1", created)
	}

	h.stop()
	h.start()
	tu := h.startTurn(imp.ID, "echo after the restart")
	if done := h.waitTurn(imp.ID, tu.ID, 60*time.Second); done.Status != "completed" || done.Output != "after the restart" {
		t.Fatalf("turn in the imported thread after a restart %+v", done)
	}
	if p := h.agentSessions("lister", cwd, ""); p.Sessions[1].ThreadID != imp.ID {
		t.Errorf("after the restart sess-b lists %+v, want threadId %s", p.Sessions[1], imp.ID)
	}
}
