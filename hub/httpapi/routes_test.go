package httpapi

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

func TestHealthz(t *testing.T) {
	h := newHarness(t)
	r := h.call("GET", "/healthz", "", noToken, withHeader("X-Client-ID", ""))
	if r.status != 200 || strings.TrimSpace(string(r.body)) != `{"ok":true,"version":"1.2.3-test"}` {
		t.Fatalf("%d %s", r.status, r.body)
	}
}

func TestUnknownRoutes(t *testing.T) {
	h := newHarness(t)
	for _, c := range []struct{ method, path string }{
		{"GET", "/v1/nope"},
		{"GET", "/v1/"},
		{"POST", "/v1/agents"},
		{"PUT", "/v1/threads/x"},
		{"OPTIONS", "/v1/threads"},
		{"GET", "/v1/threads/x/turns"},
		{"POST", "/healthz"},
		{"DELETE", "/"},
		{"PATCH", "/anything"},
	} {
		r := h.call(c.method, c.path, "")
		if r.status != 404 || r.code() != "NOT_FOUND" || r.header.Get("Content-Type") != "application/json" {
			t.Fatalf("%s %s: %d %s", c.method, c.path, r.status, r.body)
		}
	}
	// Unknown /v1 paths still need the token.
	if r := h.call("GET", "/v1/nope", "", noToken); r.status != 401 {
		t.Fatalf("unknown path without token: %d", r.status)
	}
}

func TestAgents(t *testing.T) {
	h := newHarness(t)
	var a struct{ Agents []hub.Agent }
	h.mustJSON(h.call("GET", "/v1/agents", ""), 200, &a)
	if len(a.Agents) != 2 || a.Agents[0].ID != "echo" || a.Agents[1].Reason != "not installed" {
		t.Fatalf("%+v", a.Agents)
	}
}

func TestThreadLifecycle(t *testing.T) {
	h := newHarness(t)
	r := h.call("POST", "/v1/threads", `{"agent":"echo","cwd":"/src/app","title":"Fix it"}`)
	var created struct{ Thread hub.Thread }
	h.mustJSON(r, 201, &created)
	th := created.Thread
	if th.ID == "" || th.Title != "Fix it" || th.ClientID != "c1" || th.Status != "idle" || th.Cwd != "/src/app" {
		t.Fatalf("%+v", th)
	}
	if loc := r.header.Get("Location"); loc != "/v1/threads/"+th.ID {
		t.Fatalf("Location %q", loc)
	}
	// The wire form has exactly the contract's fields.
	var raw map[string]map[string]any
	_ = json.Unmarshal(r.body, &raw)
	for _, k := range []string{"id", "agent", "cwd", "title", "clientId", "status", "createdAt", "updatedAt"} {
		if _, ok := raw["thread"][k]; !ok {
			t.Fatalf("thread lacks %q: %s", k, r.body)
		}
	}

	var got struct{ Thread hub.Thread }
	h.mustJSON(h.call("GET", "/v1/threads/"+th.ID, ""), 200, &got)
	if got.Thread.ID != th.ID {
		t.Fatalf("%+v", got)
	}
	h.mustJSON(h.call("PATCH", "/v1/threads/"+th.ID, `{"title":"Renamed"}`), 200, &got)
	if got.Thread.Title != "Renamed" {
		t.Fatalf("%+v", got)
	}
	if r := h.call("PATCH", "/v1/threads/"+th.ID, `{}`); r.status != 400 {
		t.Fatalf("PATCH without title: %d", r.status)
	}
	h.mustJSON(h.call("POST", "/v1/threads/"+th.ID+"/compact", ""), 200, &got)
	if got.Thread.ID != th.ID {
		t.Fatalf("compact: %+v", got)
	}
	r = h.call("DELETE", "/v1/threads/"+th.ID, "")
	if r.status != 204 || len(r.body) != 0 {
		t.Fatalf("DELETE: %d %q", r.status, r.body)
	}
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/v1/threads/" + th.ID, ""},
		{"PATCH", "/v1/threads/" + th.ID, `{"title":"x"}`},
		{"DELETE", "/v1/threads/" + th.ID, ""},
		{"POST", "/v1/threads/" + th.ID + "/compact", ""},
		{"GET", "/v1/threads/" + th.ID + "/history", ""},
		{"POST", "/v1/threads/" + th.ID + "/turns", `{"input":"hi"}`},
		{"GET", "/v1/threads/" + th.ID + "/events", ""},
		{"POST", "/v1/threads/" + th.ID + "/mode", `{"modeId":"plan"}`},
		{"POST", "/v1/threads/" + th.ID + "/config-option", `{"configId":"model","value":"large"}`},
	} {
		if r := h.call(c.method, c.path, c.body); r.status != 404 || r.code() != "NOT_FOUND" {
			t.Fatalf("%s %s after delete: %d %s", c.method, c.path, r.status, r.body)
		}
	}
}

