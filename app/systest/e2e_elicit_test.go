//go:build linux

package systest

import (
	"encoding/json"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The agent's questions (issue 16), end to end against the real binary and
// the fake agent's "elicit" command: a form accepted with content, bad
// content refused, declined, cancelled, a link; timed out (expired, the
// agent told "cancel"), a cancelled turn, a late answer; and what a hostile
// agent may not ask.

// apiElicitation is an elicitation as a client decodes it.
type apiElicitation struct {
	ID              string          `json:"id"`
	ThreadID        string          `json:"threadId"`
	TurnID          string          `json:"turnId"`
	Mode            string          `json:"mode"`
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema"`
	URL             string          `json:"url"`
	Status          string          `json:"status"`
	DecidedBy       string          `json:"decidedBy"`
	Deadline        string          `json:"deadline"`
}

// elicitations lists the elicitations ("" status: all).
func (h *hubProc) elicitations(q string) []apiElicitation {
	h.t.Helper()
	var r struct{ Elicitations []apiElicitation }
	h.call("GET", "/v1/elicitations?"+q, nil, 200, &r)
	return r.Elicitations
}

// waitElicitation polls until the turn has a pending elicitation.
func (h *hubProc) waitElicitation(turnID string, timeout time.Duration) apiElicitation {
	h.t.Helper()
	e, ok := waitFirst(timeout, func() []apiElicitation { return h.elicitations("status=pending") },
		func(e apiElicitation) bool { return e.TurnID == turnID })
	if !ok {
		h.t.Fatalf("no pending elicitation for turn %s within %v", turnID, timeout)
	}
	return e
}

// elicitation returns one elicitation by id, whatever its status.
func (h *hubProc) elicitation(id string) apiElicitation {
	h.t.Helper()
	for _, e := range h.elicitations("") {
		if e.ID == id {
			return e
		}
	}
	h.t.Fatalf("elicitation %s not listed", id)
	return apiElicitation{}
}

const e2eForm = `{"mode":"form","message":"<img src=x onerror=alert(1)> Which <b>branch</b>?","requestedSchema":{"type":"object","properties":{"branch":{"type":"string","title":"Branch","minLength":1},"count":{"type":"integer","minimum":1,"maximum":5},"ratio":{"type":"number"},"force":{"type":"boolean"},"color":{"type":"string","enum":["red","green"]}},"required":["branch"]}}`

func e2eElicitations(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, hubConfig{})
	const slow = 60 * time.Second
	ask := func(t *testing.T, h *hubProc, q string) (apiTurn, apiElicitation, string) {
		th := h.newThread("fake", t.TempDir())
		turn := h.startTurn(th.ID, "elicit "+q)
		return turn, h.waitElicitation(turn.ID, slow), th.ID
	}

	t.Run("form accepted with content", func(t *testing.T) {
		h := h.withT(t)
		turn, el, th := ask(t, h, e2eForm)
		if el.Mode != "form" || !strings.Contains(el.Message, "<b>branch</b>") || el.Deadline == "" {
			t.Fatalf("elicitation %+v", el)
		}
		// The agent's order of fields is kept.
		if s := string(el.RequestedSchema); strings.Index(s, `"branch"`) > strings.Index(s, `"count"`) {
			t.Errorf("schema order lost: %s", s)
		}
		for _, bad := range []struct{ body, field string }{
			{`{"action":"accept","content":{"count":2}}`, "content.branch"},
			{`{"action":"accept","content":{"branch":"main","count":9}}`, "content.count"},
			{`{"action":"accept","content":{"branch":"main","count":1.5}}`, "content.count"},
			{`{"action":"accept","content":{"branch":"main","ratio":"x"}}`, "content.ratio"},
			{`{"action":"accept","content":{"branch":"main","force":"yes"}}`, "content.force"},
			{`{"action":"accept","content":{"branch":"main","color":"blue"}}`, "content.color"},
			{`{"action":"accept","content":{"branch":"main","extra":1}}`, "content.extra"},
			{`{"action":"accept","content":{"branch":""}}`, "content.branch"},
			{`{"action":"maybe"}`, "action"},
			{`{"action":"decline","content":{"branch":"main"}}`, "content"},
		} {
			r := h.do("POST", "/v1/elicitations/"+el.ID, json.RawMessage(bad.body))
			if r.status != 400 || !strings.Contains(string(r.body), `"field":"`+bad.field+`"`) {
				t.Errorf("%s: %s, want 400 naming %s", bad.body, r, bad.field)
			}
		}
		var got struct{ Elicitation apiElicitation }
		h.call("POST", "/v1/elicitations/"+el.ID, json.RawMessage(`{"action":"accept","content":{"branch":"main","count":3,"ratio":0.5,"force":true,"color":"green"}}`), 200, &got)
		if got.Elicitation.Status != "accepted" || !strings.HasPrefix(got.Elicitation.DecidedBy, "client:") {
			t.Errorf("answered %+v", got.Elicitation)
		}
		done := h.waitTurn(th, turn.ID, slow)
		want := `elicit: {"action":"accept","content":{"branch":"main","color":"green","count":3,"force":true,"ratio":0.5}}`
		if done.Output != want {
			t.Errorf("the agent got %q, want %q", done.Output, want)
		}
		if r := h.do("POST", "/v1/elicitations/"+el.ID, json.RawMessage(`{"action":"decline"}`)); r.status != 409 {
			t.Errorf("second answer: %s, want 409", r)
		}
		// The user's answer is never stored or streamed: the events about
		// the question carry no content (the agent's own reply may).
		var hist struct {
			Turns []struct {
				Events []map[string]any `json:"events"`
			} `json:"turns"`
		}
		h.call("GET", "/v1/threads/"+th+"/history?includeEvents=true", nil, 200, &hist)
		n := 0
		for _, tu := range hist.Turns {
			for _, ev := range tu.Events {
				if ty, _ := ev["type"].(string); strings.HasPrefix(ty, "elicitation_") {
					n++
					if b, _ := json.Marshal(ev); strings.Contains(string(b), `"main"`) || strings.Contains(string(b), "content") {
						t.Errorf("the answer leaked into %s", b)
					}
				}
			}
		}
		if n != 2 {
			t.Errorf("%d elicitation events stored, want required and resolved", n)
		}
	})

	for _, tt := range []struct{ action, status, agent string }{
		{"decline", "declined", `elicit: {"action":"decline"}`},
		{"cancel", "cancelled", `elicit: {"action":"cancel"}`},
	} {
		t.Run(tt.action, func(t *testing.T) {
			h := h.withT(t)
			turn, el, th := ask(t, h, e2eForm)
			var got struct{ Elicitation apiElicitation }
			h.call("POST", "/v1/elicitations/"+el.ID, map[string]string{"action": tt.action}, 200, &got)
			if got.Elicitation.Status != tt.status {
				t.Errorf("answered %+v", got.Elicitation)
			}
			if done := h.waitTurn(th, turn.ID, slow); done.Output != tt.agent {
				t.Errorf("the agent got %q, want %q", done.Output, tt.agent)
			}
		})
	}

	t.Run("url accepted", func(t *testing.T) {
		h := h.withT(t)
		turn, el, th := ask(t, h, `{"mode":"url","message":"Sign in","elicitationId":"e1","url":"https://login.example.com/device?code=42"}`)
		if el.Mode != "url" || el.URL != "https://login.example.com/device?code=42" || len(el.RequestedSchema) != 0 {
			t.Fatalf("elicitation %+v", el)
		}
		if r := h.do("POST", "/v1/elicitations/"+el.ID, json.RawMessage(`{"action":"accept","content":{"x":"1"}}`)); r.status != 400 {
			t.Errorf("content for a link: %s, want 400", r)
		}
		h.call("POST", "/v1/elicitations/"+el.ID, map[string]string{"action": "accept"}, 200, nil)
		if done := h.waitTurn(th, turn.ID, slow); done.Output != `elicit: {"action":"accept"}` {
			t.Errorf("the agent got %q", done.Output)
		}
	})

	t.Run("cancelled turn", func(t *testing.T) {
		h := h.withT(t)
		turn, el, th := ask(t, h, e2eForm)
		h.call("POST", "/v1/turns/"+turn.ID+"/cancel", nil, 200, nil)
		h.waitTurn(th, turn.ID, slow)
		if got := h.elicitation(el.ID); got.Status != "cancelled" || got.DecidedBy != "cancel" {
			t.Errorf("elicitation %+v: want cancelled by cancel", got)
		}
		if r := h.do("POST", "/v1/elicitations/"+el.ID, map[string]string{"action": "decline"}); r.status != 409 {
			t.Errorf("late answer: %s, want 409", r)
		}
	})

	t.Run("hostile agent", func(t *testing.T) {
		h := h.withT(t)
		th := h.newThread("fake", t.TempDir())
		huge := `{"type":"object","properties":{"a":{"type":"string","description":"` + strings.Repeat("x", 70<<10) + `"}}}`
		deep := strings.Repeat(`{"type":"object","properties":{"a":`, 200) + `{"type":"string"}` + strings.Repeat(`}}`, 200)
		for _, q := range []string{
			`{"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"}}}}}`,
			`{"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{"a":{"type":"object"}}}}`,
			`{"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{"a":{"type":"string"}},"required":["b"]}}`,
			`{"mode":"form","message":"m","requestedSchema":` + huge + `}`,
			`{"mode":"form","message":"m","requestedSchema":` + deep + `}`,
			`{"mode":"form","message":"m"}`,
			`{"mode":"url","message":"m","elicitationId":"e","url":"javascript:alert(1)"}`,
			`{"mode":"url","message":"m","elicitationId":"e","url":"data:text/html,<script>alert(1)</script>"}`,
			`{"mode":"url","message":"m","elicitationId":"e","url":"file:///etc/passwd"}`,
			`{"mode":"url","message":"m","elicitationId":"e","url":"https://bank.example@evil.example/"}`,
			`{"mode":"url","message":"m","elicitationId":"e","url":"//evil.example/x"}`,
			`{"mode":"shell","message":"m"}`,
		} {
			turn := h.startTurn(th.ID, "elicit "+q)
			done := h.waitTurn(th.ID, turn.ID, slow)
			if done.Output != "elicit: error -32602" {
				t.Errorf("%.120s: the agent got %q, want an invalid-params error", q, done.Output)
			}
		}
		if els := h.elicitations("threadId=" + url.QueryEscape(th.ID)); len(els) != 0 {
			t.Errorf("refused questions were stored: %+v", els)
		}
	})

	t.Run("agent dies while pending", func(t *testing.T) {
		h := h.withT(t)
		turn, el, th := ask(t, h, e2eForm)
		kids := childrenOf(h.pid())
		if len(kids) == 0 {
			t.Fatal("no agent process")
		}
		for _, pid := range kids {
			syscall.Kill(-pid, syscall.SIGKILL)
			syscall.Kill(pid, syscall.SIGKILL)
		}
		if done := h.waitTurn(th, turn.ID, slow); done.Status != "failed" {
			t.Errorf("turn %+v: want failed", done)
		}
		if got := h.elicitation(el.ID); got.Status != "cancelled" || got.DecidedBy != "hub" {
			t.Errorf("elicitation %+v: want cancelled by hub", got)
		}
	})

	t.Run("a bound per turn", func(t *testing.T) {
		h := newHub(t, bins, hubConfig{"limits": map[string]any{"pendingPermissionsPerTurn": 2}})
		th := h.newThread("fake", t.TempDir())
		turn := h.startTurn(th.ID, "elicit-many 3 "+e2eForm)
		var pending []apiElicitation
		if !waitFor(slow, func() bool {
			pending = h.elicitations("status=pending&threadId=" + url.QueryEscape(th.ID))
			return len(pending) >= 2
		}) {
			t.Fatalf("%d pending, want 2", len(pending))
		}
		for _, el := range pending {
			h.call("POST", "/v1/elicitations/"+el.ID, map[string]string{"action": "decline"}, 200, nil)
		}
		done := h.waitTurn(th.ID, turn.ID, slow)
		if done.Output != "elicit-many action:cancel=1 action:decline=2" {
			t.Errorf("the agent got %q: want the third answered cancel at once", done.Output)
		}
		if all := h.elicitations("threadId=" + url.QueryEscape(th.ID)); len(all) != 2 {
			t.Errorf("%d stored, want the two asked", len(all))
		}
	})

	t.Run("hub killed while pending", func(t *testing.T) {
		h := newHub(t, bins, hubConfig{})
		_, el, _ := ask(t, h, e2eForm)
		h.kill9()
		h.killAll()
		h.start()
		got := h.elicitation(el.ID)
		if got.Status != "expired" || got.DecidedBy != "hub" {
			t.Errorf("after a restart: %+v, want expired by hub", got)
		}
		if r := h.do("POST", "/v1/elicitations/"+el.ID, map[string]string{"action": "decline"}); r.status != 409 {
			t.Errorf("answer after a restart: %s, want 409", r)
		}
	})

	t.Run("timeout", func(t *testing.T) {
		h := newHub(t, bins, hubConfig{"permissions": map[string]any{"timeout": "1s"}})
		turn, el, th := ask(t, h, e2eForm)
		done := h.waitTurn(th, turn.ID, slow)
		if done.Output != `elicit: {"action":"cancel"}` {
			t.Errorf("the agent got %q, want cancel (a timeout is not a decline)", done.Output)
		}
		if got := h.elicitation(el.ID); got.Status != "expired" || got.DecidedBy != "timeout" {
			t.Errorf("elicitation %+v: want expired by timeout", got)
		}
		if r := h.do("POST", "/v1/elicitations/"+el.ID, json.RawMessage(`{"action":"accept","content":{"branch":"x"}}`)); r.status != 409 {
			t.Errorf("late answer: %s, want 409", r)
		}
		var page struct{ Elicitations []apiElicitation }
		h.call("GET", "/v1/elicitations?status=expired&decidedBy=timeout&limit=1", nil, 200, &page)
		if len(page.Elicitations) != 1 || page.Elicitations[0].ID != el.ID {
			t.Errorf("filtered list %+v", page)
		}
		if r := h.do("GET", "/v1/elicitations?status=maybe", nil); r.status != 400 {
			t.Errorf("bad status filter: %s", r)
		}
	})
}
