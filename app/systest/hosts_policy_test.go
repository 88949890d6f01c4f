//go:build linux

package systest

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestE2EHostPolicyAndQuestion: a host over real OpenSSH into a network
// namespace (the sshHost harness), its hub installed and started by the
// link, as a user goes on from "connected":
//   - Policy: the host's settings, rules and usage are its hub's, read
//     and changed at /v1/hosts/box/… through the link (ADR 0048): the fake
//     agent is added to box's config file by PATCH /v1/hosts/box/settings
//     (this machine's file untouched; a bad value refused by box naming
//     the field); a rule remembered on box is listed there with its
//     thread in local form, not here, and deleted there; box's usage has
//     the thread's agent time under its local id; "local" is this hub's;
//     a host not known is 404; with the network cut, 502
//     HOST_UNREACHABLE.
//   - Question: an agent's question (elicitation) asked on box appears
//     here as a copy (<id>@box, pending), is answered here, and the
//     answer reaches the agent on box over the link; box records it as
//     decided over the link ("link:client:alice"), and a second answer is
//     refused (first answer wins).
func TestE2EHostPolicyAndQuestion(t *testing.T) {
	s, h := connectedBox(t)

	// The fake agent (this test binary) and a project folder, on box's side.
	fake, project := s.fakeAgentFiles(t)
	agent := fake["command"].(string)
	boxConfig := filepath.Join(s.home, ".config", "switchboard", "config.yaml")

	var th hostThread
	t.Run("Policy", func(t *testing.T) {
		h := h.withT(t)
		var mine, local, box struct{ Settings struct{ ConfigFile string } }
		h.call("GET", "/v1/settings", nil, 200, &mine)
		h.call("GET", "/v1/hosts/local/settings", nil, 200, &local)
		h.call("GET", "/v1/hosts/box/settings", nil, 200, &box)
		if local.Settings.ConfigFile != mine.Settings.ConfigFile || box.Settings.ConfigFile != boxConfig {
			t.Fatalf("config files: local %q (this hub's %q), box %q (want %q)", local.Settings.ConfigFile, mine.Settings.ConfigFile, box.Settings.ConfigFile, boxConfig)
		}

		// Settings: box's config file gains the agent and a timeout; ours does not.
		before := mustRead(t, h.config)
		patch := map[string]any{
			"permissions": map[string]any{"timeout": "7m"},
			"agents":      map[string]any{"fake": fake},
		}
		var patched struct {
			Settings struct {
				Permissions struct{ Timeout string }
				Agents      []struct{ ID, Name string }
			}
		}
		h.call("PATCH", "/v1/hosts/box/settings", patch, 200, &patched)
		if patched.Settings.Permissions.Timeout != "7m" || len(patched.Settings.Agents) != 1 || patched.Settings.Agents[0].ID != "fake" {
			t.Fatalf("box's settings after the patch: %+v", patched.Settings)
		}
		if f := string(mustRead(t, boxConfig)); !strings.Contains(f, "7m") || !strings.Contains(f, agent) {
			t.Fatalf("box's config file:\n%s", f)
		}
		if after := mustRead(t, h.config); string(after) != string(before) {
			t.Fatalf("this machine's config file changed:\n%s", after)
		}
		r := h.do("PATCH", "/v1/hosts/box/settings", map[string]any{"ui": map[string]string{"theme": "purple"}})
		if r.status != 400 || !strings.Contains(string(r.body), `"field":"ui.theme"`) {
			t.Fatalf("a bad value for box: %s, want 400 naming ui.theme", r)
		}

		// A thread on box with the agent just added; a rule remembered there.
		if !waitFor(30*time.Second, func() bool {
			var created struct{ Thread hostThread }
			r := h.do("POST", "/v1/threads", map[string]string{"agent": "fake", "cwd": project, "host": "box"})
			if r.status != 201 {
				return false
			}
			r.decode(t, &created)
			th = created.Thread
			return true
		}) {
			t.Fatalf("no thread on box: %s", h.do("POST", "/v1/threads", map[string]string{"agent": "fake", "cwd": project, "host": "box"}))
		}
		turn := h.startTurn(th.ID, "permission")
		p := h.waitPermission(turn.ID, 60*time.Second)
		h.call("POST", "/v1/permissions/"+p.ID, map[string]string{"outcome": "approved", "remember": "thread"}, 200, nil)
		h.waitTurn(th.ID, turn.ID, 60*time.Second)
		type rule struct{ ID, ThreadID, PermissionID string }
		var rules struct{ Rules []rule }
		h.call("GET", "/v1/hosts/box/rules", nil, 200, &rules)
		if len(rules.Rules) != 1 || rules.Rules[0].ThreadID != th.ID || rules.Rules[0].PermissionID != p.ID || strings.Contains(rules.Rules[0].ID, "@") {
			t.Fatalf("box's rules %+v: want one, on thread %s from %s", rules.Rules, th.ID, p.ID)
		}
		var here struct{ Rules []rule }
		h.call("GET", "/v1/rules", nil, 200, &here)
		if len(here.Rules) != 0 {
			t.Fatalf("box's rule is listed here: %+v", here.Rules)
		}
		id := rules.Rules[0].ID
		h.call("DELETE", "/v1/hosts/box/rules/"+id, nil, 204, nil)
		h.call("GET", "/v1/hosts/box/rules", nil, 200, &rules)
		if len(rules.Rules) != 0 {
			t.Fatalf("box's rules after the delete: %+v", rules.Rules)
		}
		if r := h.do("DELETE", "/v1/hosts/box/rules/"+id, nil); r.status != 404 {
			t.Fatalf("deleting a rule box no longer has: %s, want 404", r)
		}

		// Usage: box's ledger, its thread under the local id.
		var usage struct {
			Buckets []struct {
				Key     string
				Minutes float64
			}
		}
		h.call("GET", "/v1/hosts/box/usage?by=thread&threadId="+th.ID, nil, 200, &usage)
		if len(usage.Buckets) != 1 || usage.Buckets[0].Key != th.ID || usage.Buckets[0].Minutes <= 0 {
			t.Fatalf("box's usage by thread: %+v, want the thread %s with its agent time", usage.Buckets, th.ID)
		}
		h.call("GET", "/v1/usage?by=thread", nil, 200, &usage)
		for _, b := range usage.Buckets {
			if b.Key == th.ID || strings.HasSuffix(b.Key, "@box") {
				t.Fatalf("box's thread counts here: %+v", usage.Buckets)
			}
		}
		if r := h.do("GET", "/v1/hosts/box/usage?threadId=th_x@other", nil); r.status != 400 {
			t.Fatalf("another host's thread: %s, want 400", r)
		}

		if r := h.do("GET", "/v1/hosts/nope/settings", nil); r.status != 404 {
			t.Fatalf("a host not known: %s, want 404", r)
		}
	})

	t.Run("Question", func(t *testing.T) {
		h := h.withT(t)
		if th.ID == "" {
			t.Skip("no thread on box (Policy failed)")
		}
		turn := h.startTurn(th.ID, `elicit {"mode":"form","message":"Which branch?","requestedSchema":{"type":"object","properties":{"branch":{"type":"string"}},"required":["branch"]}}`)
		el := h.waitElicitation(turn.ID, 60*time.Second)
		if !strings.HasSuffix(el.ID, "@box") || el.ThreadID != th.ID || el.Message != "Which branch?" || el.Deadline == "" {
			t.Fatalf("the question here: %+v, want box's copy on %s", el, th.ID)
		}
		var got struct{ Elicitation apiElicitation }
		h.call("POST", "/v1/elicitations/"+el.ID, json.RawMessage(`{"action":"accept","content":{"branch":"main"}}`), 200, &got)
		if got.Elicitation.ID != el.ID || got.Elicitation.Status != "accepted" || got.Elicitation.DecidedBy != "link:client:alice" {
			t.Fatalf("answered: %+v, want box's record, decided over the link", got.Elicitation)
		}
		done := h.waitTurn(th.ID, turn.ID, 60*time.Second)
		if want := `elicit: {"action":"accept","content":{"branch":"main"}}`; done.Output != want {
			t.Fatalf("the agent on box got %q, want %q", done.Output, want)
		}
		if r := h.do("POST", "/v1/elicitations/"+el.ID, json.RawMessage(`{"action":"decline"}`)); r.status != 409 {
			t.Fatalf("a second answer: %s, want 409", r)
		}
		if !waitFor(10*time.Second, func() bool { return h.elicitation(el.ID).DecidedBy == "link:client:alice" }) {
			t.Fatalf("the copy says %+v", h.elicitation(el.ID))
		}
	})

	t.Run("LinkDown", func(t *testing.T) {
		h := h.withT(t)
		s.linkDown()
		defer s.linkUp()
		var r reply
		if !waitFor(60*time.Second, func() bool {
			r = h.do("GET", "/v1/hosts/box/settings", nil)
			return r.status == 502
		}) {
			t.Fatalf("box's settings with the network cut: %s, want 502", r)
		}
		if !strings.Contains(string(r.body), `"reason":"HOST_UNREACHABLE"`) {
			t.Fatalf("with the network cut: %s", r)
		}
		if r := h.do("PATCH", "/v1/hosts/box/settings", map[string]any{"permissions": map[string]any{"timeout": "9m"}}); r.status != 502 {
			t.Fatalf("a change with the network cut: %s, want 502", r)
		}
		if f := string(mustRead(t, boxConfig)); strings.Contains(f, "9m") {
			t.Fatalf("box's config changed while cut:\n%s", f)
		}
	})
}

func mustExecutable(t testing.TB) string {
	t.Helper()
	p, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// copyFileFor copies src to dst with mode, owned by uid.
func copyFileFor(t testing.TB, src, dst string, mode os.FileMode, uid int) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dst, uid, -1); err != nil {
		t.Fatal(err)
	}
}
