//go:build linux

package systest

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// The agent's newer updates (issue 32), through the real binary and the
// fake agent: a compaction stored and streamed as the window shows it, a
// notice, messages grouped by id, a rate limit setting the thread's
// limitedUntil, a URL question the agent completes, and a sub-agent whose
// permission is decided from the API and audited naming it.
func TestE2EAgentUpdates(t *testing.T) {
	bins := buildE2E(t)
	h := newHub(t, bins, hubConfig{})
	const slow = 60 * time.Second

	// events is the stored events of a turn, decoded whole.
	events := func(h *hubProc, threadID, turnID string) []map[string]json.RawMessage {
		h.t.Helper()
		var r struct {
			Turns []struct {
				ID     string                       `json:"id"`
				Events []map[string]json.RawMessage `json:"events"`
			}
		}
		h.call("GET", "/v1/threads/"+threadID+"/history?includeEvents=true", nil, 200, &r)
		for _, tu := range r.Turns {
			if tu.ID == turnID {
				return tu.Events
			}
		}
		h.t.Fatalf("turn %s not in the history", turnID)
		return nil
	}
	str := func(raw json.RawMessage) string {
		var s string
		_ = json.Unmarshal(raw, &s)
		return s
	}
	obj := func(raw json.RawMessage) map[string]json.RawMessage {
		var m map[string]json.RawMessage
		_ = json.Unmarshal(raw, &m)
		return m
	}

	t.Run("compaction and notice", func(t *testing.T) {
		h := h.withT(t)
		th := h.newThread("fake", t.TempDir())
		stream := h.mustSSE("GET", "/v1/threads/"+th.ID+"/events", nil)
		defer stream.close()
		turn := h.startTurn(th.ID, "compact")
		seen := types(stream.until(slow, isType("turn_completed", turn.ID)))
		if got := strings.Join(seen, ","); !strings.Contains(got, "compaction,compaction_summary,compaction_summary,compaction") {
			t.Fatalf("streamed %s", got)
		}
		var statuses []string
		summary := ""
		for _, ev := range events(h, th.ID, turn.ID) {
			switch str(ev["type"]) {
			case "compaction":
				statuses = append(statuses, str(obj(ev["compaction"])["status"]))
			case "compaction_summary":
				summary += str(ev["text"])
			}
		}
		if strings.Join(statuses, ",") != "in_progress,completed" || summary != "We renamed the parser. Tests pass." {
			t.Fatalf("stored compaction %v, summary %q", statuses, summary)
		}

		turn = h.startTurn(th.ID, "notice error Quota exhausted")
		h.waitTurn(th.ID, turn.ID, slow)
		var notice map[string]json.RawMessage
		for _, ev := range events(h, th.ID, turn.ID) {
			if str(ev["type"]) == "notice" {
				notice = obj(ev["notice"])
			}
		}
		if str(notice["severity"]) != "error" || str(notice["title"]) != "Quota exhausted" {
			t.Fatalf("notice %v", notice)
		}
	})

	t.Run("messages grouped by id", func(t *testing.T) {
		h := h.withT(t)
		th := h.newThread("fake", t.TempDir())
		turn := h.startTurn(th.ID, "messages")
		h.waitTurn(th.ID, turn.ID, slow)
		cur, text := "", map[string]string{}
		for _, ev := range events(h, th.ID, turn.ID) {
			switch str(ev["type"]) {
			case "message_started":
				cur = str(ev["messageId"])
			case "message_delta":
				text[cur] += str(ev["text"])
			}
		}
		if text["m1"] != "Hello world" || text["m2"] != "Aside." {
			t.Fatalf("messages %q", text)
		}
	})

	t.Run("rate limit sets limitedUntil", func(t *testing.T) {
		h := h.withT(t)
		th := h.newThread("fake", t.TempDir())
		before := time.Now()
		turn := h.startTurn(th.ID, "rate-limit 1800")
		h.waitTurn(th.ID, turn.ID, slow)
		var r struct {
			Thread struct {
				LimitedUntil string `json:"limitedUntil"`
			}
		}
		h.call("GET", "/v1/threads/"+th.ID, nil, 200, &r)
		at, err := time.Parse(time.RFC3339, r.Thread.LimitedUntil)
		if err != nil {
			t.Fatalf("limitedUntil %q: %v", r.Thread.LimitedUntil, err)
		}
		if d := at.Sub(before); d < 1790*time.Second || d > 1810*time.Second {
			t.Fatalf("limitedUntil %v: want half an hour from now", at)
		}
	})

	t.Run("URL question completed by the agent", func(t *testing.T) {
		h := h.withT(t)
		th := h.newThread("fake", t.TempDir())
		stream := h.mustSSE("GET", "/v1/threads/"+th.ID+"/events", nil)
		defer stream.close()
		turn := h.startTurn(th.ID, "elicit-url https://tracker.example/login")
		el := h.waitElicitation(turn.ID, slow)
		if el.Mode != "url" || el.URL != "https://tracker.example/login" {
			t.Fatalf("elicitation %+v", el)
		}
		h.call("POST", "/v1/elicitations/"+el.ID, json.RawMessage(`{"action":"accept"}`), 200, nil)
		// The completion is stored beside the agent's own output, in no
		// set order with the turn's end: read until it comes.
		msgs := stream.until(slow, func(m sseMsg) bool {
			return m.event == "elicitation_completed" && strings.Contains(m.data, `"elicitationId":"`+el.ID+`"`)
		})
		if last := msgs[len(msgs)-1]; last.event != "elicitation_completed" {
			t.Fatalf("no elicitation_completed for %s in %v", el.ID, types(msgs))
		}
		if got := h.waitTurn(th.ID, turn.ID, slow); !strings.Contains(got.Output, `elicit: {"action":"accept"}`) {
			t.Fatalf("agent said %q", got.Output)
		}
		if got := h.elicitation(el.ID); got.Status != "accepted" {
			t.Fatalf("elicitation %+v", got)
		}
	})

	t.Run("sub-agent permission decided and audited", func(t *testing.T) {
		h := h.withT(t)
		th := h.newThread("fake", t.TempDir())
		turn := h.startTurn(th.ID, "subagent Explore the tests")
		p := h.waitPermission(turn.ID, slow)
		// The raw answer: request.subagent names the child.
		subagentOf := func(id string) map[string]string {
			var page struct {
				Permissions []struct {
					ID      string `json:"id"`
					Status  string `json:"status"`
					Request struct {
						Subagent map[string]string `json:"subagent"`
					} `json:"request"`
				} `json:"permissions"`
			}
			h.call("GET", "/v1/permissions?threadId="+th.ID, nil, 200, &page)
			for _, x := range page.Permissions {
				if x.ID == id {
					return x.Request.Subagent
				}
			}
			t.Fatalf("permission %s not in the audit of %s", id, th.ID)
			return nil
		}
		if p.ThreadID != th.ID {
			t.Fatalf("permission of %s, want the parent thread %s", p.ThreadID, th.ID)
		}
		if sa := subagentOf(p.ID); sa["title"] != "Explore the tests" || !strings.Contains(sa["sessionId"], "-sub-") {
			t.Fatalf("pending request.subagent %v", sa)
		}
		if r := h.decide(p.ID, map[string]string{"optionId": "allow"}); r.status != 200 {
			t.Fatalf("decide: %s", r)
		}
		got := h.waitTurn(th.ID, turn.ID, slow)
		if !strings.Contains(got.Output, `subagent outcome: {"outcome":{"outcome":"selected","optionId":"allow"}}`) {
			t.Fatalf("agent said %q", got.Output)
		}
		if decided := h.permission(p.ID); decided.Status != "approved" || decided.DecidedBy == "" {
			t.Fatalf("decided %+v", decided)
		}
		if sa := subagentOf(p.ID); sa["title"] != "Explore the tests" {
			t.Fatalf("audited request.subagent %v", sa)
		}
	})
}
