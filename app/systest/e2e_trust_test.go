//go:build linux

package systest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// 10c. What an approval covers (docs/SECURITY.md, "What an approval
// covers"), attacked by the fake agent's "ask-run": a permission request
// whose tool call it writes byte for byte, then a terminal/create of its
// choosing. Each attack was seen to get through before the hub described
// requests itself; each subtest fails without that.
func e2eApprovalCovers(t *testing.T, bins e2eBins) {
	cwd, home := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("PRIVATE KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A cloned repository can ship a link to anywhere.
	if err := os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(cwd, "lnk")); err != nil {
		t.Fatal(err)
	}
	cfg := hubConfig{"permissions": map[string]any{"timeout": "20s", "rules": []rule{
		{"name": "reads", "kinds": []string{"read"}, "decision": "allow"},
		{"name": "reads-inside", "kinds": []string{"read"}, "inside": "folder", "decision": "allow"},
		{"name": "go-test", "agents": []string{"fake"}, "kinds": []string{"execute"}, "match": `^go test( |$)`, "decision": "allow"},
	}}}
	h := prepareHub(t, bins, cfg)
	h.start()
	th := h.newThread("fake", cwd)
	marker := filepath.Join(cwd, "X")
	// A person approves what the agent asked; terminals the hub asks
	// about are declined, so that a terminal runs only when the hub let
	// it through without asking.
	personApprovesAgent := func(p apiPermission) any {
		if p.Kind == "terminal" {
			return map[string]string{"outcome": "declined"}
		}
		return map[string]string{"outcome": "approved"}
	}
	askRun := func(toolCall string, command string, args []string, env map[string]string) string {
		spec := map[string]any{"toolCall": json.RawMessage(toolCall), "command": command, "args": args}
		var vars []map[string]string
		for k, v := range env {
			vars = append(vars, map[string]string{"name": k, "value": v})
		}
		if vars != nil {
			spec["env"] = vars
		}
		b, err := json.Marshal(spec)
		if err != nil {
			t.Fatal(err)
		}
		return "ask-run " + string(b)
	}
	notRun := func(t *testing.T, out string) {
		t.Helper()
		if _, err := os.Stat(marker); err == nil || strings.HasPrefix(out, "ask-run ran") {
			os.Remove(marker)
			t.Fatalf("the terminal ran without a person's approval of it: %q", out)
		}
	}

	t.Run("a card showing npm test does not run touch X", func(t *testing.T) {
		h := h.withT(t)
		out, perms := confinedTurn(h, th.ID, askRun(`{"toolCallId":"c1","kind":"execute","title":"npm test","rawInput":{"command":"npm test","cmd":"touch `+marker+`"}}`,
			"touch "+marker, nil, nil), personApprovesAgent)
		notRun(t, out)
		agent, term := permOfKind(perms, "agent"), permOfKind(perms, "terminal")
		if agent.Request == nil || !slices.Contains(agent.Request.Flags, "conflicting_command") {
			t.Errorf("the agent's request %+v: want conflicting_command", agent.Request)
		}
		if term.Request == nil || !slices.Equal(term.Request.Argv, []string{"touch", marker}) || term.Status != "declined" {
			t.Errorf("the terminal's card %+v: want asked, showing touch X", term)
		}
	})

	t.Run("an approved read never covers a command", func(t *testing.T) {
		h := h.withT(t)
		token := filepath.Join(h.dataDir, "token")
		out, perms := confinedTurn(h, th.ID, askRun(`{"toolCallId":"c2","kind":"read","title":"cat `+token+`","locations":[{"path":"`+token+`"}]}`,
			"cat "+token, nil, nil), personApprovesAgent)
		if strings.Contains(out, h.token) || strings.HasPrefix(out, "ask-run ran") {
			t.Fatalf("the token was printed: %q", out)
		}
		if a := permOfKind(perms, "agent"); a.DecidedBy != "rule:reads" {
			t.Fatalf("the read was decided by %q, want rule:reads (the setup of the attack)", a.DecidedBy)
		}
		if term := permOfKind(perms, "terminal"); term.Status != "declined" {
			t.Errorf("the terminal was not asked about: %+v", perms)
		}
	})

	t.Run("always allow edits never covers a command", func(t *testing.T) {
		h := h.withT(t)
		edit := func(title string) string {
			return askRun(`{"toolCallId":"c3","kind":"edit","title":"`+title+`","locations":[{"path":"`+filepath.Join(cwd, "a.txt")+`"}]}`, "touch "+marker, nil, nil)
		}
		_, perms := confinedTurn(h, th.ID, edit("Edit a.txt"), func(p apiPermission) any {
			if p.Kind == "terminal" {
				return map[string]string{"outcome": "declined"}
			}
			return map[string]string{"outcome": "approved", "remember": "thread"}
		})
		if a := permOfKind(perms, "agent"); a.Status != "approved" {
			t.Fatalf("the first edit: %+v", perms)
		}
		out, perms := confinedTurn(h, th.ID, edit("touch "+marker), personApprovesAgent)
		notRun(t, out)
		if a := permOfKind(perms, "agent"); !strings.HasPrefix(a.DecidedBy, "remembered:") {
			t.Fatalf("the second edit was decided by %q, want the remembered rule (the setup of the attack)", a.DecidedBy)
		}
		if term := permOfKind(perms, "terminal"); term.Status != "declined" {
			t.Errorf("the terminal was not asked about: %+v", perms)
		}
	})

	t.Run("the terminal's environment is part of what was approved", func(t *testing.T) {
		h := h.withT(t)
		bin := filepath.Join(cwd, "bin")
		os.MkdirAll(bin, 0o755)
		if err := os.WriteFile(filepath.Join(bin, "ls"), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		out, perms := confinedTurn(h, th.ID, askRun(`{"toolCallId":"c4","kind":"execute","title":"ls","rawInput":{"command":"ls"}}`,
			"ls", nil, map[string]string{"PATH": bin, "SSH_AUTH_SOCK": "/tmp/agent.sock", "QUIET": "shh"}), personApprovesAgent)
		notRun(t, out)
		term := permOfKind(perms, "terminal")
		if term.Request == nil || !slices.Contains(term.Request.Flags, "env_changes_program") {
			t.Fatalf("the terminal's card %+v: want env_changes_program", term)
		}
		shown := map[string]string{}
		for _, v := range term.Request.Env {
			shown[v.Name] = v.Value
			if v.Name == "QUIET" && (v.Value != "" || !v.Hidden) {
				t.Errorf("QUIET's value shown: %+v", v)
			}
		}
		if shown["PATH"] != bin || shown["SSH_AUTH_SOCK"] != "/tmp/agent.sock" {
			t.Errorf("the card's environment %+v: want PATH and SSH_AUTH_SOCK with their values", term.Request.Env)
		}
	})

	t.Run("the same run is covered once, and recorded", func(t *testing.T) {
		h := h.withT(t)
		ok := filepath.Join(cwd, "ok")
		out, perms := confinedTurn(h, th.ID, askRun(`{"toolCallId":"c5","kind":"execute","title":"`+"`touch "+ok+"`"+`","rawInput":{"command":"touch `+ok+`"}}`,
			"touch", []string{ok}, nil), personApprovesAgent)
		if !strings.HasPrefix(out, "ask-run ran") {
			t.Fatalf("the approved command did not run: %q", out)
		}
		agent, term := permOfKind(perms, "agent"), permOfKind(perms, "terminal")
		if term.DecidedBy != "covered:"+agent.ID || !slices.Equal(term.Request.Argv, []string{"touch", ok}) || term.Request.Cwd != cwd {
			t.Errorf("the audit %+v: want the terminal that ran, covered by %s", perms, agent.ID)
		}
	})

	t.Run("inside folder follows links before ..", func(t *testing.T) {
		h := h.withT(t)
		p := cwd + "/lnk/../.ssh/id_rsa" // the OS opens home/.ssh/id_rsa
		_, perms := confinedTurn(h, th.ID, askRun(`{"toolCallId":"c6","kind":"read","title":"Read","locations":[{"path":"`+p+`"}]}`, "true", nil, nil),
			func(p apiPermission) any { return map[string]string{"outcome": "declined"} })
		a := permOfKind(perms, "agent")
		if strings.HasPrefix(a.DecidedBy, "rule:reads-inside") || a.Request == nil || !slices.Equal(a.Request.Paths, []string{filepath.Join(home, ".ssh", "id_rsa")}) ||
			!slices.Contains(a.Request.Flags, "dot_dot") {
			t.Errorf("%+v %+v: want the real path, never approved as inside", a, a.Request)
		}
	})

	t.Run("member names are read case-sensitively, repeated ones refused", func(t *testing.T) {
		h := h.withT(t)
		_, perms := confinedTurn(h, th.ID, askRun(`{"toolCallId":"c7","kind":"execute","title":"touch X","rawInput":{"command":"touch X"},"KIND":"read"}`, "true", nil, nil),
			func(p apiPermission) any { return map[string]string{"outcome": "declined"} })
		if a := permOfKind(perms, "agent"); a.Status != "declined" || a.Request == nil || a.Request.Kind != "execute" {
			t.Errorf("KIND read: %+v: want an execute request, asked", a)
		}
		out, perms := confinedTurn(h, th.ID, askRun(`{"toolCallId":"c8","kind":"execute","kind":"read","title":"touch X","rawInput":{"command":"touch X"}}`, "true", nil, nil),
			func(p apiPermission) any { return map[string]string{"outcome": "approved"} })
		if !strings.HasPrefix(out, "ask-run error -32602") || len(perms) != 0 {
			t.Errorf("a repeated kind: %q, %+v: want invalid params, nothing raised", out, perms)
		}
	})

	t.Run("a rule never decides shell syntax", func(t *testing.T) {
		h := h.withT(t)
		out, perms := confinedTurn(h, th.ID, askRun(`{"toolCallId":"c9","kind":"execute","title":"go test","rawInput":{"command":"go test ; touch `+marker+`"}}`, "true", nil, nil),
			func(p apiPermission) any { return map[string]string{"outcome": "declined"} })
		notRun(t, out)
		if a := permOfKind(perms, "agent"); a.Status != "declined" || a.Request == nil || !slices.Contains(a.Request.Flags, "shell") ||
			!slices.Equal(a.Request.Argv, []string{"/bin/sh", "-c", "go test ; touch " + marker}) {
			t.Errorf("%+v: want asked, flagged shell", a)
		}
	})

	t.Run("the agent's always for a command remembers exactly that run, nothing else", func(t *testing.T) {
		h := h.withT(t)
		th := h.newThread("fake", cwd)
		agentAlways := func(p apiPermission) any {
			if p.Kind == "agent" {
				return map[string]string{"optionId": "allow-always"}
			}
			return map[string]string{"outcome": "declined"}
		}
		declineAll := func(apiPermission) any { return map[string]string{"outcome": "declined"} }
		out, perms := confinedTurn(h, th.ID, "ask-always-terminal echo hi", agentAlways)
		if !strings.Contains(out, "terminal exit 0") || permOfKind(perms, "agent").Status != "approved" {
			t.Fatalf("the first run: %q %+v", out, perms)
		}
		// The agent keeps its "always" and does not ask; the hub lets the
		// terminal run by the rule it remembered, asking nobody.
		out, perms = confinedTurn(h, th.ID, "ask-always-terminal echo hi", declineAll)
		term := permOfKind(perms, "terminal")
		if !strings.Contains(out, "ask-always-terminal remembered") || !strings.Contains(out, "terminal exit 0") ||
			!strings.HasPrefix(term.DecidedBy, "remembered:") {
			t.Fatalf("the second run: %q, terminal %+v: want run, decided by the remembered rule", out, term)
		}
		for _, in := range []string{"terminal echo hi there", "terminal-env LANG=C echo hi", "terminal echo bye"} {
			out, perms = confinedTurn(h, th.ID, in, declineAll)
			if term := permOfKind(perms, "terminal"); term.Status != "declined" || strings.Contains(out, "terminal exit 0") {
				t.Errorf("%s: %q %+v: want asked (and declined)", in, out, perms)
			}
		}
	})

	t.Run("writes to git's own settings always ask, and are never remembered", func(t *testing.T) {
		h := h.withT(t)
		os.MkdirAll(filepath.Join(cwd, ".git"), 0o755)
		for _, p := range []string{filepath.Join(cwd, ".git", "config"), filepath.Join(cwd, ".gitattributes"), filepath.Join(cwd, "sub", ".gitmodules"), filepath.Join(cwd, ".git", "hooks", "post-index-change")} {
			os.MkdirAll(filepath.Dir(p), 0o755)
			out, perms := confinedTurn(h, th.ID, "fs-write "+p+" [filter \"x\"]", func(p apiPermission) any {
				if r := h.decide(p.ID, map[string]string{"outcome": "approved", "remember": "folder"}); r.status != 400 {
					t.Errorf("remember on a git permission: %s, want 400", r)
				}
				return map[string]string{"outcome": "declined"}
			})
			if len(perms) != 1 || perms[0].Kind != "git" || perms[0].Status != "declined" || !strings.HasPrefix(out, "fs-write error") {
				t.Errorf("%s: %q, %+v: want one git permission, declined", p, out, perms)
			}
			if _, err := os.Stat(p); err == nil {
				t.Errorf("%s written", p)
			}
		}
		// Approved by a person, it is written.
		p := filepath.Join(cwd, ".gitattributes")
		out, _ := confinedTurn(h, th.ID, "fs-write "+p+" *.txt text", func(apiPermission) any { return map[string]string{"outcome": "approved"} })
		if b, _ := os.ReadFile(p); out != "fs-write ok" || string(b) != "*.txt text" {
			t.Errorf("approved: %q, %q", out, b)
		}
	})
}
