package httpapi

import (
	"net/url"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

func TestAgentSessionsEndpoints(t *testing.T) {
	h := newHarness(t)
	var page hub.AgentSessionPage
	h.mustJSON(h.call("GET", "/v1/agents/echo/sessions?cwd="+url.QueryEscape("/src/a b"), ""), 200, &page)
	if len(page.Sessions) != 1 || page.Sessions[0].SessionID != "s1" || page.NextCursor != "p2" || page.Sessions[0].ThreadID != "" {
		t.Fatalf("first page %+v", page)
	}
	page = hub.AgentSessionPage{}
	h.mustJSON(h.call("GET", "/v1/agents/echo/sessions?cwd=/src&cursor=p2", ""), 200, &page)
	if got := h.fake.lastSessionList; got != (fakeSessionCall{"echo", "/src", "p2"}) || page.NextCursor != "" || page.Sessions[0].SessionID != "s2" {
		t.Fatalf("second page %+v from %+v", page, got)
	}
	r := h.call("GET", "/v1/agents/gone/sessions?cwd=/src", "")
	if r.status != 400 || r.code() != hub.CodeInvalidArgument || !containsBytes(r.body, hub.ReasonSessionListUnsupported) {
		t.Errorf("agent without session/list: %d %s", r.status, r.body)
	}

	var first, again struct{ Thread hub.Thread }
	body := `{"agent":"echo","sessionId":"s1","cwd":"/src","title":"One"}`
	r = h.call("POST", "/v1/threads/import-session", body)
	h.mustJSON(r, 201, &first)
	if first.Thread.Imported == nil || first.Thread.Imported.SessionID != "s1" || first.Thread.Title != "One" {
		t.Fatalf("imported %+v", first.Thread)
	}
	h.mustJSON(h.call("POST", "/v1/threads/import-session", body), 200, &again)
	if again.Thread.ID != first.Thread.ID {
		t.Errorf("second import made %s, want %s", again.Thread.ID, first.Thread.ID)
	}
	h.mustJSON(h.call("GET", "/v1/agents/echo/sessions?cwd=/src", ""), 200, &page)
	if page.Sessions[0].ThreadID != first.Thread.ID {
		t.Errorf("listed %+v: want threadId %s", page.Sessions[0], first.Thread.ID)
	}
	if r := h.call("POST", "/v1/threads/import-session", `{"agent":"echo","sessionId":"s2","cwd":"rel"}`); r.status != 400 {
		t.Errorf("relative cwd: %d %s", r.status, r.body)
	}
	if r := h.call("POST", "/v1/threads/import-session", `{"agent":`); r.status != 400 {
		t.Errorf("malformed body: %d %s", r.status, r.body)
	}
	if r := h.call("GET", "/v1/agents/echo/sessions?cwd=/src", "", withHeader("X-Client-ID", "")); r.status != 400 {
		t.Errorf("no client id: %d", r.status)
	}
}

func containsBytes(b []byte, s string) bool { return strings.Contains(string(b), s) }
