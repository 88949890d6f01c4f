//go:build linux

package systest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestE2ESignOut signs the fake agent out through the real `switchboard
// serve` (POST /v1/agents/{id}/logout, Settings → Agents → Sign out): a
// thread that worked once signed in finds the agent signed out at its next
// turn (the hub does not sign it in again with the method it remembered),
// the agent's stored credentials are gone, and signing in again works. An
// unknown agent is 404; one without auth.logout is 409 LOGOUT_UNSUPPORTED.
func TestE2ESignOut(t *testing.T) {
	bins := buildE2E(t)
	creds := filepath.Join(t.TempDir(), "creds")
	h := newHub(t, bins, hubConfig{"agents": map[string]agentConf{
		"authagent": fakeAgentConf(t, "FAKEAGENT_AUTH_REQUIRED=1", "FAKEAGENT_CRED_FILE="+creds),
		"plain":     fakeAgentConf(t),
	}})

	h.call("POST", "/v1/agents/authagent/auth", map[string]string{"methodId": "fake-login"}, 200, nil)
	th := h.newThread("authagent", t.TempDir())
	tu := h.startTurn(th.ID, "echo signed in")
	if got := h.waitTurn(th.ID, tu.ID, 60*time.Second); got.Status != "completed" || got.Output != "signed in" {
		t.Fatalf("turn after sign-in: %+v", got)
	}
	// The terminal method's credentials, as its program would leave them.
	if err := os.WriteFile(creds, []byte("token"), 0o600); err != nil {
		t.Fatal(err)
	}

	h.call("POST", "/v1/agents/authagent/logout", nil, 204, nil)
	if _, err := os.Stat(creds); !os.IsNotExist(err) {
		t.Errorf("after sign-out the agent's credentials are still there: %v", err)
	}
	tu = h.startTurn(th.ID, "echo after sign-out")
	got := h.waitTurn(th.ID, tu.ID, 60*time.Second)
	if got.Status != "failed" || !strings.Contains(strings.ToLower(got.Error), "auth") {
		t.Fatalf("the thread's next turn after sign-out: %+v, want failed for want of a sign-in", got)
	}

	h.call("POST", "/v1/agents/authagent/auth", map[string]string{"methodId": "fake-login"}, 200, nil)
	th = h.newThread("authagent", t.TempDir())
	tu = h.startTurn(th.ID, "echo again")
	if got := h.waitTurn(th.ID, tu.ID, 60*time.Second); got.Status != "completed" || got.Output != "again" {
		t.Fatalf("turn after signing in again: %+v", got)
	}

	if r := h.do("POST", "/v1/agents/nope/logout", nil); r.status != 404 {
		t.Errorf("sign-out of an unknown agent: %s, want 404", r)
	}
	r := h.do("POST", "/v1/agents/plain/logout", nil)
	if r.status != 409 || !strings.Contains(string(r.body), `"LOGOUT_UNSUPPORTED"`) || !strings.Contains(string(r.body), "does not offer logout") {
		t.Errorf("sign-out of an agent without auth.logout: %s, want 409 LOGOUT_UNSUPPORTED with a clear message", r)
	}
}
