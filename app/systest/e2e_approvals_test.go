//go:build linux

package systest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/switchboard-hub/switchboard/acp/acptest/fakemodel"
)

// Approvals with leverage (issue 13), end to end against the real binary:
// config rules, remembered decisions, batch, escalation, the audit and a
// broken rule refused live.

// rule is one permissions.rules entry of a hubConfig.
type rule map[string]any

// auditPage is GET /v1/permissions' answer.
type auditPage struct {
	Permissions []apiPermission `json:"permissions"`
	NextCursor  string          `json:"nextCursor"`
}

// 24a. The acp-go-sdk example agent: a rule allows its edit and the turn
// completes with nobody answering; a deny rule refuses it.
func e2eApprovalsSDK(t *testing.T, bins e2eBins) {
	for _, tt := range []struct {
		decision, status, option string
	}{
		{"allow", "approved", "allow"},
		{"deny", "declined", "reject"},
	} {
		t.Run(tt.decision, func(t *testing.T) {
			h := newHub(t, bins, hubConfig{
				"agents":      map[string]agentConf{"sdk": {Name: "SDK example", Command: bins.sdkAgent}},
				"permissions": map[string]any{"rules": []rule{{"name": "sdk-edits", "agents": []string{"sdk"}, "kinds": []string{"edit"}, "decision": tt.decision}}},
			})
			th := h.newThread("sdk", t.TempDir())
			events := h.mustSSE("GET", "/v1/threads/"+th.ID+"/events", nil)
			turn := h.startTurn(th.ID, "please fix the config")
			msgs := events.until(60*time.Second, isType("turn_completed", turn.ID))
			if done := lastMsg(msgs).ev.Turn; done == nil || done.Status != "completed" {
				t.Fatalf("turn %+v", done)
			}
			ty := types(msgs)
			if slices.Contains(ty, "permission_required") || !slices.Contains(ty, "permission_resolved") {
				t.Fatalf("events %v: want permission_resolved and no permission_required", ty)
			}
			var page auditPage
			h.call("GET", "/v1/permissions?decidedBy=rule:&agent=sdk", nil, 200, &page)
			if len(page.Permissions) != 1 {
				t.Fatalf("audit %+v", page)
			}
			if p := page.Permissions[0]; p.Status != tt.status || p.DecidedBy != "rule:sdk-edits" || p.OptionID != tt.option {
				t.Fatalf("permission %+v: want %s by rule:sdk-edits with %s", p, tt.status, tt.option)
			}
		})
	}
	t.Run("no rule: pending, then expired", func(t *testing.T) {
		h := newHub(t, bins, hubConfig{
			"agents":      map[string]agentConf{"sdk": {Name: "SDK example", Command: bins.sdkAgent}},
			"permissions": map[string]any{"timeout": "2s", "rules": []rule{{"name": "reads", "kinds": []string{"read"}, "decision": "allow"}}},
		})
		th := h.newThread("sdk", t.TempDir())
		turn := h.startTurn(th.ID, "please fix the config")
		p := h.waitPermission(turn.ID, 60*time.Second)
		if done := h.waitTurn(th.ID, turn.ID, 60*time.Second); done.Status != "completed" {
			t.Fatalf("turn %+v", done)
		}
		if got := h.permission(p.ID); got.Status != "expired" || got.DecidedBy != "timeout" || got.OptionID != "reject" {
			t.Fatalf("permission %+v: want expired by timeout, recording the reject option sent", got)
		}
	})
}