func TestCreateThreadInvalid(t *testing.T) {
	h := newHarness(t)
	for _, body := range []string{`{"agent":"nope","cwd":"/tmp"}`, `{"agent":"echo","cwd":"relative/dir"}`, `{"agent":"echo"}`} {
		if r := h.call("POST", "/v1/threads", body); r.status != 400 || r.code() != "INVALID_ARGUMENT" {
			t.Fatalf("%s: %d %s", body, r.status, r.body)
		}
	}
}

func TestListThreadsPaging(t *testing.T) {
	h := newHarness(t)
	var ids []string
	for i := 0; i < 5; i++ {
		ids = append(ids, h.newThread("c1"))
	}
	h.newThread("c2")
	var page struct {
		Threads    []hub.Thread
		NextCursor string
	}
	h.mustJSON(h.call("GET", "/v1/threads?limit=2", ""), 200, &page)
	if len(page.Threads) != 2 || page.Threads[0].ID != ids[4] || page.Threads[1].ID != ids[3] || page.NextCursor == "" {
		t.Fatalf("first page %+v", page)
	}
	var seen []string
	for cursor := ""; ; {
		page.NextCursor = ""
		h.mustJSON(h.call("GET", "/v1/threads?limit=2&cursor="+cursor, ""), 200, &page)
		for _, th := range page.Threads {
			seen = append(seen, th.ID)
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	if strings.Join(seen, ",") != strings.Join([]string{ids[4], ids[3], ids[2], ids[1], ids[0]}, ",") {
		t.Fatalf("pages %v", seen)
	}
	for _, bad := range []string{"0", "-1", "x", "1.5"} {
		if r := h.call("GET", "/v1/threads?limit="+bad, ""); r.status != 400 {
			t.Fatalf("limit=%s: %d", bad, r.status)
		}
	}
	r := h.call("GET", "/v1/threads", "", withHeader("X-Client-ID", "nobody"))
	if r.status != 200 || !strings.Contains(string(r.body), `"threads":[]`) {
		t.Fatalf("empty list: %s", r.body)
	}
}

func TestStartTurnJSON(t *testing.T) {
	h := newHarness(t)
	id := h.newThread("c1")
	var a struct{ Turn hub.Turn }
	h.mustJSON(h.call("POST", "/v1/threads/"+id+"/turns", `{"input":"hold on"}`), 202, &a)
	if a.Turn.ID == "" || a.Turn.ThreadID != id || a.Turn.Status != "running" || a.Turn.Input != "hold on" {
		t.Fatalf("%+v", a.Turn)
	}
	// A second turn on the busy thread.
	if r := h.call("POST", "/v1/threads/"+id+"/turns", `{"input":"again"}`); r.status != 409 || r.code() != "CONFLICT" {
		t.Fatalf("second turn: %d %s", r.status, r.body)
	}
	// Content blocks are accepted too.
	id2 := h.newThread("c1")
	h.mustJSON(h.call("POST", "/v1/threads/"+id2+"/turns", `{"content":[{"type":"text","text":"hold"}]}`), 202, nil)
	// Bad bodies.
	for _, body := range []string{`{}`, `{"input":1}`, `{"input":"x","extra":true}`} {
		if r := h.call("POST", "/v1/threads/"+h.newThread("c1")+"/turns", body); r.status != 400 {
			t.Fatalf("%s: %d", body, r.status)
		}
	}
	// Another client's thread.
	if r := h.call("POST", "/v1/threads/"+id+"/turns", `{"input":"x"}`, withHeader("X-Client-ID", "c2")); r.status != 404 {
		t.Fatalf("foreign thread: %d", r.status)
	}
}

func TestStartTurnTooManyRequests(t *testing.T) {
	h := newHarness(t)
	id := h.newThread("c1")
	h.fake.mu.Lock()
	h.fake.limitReached = true
	h.fake.mu.Unlock()
	r := h.call("POST", "/v1/threads/"+id+"/turns", `{"input":"hi"}`)
	if r.status != 429 || r.code() != "TOO_MANY_REQUESTS" || r.header.Get("Retry-After") != "3" {
		t.Fatalf("%d %s %v", r.status, r.body, r.header)
	}
}

func TestCancelTurn(t *testing.T) {
	h := newHarness(t)
	id := h.newThread("c1")
	var a struct{ Turn hub.Turn }
	h.mustJSON(h.call("POST", "/v1/threads/"+id+"/turns", `{"input":"hold"}`), 202, &a)
	if r := h.call("POST", "/v1/turns/"+a.Turn.ID+"/cancel", "", withHeader("X-Client-ID", "c2")); r.status != 404 {
		t.Fatalf("another client cancels: %d", r.status)
	}
	var c struct{ Turn hub.Turn }
	h.mustJSON(h.call("POST", "/v1/turns/"+a.Turn.ID+"/cancel", ""), 200, &c)
	if c.Turn.Status != "cancelled" || c.Turn.EndedAt == nil {
		t.Fatalf("%+v", c.Turn)
	}
	if r := h.call("POST", "/v1/turns/nope/cancel", ""); r.status != 404 {
		t.Fatalf("unknown turn: %d", r.status)
	}
	// The thread takes a new turn after the cancel.
	h.mustJSON(h.call("POST", "/v1/threads/"+id+"/turns", `{"input":"hold"}`), 202, nil)
}

func TestHistory(t *testing.T) {
	h := newHarness(t)
	id := h.newThread("c1")
	var a struct{ Turn hub.Turn }
	h.mustJSON(h.call("POST", "/v1/threads/"+id+"/turns", `{"input":"hold"}`), 202, &a)
	h.mustJSON(h.call("POST", "/v1/turns/"+a.Turn.ID+"/cancel", ""), 200, nil)

	var plain struct {
		Turns []json.RawMessage
	}
	h.mustJSON(h.call("GET", "/v1/threads/"+id+"/history", ""), 200, &plain)
	if len(plain.Turns) != 1 || strings.Contains(string(plain.Turns[0]), `"events"`) {
		t.Fatalf("without events: %s", plain.Turns)
	}
	var full struct {
		Turns []struct {
			ID     string
			Status string
			Events []hub.Event
		}
	}
	h.mustJSON(h.call("GET", "/v1/threads/"+id+"/history?includeEvents=true&includeInternal=1", ""), 200, &full)
	if len(full.Turns) != 1 || full.Turns[0].Status != "cancelled" || len(full.Turns[0].Events) != 2 ||
		full.Turns[0].Events[0].Type != "turn_started" || full.Turns[0].Events[1].Type != "turn_completed" {
		t.Fatalf("with events: %+v", full)
	}
	if r := h.call("GET", "/v1/threads/"+id+"/history?includeEvents=yes", ""); r.status != 400 {
		t.Fatalf("includeEvents=yes: %d", r.status)
	}
	r := h.call("GET", "/v1/threads/"+h.newThread("c1")+"/history", "")
	if r.status != 200 || !strings.Contains(string(r.body), `"turns":[]`) {
		t.Fatalf("empty history: %s", r.body)
	}
}

func TestPermissions(t *testing.T) {
	h := newHarness(t)
	id := h.newThread("c1")
	h.mustJSON(h.call("POST", "/v1/threads/"+id+"/turns", `{"input":"hold"}`), 202, nil)
	p1 := h.fake.addPermission(id)
	p2 := h.fake.addPermission(id)
	p3 := h.fake.addPermission(id)

	var list struct{ Permissions []hub.Permission }
	h.mustJSON(h.call("GET", "/v1/permissions?status=pending", ""), 200, &list)
	if len(list.Permissions) != 3 || list.Permissions[2].ID != p1.ID || len(list.Permissions[2].Options) != 2 { // newest first
		t.Fatalf("%+v", list)
	}
	h.mustJSON(h.call("GET", "/v1/permissions", "", withHeader("X-Client-ID", "c2")), 200, &list)
	if len(list.Permissions) != 0 {
		t.Fatalf("another client sees %d permissions", len(list.Permissions))
	}
	if r := h.call("GET", "/v1/permissions?status=maybe", ""); r.status != 400 {
		t.Fatalf("status=maybe: %d", r.status)
	}

	var d struct{ Permission hub.Permission }
	h.mustJSON(h.call("POST", "/v1/permissions/"+p1.ID, `{"outcome":"approved"}`), 200, &d)
	if d.Permission.Status != "approved" || d.Permission.OptionID != "allow" || d.Permission.DecidedBy != "client:c1" {
		t.Fatalf("%+v", d.Permission)
	}
	h.mustJSON(h.call("POST", "/v1/permissions/"+p2.ID, `{"optionId":"reject"}`), 200, &d)
	if d.Permission.Status != "declined" {
		t.Fatalf("%+v", d.Permission)
	}
	if r := h.call("POST", "/v1/permissions/"+p1.ID, `{"outcome":"declined"}`); r.status != 409 || r.code() != "CONFLICT" {
		t.Fatalf("second decision: %d %s", r.status, r.body)
	}
	if r := h.call("POST", "/v1/permissions/nope", `{"outcome":"approved"}`); r.status != 404 {
		t.Fatalf("unknown permission: %d", r.status)
	}
	if r := h.call("POST", "/v1/permissions/"+p3.ID, `{"outcome":"approved"}`, withHeader("X-Client-ID", "c2")); r.status != 404 {
		t.Fatalf("another client decides: %d", r.status)
	}
	for _, body := range []string{`{}`, `{"outcome":"maybe"}`, `{"outcome":"approved","optionId":"allow"}`, `{"outcome":"allow_once"}`, `{"decision":"approved"}`} {
		if r := h.call("POST", "/v1/permissions/"+p3.ID, body); r.status != 400 {
			t.Fatalf("%s: %d", body, r.status)
		}
	}
	h.mustJSON(h.call("GET", "/v1/permissions?status=pending", ""), 200, &list)
	if len(list.Permissions) != 1 || list.Permissions[0].ID != p3.ID {
		t.Fatalf("pending after decisions: %+v", list)
	}
}

func TestRouteTable(t *testing.T) {
	seen := map[string]bool{}
	for _, rt := range Routes() {
		key := rt.Method + " " + rt.Path
		if seen[key] {
			t.Fatalf("%s twice", key)
		}
		seen[key] = true
		if rt.handle == nil {
			t.Fatalf("%s has no handler", key)
		}
	}
	// The contract's table, every row.
	for _, key := range []string{
		"GET /v1/agents", "POST /v1/threads", "GET /v1/threads", "GET /v1/threads/{id}",
		"PATCH /v1/threads/{id}", "DELETE /v1/threads/{id}", "POST /v1/threads/{id}/turns",
		"POST /v1/turns/{id}/cancel", "GET /v1/threads/{id}/history", "GET /v1/threads/{id}/events",
		"GET /v1/events", "GET /v1/permissions", "POST /v1/permissions/{id}", "POST /v1/threads/{id}/compact",
		"GET /healthz", "GET /auth",
		// Extensions.
		"POST /v1/threads/{id}/mode", "POST /v1/threads/{id}/config-option",
		"POST /v1/auth/codes", "POST /v1/auth/logout", "POST /v1/auth/token/rotate",
		"POST /v1/permissions/decide", "GET /v1/rules", "DELETE /v1/rules/{id}",
	} {
		if !seen[key] {
			t.Errorf("%s missing", key)
		}
	}
	// Routes returns a copy.
	r := Routes()
	r[0].Path = "/changed"
	if Routes()[0].Path == "/changed" {
		t.Fatal("Routes shares its table")
	}
}

func TestSetModeAndConfigOption(t *testing.T) {
	h := newHarness(t)
	id := h.newThread("c1")
	var got struct{ Thread hub.Thread }
	r := h.call("POST", "/v1/threads/"+id+"/mode", `{"modeId":"plan"}`)
	h.mustJSON(r, 200, &got)
	var modes struct {
		CurrentModeID string `json:"currentModeId"`
	}
	if json.Unmarshal(got.Thread.Modes, &modes) != nil || modes.CurrentModeID != "plan" {
		t.Fatalf("mode: %s", r.body)
	}
	r = h.call("POST", "/v1/threads/"+id+"/config-option", `{"configId":"model","value":"large"}`)
	h.mustJSON(r, 200, &got)
	if !strings.Contains(string(got.Thread.ConfigOptions), `"currentValue":"large"`) || got.Thread.ID != id {
		t.Fatalf("config option: %s", r.body)
	}
	// The wire form carries both as extension fields.
	var raw map[string]map[string]json.RawMessage
	_ = json.Unmarshal(r.body, &raw)
	if raw["thread"]["modes"] == nil || raw["thread"]["configOptions"] == nil {
		t.Fatalf("thread lacks modes or configOptions: %s", r.body)
	}
	for _, c := range []struct{ path, body, code string }{
		{"/mode", `{}`, "INVALID_ARGUMENT"},
		{"/mode", `{"modeId":"yolo"}`, "INVALID_ARGUMENT"},
		{"/mode", `{"modeId":"plan","extra":1}`, "INVALID_ARGUMENT"},
		{"/config-option", `{"configId":"model"}`, "INVALID_ARGUMENT"},
		{"/config-option", `{"value":"large"}`, "INVALID_ARGUMENT"},
		{"/config-option", `{"configId":"model","value":"huge"}`, "INVALID_ARGUMENT"},
	} {
		if r := h.call("POST", "/v1/threads/"+id+c.path, c.body); r.code() != c.code {
			t.Errorf("%s %s: %d %s", c.path, c.body, r.status, r.body)
		}
	}
	// Another client's thread is NOT_FOUND; a body needs its content type.
	if r := h.call("POST", "/v1/threads/"+id+"/mode", `{"modeId":"plan"}`, withHeader("X-Client-ID", "c2")); r.code() != "NOT_FOUND" {
		t.Errorf("other client: %d %s", r.status, r.body)
	}
	if r := h.call("POST", "/v1/threads/"+id+"/mode", `{"modeId":"plan"}`, withHeader("Content-Type", "text/plain")); r.status != 415 {
		t.Errorf("text/plain: %d %s", r.status, r.body)
	}
	// Upstream failures come through with their code.
	h.fake.failNext(hub.Errorf(hub.CodeUpstreamUnavailable, "the agent died"))
	if r := h.call("POST", "/v1/threads/"+id+"/config-option", `{"configId":"model","value":"small"}`); r.status != 502 {
		t.Errorf("upstream: %d %s", r.status, r.body)
	}
}

func TestCreateThreadOpenSession(t *testing.T) {
	h := newHarness(t)
	var created struct{ Thread hub.Thread }
	h.mustJSON(h.call("POST", "/v1/threads", `{"agent":"echo","cwd":"/src/app","openSession":true}`), 201, &created)
	if !strings.Contains(string(created.Thread.Modes), `"currentModeId":"default"`) {
		t.Fatalf("openSession: %+v", created.Thread)
	}
	var plain struct{ Thread hub.Thread }
	h.mustJSON(h.call("POST", "/v1/threads", `{"agent":"echo","cwd":"/src/app"}`), 201, &plain)
	if plain.Thread.Modes != nil {
		t.Fatalf("without openSession: %+v", plain.Thread)
	}
}

func TestShutdown(t *testing.T) {
	quit := make(chan struct{}, 2)
	h := newHarness(t, func(o *Options) { o.Quit = func() { quit <- struct{}{} } })
	var a struct{ ShuttingDown bool }
	h.mustJSON(h.call("POST", "/v1/shutdown", ""), 202, &a)
	if !a.ShuttingDown {
		t.Fatal("no shuttingDown in the answer")
	}
	select {
	case <-quit:
	case <-time.After(5 * time.Second):
		t.Fatal("Quit not called")
	}
	h.mustJSON(h.call("POST", "/v1/shutdown", ""), 202, nil)
	select {
	case <-quit:
		t.Fatal("Quit called twice")
	case <-time.After(100 * time.Millisecond):
	}
	if r := h.call("POST", "/v1/shutdown", "", withHeader("Authorization", "Bearer wrong")); r.status != 401 {
		t.Fatalf("shutdown with a wrong token: %d", r.status)
	}

	none := newHarness(t)
	if r := none.call("POST", "/v1/shutdown", ""); r.status != 502 {
		t.Fatalf("hub without Quit: %d", r.status)
	}
}
