//go:build linux

package systest

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAgentSignIn signs the fake agent in, through the real `switchboard
// serve`: it refuses sessions with "authentication required" until signed
// in by its agent method (authenticate) or its terminal method (its own
// program in a PTY in the hub, driven over the API), after which a turn
// works.
func TestAgentSignIn(t *testing.T) {
	bins := buildE2E(t)
	creds := filepath.Join(t.TempDir(), "creds")
	h := newHub(t, bins, hubConfig{"agents": map[string]agentConf{
		"authagent": fakeAgentConf(t, "FAKEAGENT_AUTH_REQUIRED=1"),
		"authterm":  fakeAgentConf(t, "FAKEAGENT_AUTH_REQUIRED=1", "FAKEAGENT_CRED_FILE="+creds),
	}})

	t.Run("AgentMethod", func(t *testing.T) {
		h := h.withT(t)
		th := h.newThread("authagent", t.TempDir())
		tu := h.startTurn(th.ID, "echo before")
		if got := h.waitTurn(th.ID, tu.ID, 60*time.Second); got.Status != "failed" || !strings.Contains(strings.ToLower(got.Error), "auth") {
			t.Fatalf("unauthenticated turn: %+v", got)
		}
		var res map[string]any
		h.call("POST", "/v1/agents/authagent/auth", map[string]string{"methodId": "fake-login"}, 200, &res)
		if len(res) != 0 {
			t.Errorf("agent method answer %v, want {}", res)
		}
		th = h.newThread("authagent", t.TempDir())
		tu = h.startTurn(th.ID, "echo signed in")
		if got := h.waitTurn(th.ID, tu.ID, 60*time.Second); got.Status != "completed" || got.Output != "signed in" {
			t.Fatalf("turn after sign-in: %+v", got)
		}
		if r := h.do("POST", "/v1/agents/authagent/auth", map[string]string{"methodId": "nope"}); r.status != 400 {
			t.Errorf("an unknown method: %s", r)
		}
	})

	t.Run("TerminalMethod", func(t *testing.T) {
		h := h.withT(t)
		var list struct {
			Agents []struct {
				ID          string            `json:"id"`
				AuthMethods []json.RawMessage `json:"authMethods"`
			} `json:"agents"`
		}
		if !waitFor(30*time.Second, func() bool {
			h.call("GET", "/v1/agents", nil, 200, &list)
			for _, a := range list.Agents {
				if a.ID == "authterm" && len(a.AuthMethods) == 2 && strings.Contains(string(a.AuthMethods[1]), `"terminal"`) {
					return true
				}
			}
			return false
		}) {
			t.Errorf("GET /v1/agents lacks authterm's methods: %+v", list)
		}
		var res struct {
			AuthSessionID string `json:"authSessionId"`
		}
		h.call("POST", "/v1/agents/authterm/auth", map[string]string{"methodId": "fake-terminal"}, 200, &res)
		if !strings.HasPrefix(res.AuthSessionID, "auth_") {
			t.Fatalf("terminal method answer %+v", res)
		}
		base := "/v1/auth-sessions/" + res.AuthSessionID
		s := h.mustSSE("GET", base+"/stream", nil)
		out := ""
		s.until(30*time.Second, func(m sseMsg) bool {
			var f struct{ Output string }
			_ = json.Unmarshal([]byte(m.data), &f)
			out += f.Output
			return strings.Contains(out, "Enter the code")
		})
		h.call("POST", base+"/resize", map[string]int{"cols": 120, "rows": 40}, 204, nil)
		if r := h.do("POST", base+"/resize", map[string]int{"cols": 0, "rows": 40}); r.status != 400 {
			t.Errorf("resize to 0 cols: %s", r)
		}
		h.call("POST", base+"/input", map[string]string{"data": "1234\r"}, 204, nil)
		var exit *int
		s.until(30*time.Second, func(m sseMsg) bool {
			var f struct {
				Output string
				Exit   *int
			}
			_ = json.Unmarshal([]byte(m.data), &f)
			out += f.Output
			exit = f.Exit
			return m.event == "exit"
		})
		if exit == nil || *exit != 0 || !strings.Contains(out, "Signed in.") {
			t.Fatalf("terminal sign-in: exit %v, output %q", exit, out)
		}
		th := h.newThread("authterm", t.TempDir())
		tu := h.startTurn(th.ID, "echo via the terminal")
		if got := h.waitTurn(th.ID, tu.ID, 60*time.Second); got.Status != "completed" || got.Output != "via the terminal" {
			t.Fatalf("turn after the terminal sign-in: %+v", got)
		}
		h.call("DELETE", base, nil, 204, nil)
		if r := h.do("POST", base+"/input", map[string]string{"data": "x"}); r.status != 404 {
			t.Errorf("input to a closed session: %s", r)
		}
		// The output is not in the event log.
		if strings.Contains(h.logText(), "Enter the code") {
			t.Error("the terminal's output reached the hub's log")
		}
	})
}