// 24b. Claude Code offline: a rule allows writes inside the thread's
// folder (the turn completes, the file is written, nobody asked); a
// remembered thread decision lets the same command through in that
// thread only.
func e2eApprovalsClaude(t *testing.T, bins e2eBins) {
	claude, model := claudeOffline(t)
	h := newHub(t, bins, hubConfig{
		"agents": map[string]agentConf{"claude-offline": claude},
		"permissions": map[string]any{"rules": []rule{
			{"name": "edits-here", "agents": []string{"claude-offline"}, "kinds": []string{"edit"}, "inside": "folder", "decision": "allow"},
			{"name": "no-rm", "agents": []string{"claude-offline"}, "kinds": []string{"execute"}, "match": `^rm `, "decision": "deny"},
		}},
	})
	cwd := t.TempDir()
	th := h.newThread("claude-offline", cwd)
	const slow = 120 * time.Second

	t.Run("rule allows a write", func(t *testing.T) {
		h := h.withT(t)
		file := filepath.Join(cwd, "ruled.txt")
		args, _ := json.Marshal(map[string]string{"file_path": file, "content": "by rule\n"})
		model.Push(fakemodel.ToolCall("Write", string(args)), fakemodel.Text("Wrote ruled.txt."))
		turn := h.startTurn(th.ID, "Write ruled.txt.")
		done := h.waitTurn(th.ID, turn.ID, slow)
		if done.Status != "completed" || !strings.Contains(done.Output, "Wrote ruled.txt.") {
			t.Fatalf("turn %+v", done)
		}
		if b, err := os.ReadFile(file); err != nil || string(b) != "by rule\n" {
			t.Fatalf("file %q %v", b, err)
		}
		var page auditPage
		h.call("GET", "/v1/permissions?threadId="+th.ID, nil, 200, &page)
		if len(page.Permissions) != 1 || page.Permissions[0].DecidedBy != "rule:edits-here" || page.Permissions[0].Status != "approved" {
			t.Fatalf("audit %+v", page.Permissions)
		}
		full := h.turn(th.ID, turn.ID)
		if slices.ContainsFunc(full.Events, func(e apiEvent) bool { return e.Type == "permission_required" }) {
			t.Fatal("a rule-decided request was raised as permission_required")
		}
	})
	t.Run("deny rule refuses", func(t *testing.T) {
		h := h.withT(t)
		keep := filepath.Join(cwd, "keep.txt")
		os.WriteFile(keep, []byte("keep\n"), 0o600)
		bash, _ := json.Marshal(map[string]string{"command": "rm " + keep, "description": "Remove a file"})
		model.Push(fakemodel.ToolCall("Bash", string(bash)), fakemodel.Text("Could not remove it."))
		turn := h.startTurn(th.ID, "Remove keep.txt.")
		done := h.waitTurn(th.ID, turn.ID, slow)
		if done.Status != "completed" {
			t.Fatalf("turn %+v", done)
		}
		if _, err := os.Stat(keep); err != nil {
			t.Fatalf("the denied command ran: %v", err)
		}
		var page auditPage
		h.call("GET", "/v1/permissions?decidedBy=rule:no-rm", nil, 200, &page)
		if len(page.Permissions) != 1 || page.Permissions[0].Status != "declined" || page.Permissions[0].TurnID != turn.ID {
			t.Fatalf("audit %+v", page.Permissions)
		}
	})
	t.Run("remembered for the thread", func(t *testing.T) {
		h := h.withT(t)
		bash, _ := json.Marshal(map[string]string{"command": "touch remembered.txt", "description": "Create a file"})
		model.Push(fakemodel.ToolCall("Bash", string(bash)), fakemodel.Text("Done once."))
		turn := h.startTurn(th.ID, "Touch it.")
		p := h.waitPermission(turn.ID, slow)
		var res struct {
			Permission apiPermission
			Rule       struct{ ID, Scope, ThreadID, Kind, Command, Decision string }
		}
		h.call("POST", "/v1/permissions/"+p.ID, map[string]string{"outcome": "approved", "remember": "thread"}, 200, &res)
		if res.Rule.Scope != "thread" || res.Rule.ThreadID != th.ID || res.Rule.Kind != "execute" || res.Rule.Command != "touch remembered.txt" || res.Rule.Decision != "allow" {
			t.Fatalf("remembered %+v (tool call %s)", res.Rule, p.ToolCall)
		}
		h.waitTurn(th.ID, turn.ID, slow)

		// The same command in the same thread: nobody is asked.
		model.Push(fakemodel.ToolCall("Bash", string(bash)), fakemodel.Text("Done twice."))
		turn = h.startTurn(th.ID, "Touch it again.")
		done := h.waitTurn(th.ID, turn.ID, slow)
		if done.Status != "completed" || !strings.Contains(done.Output, "Done twice.") {
			t.Fatalf("turn %+v", done)
		}
		var page auditPage
		h.call("GET", "/v1/permissions?threadId="+th.ID+"&limit=1", nil, 200, &page)
		if len(page.Permissions) != 1 || page.Permissions[0].DecidedBy != "remembered:"+res.Rule.ID || page.NextCursor == "" {
			t.Fatalf("newest %+v", page)
		}

		// Another thread: asked.
		other := h.newThread("claude-offline", cwd)
		model.Push(fakemodel.ToolCall("Bash", string(bash)), fakemodel.Text("Refused."))
		turn = h.startTurn(other.ID, "Touch it there.")
		p = h.waitPermission(turn.ID, slow)
		h.call("POST", "/v1/permissions/"+p.ID, map[string]string{"outcome": "declined"}, 200, nil)
		h.waitTurn(other.ID, turn.ID, slow)

		var rules struct{ Rules []struct{ ID string } }
		h.call("GET", "/v1/rules", nil, 200, &rules)
		if len(rules.Rules) != 1 || rules.Rules[0].ID != res.Rule.ID {
			t.Fatalf("rules %+v", rules)
		}
		h.call("DELETE", "/v1/rules/"+res.Rule.ID, nil, 204, nil)
		h.call("DELETE", "/v1/rules/"+res.Rule.ID, nil, 404, nil)
	})
}

