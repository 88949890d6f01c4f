//go:build linux

package systest

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestE2EAgents: issue 15's last pieces against the real binary.
func TestE2EAgents(t *testing.T) {
	bins := buildE2E(t)
	tests := []struct {
		name string
		fn   func(*testing.T, e2eBins)
	}{
		{"SignInRetriesTheTurn", e2eSignInRetry},
		{"SettingsMCPLevels", e2eSettingsMCP}, // settings_mcp_e2e_test.go
		{"RegistryLazy", e2eRegistryLazy},     // registry_e2e_test.go
		{"RegistryHostile", e2eRegistryHostile},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, bins) })
	}
}

// e2eSignInRetry: through the real `switchboard serve`, a turn
// refused because the fake agent needs signing in fails with an error
// event of reason AUTH_REQUIRED; a terminal sign-in that fails retries
// nothing; one that exits 0 restarts the agent and runs the failed turn
// again by itself (turn_started retryOf), once; a turn the user sent
// after the failure is what counts, not the failed one.
func e2eSignInRetry(t *testing.T, bins e2eBins) {
	creds := filepath.Join(t.TempDir(), "creds")
	h := newHub(t, bins, hubConfig{"agents": map[string]agentConf{
		"authterm": fakeAgentConf(t, "FAKEAGENT_AUTH_REQUIRED=1", "FAKEAGENT_CRED_FILE="+creds),
	}})

	th := h.newThread("authterm", t.TempDir())
	// Another thread whose failed turn the user followed with another
	// one: only that last one is retried.
	other := h.newThread("authterm", t.TempDir())
	events := h.mustSSE("GET", "/v1/threads/"+th.ID+"/events", nil)

	failed := h.startTurn(th.ID, "echo after signing in")
	if got := h.waitTurn(th.ID, failed.ID, 60*time.Second); got.Status != "failed" || !strings.Contains(got.Error, "needs signing in") {
		t.Fatalf("unauthenticated turn: %+v", got)
	}
	var errEv struct {
		Code, Message, Reason, Agent string
	}
	events.until(30*time.Second, func(m sseMsg) bool {
		if m.event != "error" {
			return false
		}
		_ = json.Unmarshal([]byte(m.data), &errEv)
		return true
	})
	if errEv.Reason != "AUTH_REQUIRED" || errEv.Agent != "authterm" {
		t.Fatalf("the failed turn's error event: %+v", errEv)
	}
	o1 := h.startTurn(other.ID, "echo first")
	h.waitTurn(other.ID, o1.ID, 60*time.Second)
	o2 := h.startTurn(other.ID, "echo second")
	if got := h.waitTurn(other.ID, o2.ID, 60*time.Second); got.Status != "failed" {
		t.Fatalf("the other thread's second turn: %+v", got)
	}

	signIn := func(code string) (out string, exit int) {
		t.Helper()
		var res struct {
			AuthSessionID string `json:"authSessionId"`
		}
		h.call("POST", "/v1/agents/authterm/auth", map[string]string{"methodId": "fake-terminal"}, 200, &res)
		s := h.mustSSE("GET", "/v1/auth-sessions/"+res.AuthSessionID+"/stream", nil)
		typed := false
		exit = -99
		s.until(60*time.Second, func(m sseMsg) bool {
			var f struct {
				Output string
				Exit   *int
			}
			_ = json.Unmarshal([]byte(m.data), &f)
			out += f.Output
			if !typed && strings.Contains(out, "Enter the code") {
				h.call("POST", "/v1/auth-sessions/"+res.AuthSessionID+"/input", map[string]string{"data": code + "\r"}, 204, nil)
				typed = true
			}
			if f.Exit != nil {
				exit = *f.Exit
			}
			return m.event == "exit"
		})
		return out, exit
	}

	// A failed sign-in retries nothing.
	if out, exit := signIn("0000"); exit != 1 || !strings.Contains(out, "Wrong code") {
		t.Fatalf("a wrong code: exit %d, output %q", exit, out)
	}
	if n := len(h.history(th.ID, false)); n != 1 {
		t.Fatalf("after a failed sign-in the thread has %d turns, want the failed one only", n)
	}

	// A sign-in that succeeds runs the failed turn again, by itself.
	if out, exit := signIn("1234"); exit != 0 || !strings.Contains(out, "Signed in.") {
		t.Fatalf("the right code: exit %d, output %q", exit, out)
	}
	var retry struct {
		TurnID  string `json:"turnId"`
		Input   string `json:"input"`
		RetryOf string `json:"retryOf"`
	}
	events.until(60*time.Second, func(m sseMsg) bool {
		if m.event != "turn_started" {
			return false
		}
		_ = json.Unmarshal([]byte(m.data), &retry)
		return true
	})
	if retry.RetryOf != failed.ID || retry.Input != "echo after signing in" {
		t.Fatalf("the retry's turn_started: %+v", retry)
	}
	if got := h.waitTurn(th.ID, retry.TurnID, 60*time.Second); got.Status != "completed" || got.Output != "after signing in" {
		t.Fatalf("the retried turn: %+v", got)
	}

	var ot []apiTurn
	if !waitFor(60*time.Second, func() bool {
		ot = h.history(other.ID, false)
		return len(ot) == 3 && ot[2].Status == "completed"
	}) || ot[0].Input != "echo first" || ot[0].Status != "failed" || ot[2].Input != "echo second" {
		t.Fatalf("the other thread: %+v", ot)
	}

	// Once: a second sign-in retries nothing more.
	if _, exit := signIn("1234"); exit != 0 {
		t.Fatalf("a second sign-in: exit %d", exit)
	}
	if turns := h.history(th.ID, false); len(turns) != 2 {
		t.Errorf("the thread has %d turns, want the failed one and its one retry", len(turns))
	}
	if turns := h.history(other.ID, false); len(turns) != 3 {
		t.Errorf("the other thread has %d turns after a second sign-in, want 3", len(turns))
	}
}