// 24c. With the fake agent: a request no rule matches stays pending and
// expires refused; a batch approves three pending requests across two
// threads; escalation raises permission_escalated; a broken rule is
// refused live and the last good rules stay in force.
func e2eApprovalsFake(t *testing.T, bins e2eBins) {
	rules := []rule{{"name": "make-ok", "agents": []string{"fake"}, "kinds": []string{"execute"}, "match": "^make clean$", "decision": "allow"}}
	h := newHub(t, bins, hubConfig{"permissions": map[string]any{"timeout": "3s", "escalateAfter": "1s", "rules": rules}})

	t.Run("no rule: pending, escalated, expired", func(t *testing.T) {
		h := h.withT(t)
		th := h.newThread("fake", t.TempDir())
		events := h.mustSSE("GET", "/v1/threads/"+th.ID+"/events", nil)
		turn := h.startTurn(th.ID, "permissions 1")
		msgs := events.until(30*time.Second, isType("permission_escalated", turn.ID))
		esc := lastMsg(msgs).ev.Permission
		if esc == nil || esc.Status != "pending" || !slices.Contains(types(msgs), "permission_required") {
			t.Fatalf("escalated %+v after %v", esc, types(msgs))
		}
		r := h.call("GET", "/v1/permissions?status=pending&threadId="+th.ID, nil, 200, nil)
		if !strings.Contains(string(r.body), `"escalatedAt":"`) || !strings.Contains(string(r.body), esc.ID) {
			t.Fatalf("pending %s: want it stored escalated", r.body)
		}
		done := h.waitTurn(th.ID, turn.ID, 30*time.Second)
		if !strings.Contains(done.Output, "selected:reject-once=1") {
			t.Fatalf("turn %+v: want the request refused at the timeout", done)
		}
		if got := h.permission(esc.ID); got.Status != "expired" || got.DecidedBy != "timeout" {
			t.Fatalf("permission %+v: want expired by timeout", got)
		}
	})
	t.Run("rule", func(t *testing.T) {
		h := h.withT(t)
		th := h.newThread("fake", t.TempDir())
		done := h.waitTurn(th.ID, h.startTurn(th.ID, "permission").ID, 30*time.Second)
		if done.Output != "outcome: selected allow-once" {
			t.Fatalf("turn %+v", done)
		}
	})
	t.Run("batch", func(t *testing.T) {
		h := h.withT(t)
		a, b := h.newThread("fake", t.TempDir()), h.newThread("fake", t.TempDir())
		ta, tb := h.startTurn(a.ID, "permissions 2"), h.startTurn(b.ID, "permissions 1")
		var ids []string
		waitFor(30*time.Second, func() bool {
			ids = ids[:0]
			for _, p := range h.permissions("pending") {
				if p.TurnID == ta.ID || p.TurnID == tb.ID {
					ids = append(ids, p.ID)
				}
			}
			return len(ids) >= 3
		})
		var res struct {
			Results []struct {
				ID         string
				Permission *apiPermission
				Error      *struct{ Code string }
			}
		}
		h.call("POST", "/v1/permissions/decide", map[string]any{"ids": append(ids, "pm_unknown"), "outcome": "approved"}, 200, &res)
		if len(res.Results) != 4 || res.Results[3].Error == nil || res.Results[3].Error.Code != "NOT_FOUND" {
			t.Fatalf("results %+v", res.Results)
		}
		for i, r := range res.Results[:3] {
			if r.ID != ids[i] || r.Permission == nil || r.Permission.Status != "approved" {
				t.Fatalf("result %d %+v", i, r)
			}
		}
		if d := h.waitTurn(a.ID, ta.ID, 30*time.Second); !strings.Contains(d.Output, "selected:allow-once=2") {
			t.Fatalf("a: %+v", d)
		}
		if d := h.waitTurn(b.ID, tb.ID, 30*time.Second); !strings.Contains(d.Output, "selected:allow-once=1") {
			t.Fatalf("b: %+v", d)
		}
	})
	t.Run("broken rule refused live", func(t *testing.T) {
		h := h.withT(t)
		var doc map[string]any
		b, _ := os.ReadFile(h.config)
		yaml.Unmarshal(b, &doc)
		doc["permissions"] = map[string]any{"timeout": "3s", "rules": []rule{{"name": "broken", "kinds": []string{"teleport"}, "decision": "allow"}}}
		b, _ = yaml.Marshal(doc)
		if err := os.WriteFile(h.config, b, 0o600); err != nil {
			t.Fatal(err)
		}
		var st struct {
			Settings struct {
				ConfigError string
				Permissions struct{ Rules []struct{ Name string } }
			}
		}
		// The hub's log is in the config's folder here: each request's log
		// line is a file event there, which must not hold the reload off.
		waitFor(30*time.Second, func() bool {
			h.call("GET", "/v1/settings", nil, 200, &st)
			return st.Settings.ConfigError != ""
		})
		if msg := st.Settings.ConfigError; !strings.Contains(msg, "broken") || !strings.Contains(msg, "teleport") || !strings.Contains(msg, "line ") {
			t.Fatalf("configError %q: want the rule, the kind and the line", msg)
		}
		if len(st.Settings.Permissions.Rules) != 1 || st.Settings.Permissions.Rules[0].Name != "make-ok" {
			t.Fatalf("settings %+v: want the last good rules", st.Settings)
		}
		// The last good rules still decide.
		th := h.newThread("fake", t.TempDir())
		done := h.waitTurn(th.ID, h.startTurn(th.ID, "permission").ID, 30*time.Second)
		if done.Output != "outcome: selected allow-once" {
			t.Fatalf("turn %+v", done)
		}
		var page auditPage
		h.call("GET", "/v1/permissions?threadId="+th.ID, nil, 200, &page)
		if len(page.Permissions) != 1 || page.Permissions[0].DecidedBy != "rule:make-ok" {
			t.Fatalf("audit %+v", page)
		}
		for _, bad := range []string{"from=yesterday", "limit=0", "status=maybe", "cursor=%21%21"} {
			h.call("GET", "/v1/permissions?"+bad, nil, 400, nil)
		}
	})
}
