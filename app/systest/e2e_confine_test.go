//go:build linux

package systest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// 10b. What an agent may touch through the hub (docs/SECURITY.md, "Files
// and terminals an agent may touch"), attacked with the fake agent's own
// fs/* and terminal/* requests against the real binary.
func e2eFileConfinement(t *testing.T, bins e2eBins) {
	cwd, outside, extra := t.TempDir(), t.TempDir(), t.TempDir()
	cfg := hubConfig{
		"permissions": map[string]any{"timeout": "4s"},
		"folders":     map[string]any{cwd: map[string]any{"allowedFolders": []string{extra}}},
	}
	h := prepareHub(t, bins, cfg)
	h.env = []string{"SSH_AUTH_SOCK=/tmp/e2e-ssh-agent.sock", "DBUS_SESSION_BUS_ADDRESS=unix:path=/tmp/e2e-bus"}
	h.start()
	th := h.newThread("fake", cwd)
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	secret := filepath.Join(outside, "secret.txt")
	write(secret, "outside secret")
	write(filepath.Join(extra, "lib.txt"), "extra folder")
	approve := func(apiPermission) any { return map[string]string{"outcome": "approved"} }
	decline := func(apiPermission) any { return map[string]string{"outcome": "declined"} }
	wait := func(apiPermission) any { return nil }

	t.Run("protected", func(t *testing.T) {
		h := h.withT(t)
		link := filepath.Join(cwd, "innocent.txt")
		if err := os.Symlink(filepath.Join(h.dataDir, "token"), link); err != nil {
			t.Fatal(err)
		}
		configBefore, _ := os.ReadFile(h.config)
		for _, p := range []string{
			filepath.Join(h.dataDir, "token"),
			filepath.Join(h.dataDir, "hub.json"),
			filepath.Join(h.dataDir, "switchboard.db"),
			filepath.Join(h.dataDir, "switchboard.db-wal"),
			h.config,
			filepath.Join(filepath.Dir(h.config), "hub.log"), // the config's folder
			link, // a link inside the thread's folder to the token
			cwd + "/../" + filepath.Base(h.dir) + "/data/token",
		} {
			// Whoever is asked approves: nothing may be asked.
			out, perms := confinedTurn(h, th.ID, "fs-read "+p, approve)
			if !strings.HasPrefix(out, "fs-read error -32603: switchboard: ") || !strings.Contains(out, "is protected") || strings.Contains(out, h.token) {
				t.Errorf("fs-read %s: %.200q, want refused as protected", p, out)
			}
			if len(perms) != 0 {
				t.Errorf("fs-read %s raised %d permissions, want none", p, len(perms))
			}
		}
		out, perms := confinedTurn(h, th.ID, "fs-write "+h.config+" listen: 127.0.0.1:1", approve)
		if !strings.Contains(out, "is protected") || len(perms) != 0 {
			t.Errorf("fs-write of the config: %q, %d permissions", out, len(perms))
		}
		if after, _ := os.ReadFile(h.config); string(after) != string(configBefore) {
			t.Error("the config file changed")
		}
	})

	t.Run("inside served without asking", func(t *testing.T) {
		h := h.withT(t)
		in := filepath.Join(cwd, "sub", "in.txt")
		if out, perms := confinedTurn(h, th.ID, "fs-write "+in+" hello inside", wait); out != "fs-write ok" || len(perms) != 0 {
			t.Errorf("fs-write inside: %q, %d permissions", out, len(perms))
		}
		if out, perms := confinedTurn(h, th.ID, "fs-read "+in, wait); out != "fs-read ok: hello inside" || len(perms) != 0 {
			t.Errorf("fs-read inside: %q, %d permissions", out, len(perms))
		}
		lib := filepath.Join(extra, "lib.txt")
		if out, perms := confinedTurn(h, th.ID, "fs-read "+lib, wait); out != "fs-read ok: extra folder" || len(perms) != 0 {
			t.Errorf("fs-read in folders.<cwd>.allowedFolders: %q, %d permissions", out, len(perms))
		}
	})

	t.Run("outside asks", func(t *testing.T) {
		h := h.withT(t)
		// ../ out of the thread's folder: resolved, then asked, approved.
		escape := cwd + "/../" + filepath.Base(outside) + "/./secret.txt"
		out, perms := confinedTurn(h, th.ID, "fs-read "+escape, approve)
		if out != "fs-read ok: outside secret" || len(perms) != 1 {
			t.Fatalf("fs-read %s approved: %q, %d permissions", escape, out, len(perms))
		}
		p := perms[0]
		var tc map[string]any
		json.Unmarshal(p.ToolCall, &tc)
		id, _ := tc["toolCallId"].(string)
		want := map[string]any{"toolCallId": id, "kind": "read", "title": "fs/read_text_file " + secret,
			"locations": []any{map[string]any{"path": secret}}}
		if !strings.HasPrefix(id, "hub_fs_") || !reflect.DeepEqual(tc, want) {
			t.Errorf("toolCall %s, want %v", p.ToolCall, want)
		}
		wantOpts := []apiOption{{OptionID: "allow", Name: "Allow", Kind: "allow_once"}, {OptionID: "reject", Name: "Reject", Kind: "reject_once"}}
		if !reflect.DeepEqual(p.Options, wantOpts) || p.Status != "approved" || p.ThreadID != th.ID || p.TurnID == "" {
			t.Errorf("permission %+v", p)
		}
		var required, resolved int
		for _, ev := range h.turn(th.ID, p.TurnID).Events {
			switch ev.Type {
			case "permission_required":
				required++
			case "permission_resolved":
				resolved++
			}
		}
		if required != 1 || resolved != 1 {
			t.Errorf("%d permission_required and %d permission_resolved events in the turn, want 1 each", required, resolved)
		}

		// Declined: a JSON-RPC error, nothing written.
		target := filepath.Join(outside, "planted.txt")
		out, perms = confinedTurn(h, th.ID, "fs-write "+target+" planted", decline)
		if !strings.HasPrefix(out, "fs-write error -32603: switchboard: permission denied") || len(perms) != 1 || perms[0].Status != "declined" {
			t.Errorf("declined write: %q, %+v", out, perms)
		} else if k := toolCallKind(perms[0]); k != "edit" {
			t.Errorf("write permission kind %q, want edit", k)
		}
		if _, err := os.Stat(target); err == nil {
			t.Error("a declined write happened")
		}

		// Nobody answers: expired at the deadline, refused.
		out, perms = confinedTurn(h, th.ID, "fs-read "+secret, wait)
		if !strings.HasPrefix(out, "fs-read error -32603: switchboard: permission denied") || len(perms) != 1 || perms[0].Status != "expired" {
			t.Errorf("expired read: %q, %+v", out, perms)
		}
	})

	t.Run("terminals", func(t *testing.T) {
		h := h.withT(t)
		script := filepath.Join(cwd, "env.sh")
		write(script, `echo "ssh=${SSH_AUTH_SOCK-unset} dbus=${DBUS_SESSION_BUS_ADDRESS-unset} mine=${MINE-unset} dir=$(pwd)"`+"\n")
		out, perms := confinedTurn(h, th.ID, "terminal-env MINE=value-not-shown sh "+script, approve)
		if want := "terminal exit 0 signal null truncated false\nssh=unset dbus=unset mine=value-not-shown dir=" + cwd + "\n"; out != want {
			t.Errorf("terminal: %q, want %q", out, want)
		}
		if len(perms) != 1 {
			t.Fatalf("terminal raised %d permissions, want 1", len(perms))
		}
		var tc struct {
			ToolCallID, Kind, Title string
			RawInput                struct {
				Command string
				Cwd     string
				Env     []string
			}
		}
		json.Unmarshal(perms[0].ToolCall, &tc)
		if !strings.HasPrefix(tc.ToolCallID, "hub_terminal_") || tc.Kind != "execute" || tc.Title != "sh "+script || tc.RawInput.Command != tc.Title ||
			tc.RawInput.Cwd != cwd || !reflect.DeepEqual(tc.RawInput.Env, []string{"MINE"}) || strings.Contains(string(perms[0].ToolCall), "value-not-shown") {
			t.Errorf("terminal permission toolCall %s", perms[0].ToolCall)
		}

		// Declined: not run.
		marker := filepath.Join(cwd, "ran")
		out, _ = confinedTurn(h, th.ID, "terminal touch "+marker, decline)
		if !strings.HasPrefix(out, "terminal error terminal/create -32603: switchboard: permission denied") {
			t.Errorf("declined terminal: %q", out)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Error("a declined command ran")
		}

		// A cwd outside the thread's folders: refused, nobody asked.
		out, perms = confinedTurn(h, th.ID, "terminal-in "+outside+" touch "+marker, approve)
		if !strings.Contains(out, "terminal error terminal/create -32603: switchboard: terminal cwd "+outside+" is outside") || len(perms) != 0 {
			t.Errorf("terminal outside: %q, %d permissions", out, len(perms))
		}
		// Nor the data dir.
		out, _ = confinedTurn(h, th.ID, "terminal-in "+h.dataDir+" touch "+marker, approve)
		if !strings.Contains(out, "is protected") {
			t.Errorf("terminal in the data dir: %q", out)
		}

		// terminals.inheritEnv, applied live: the SSH agent is passed on.
		cfg["terminals"] = map[string]any{"inheritEnv": []string{"SSH_AUTH_SOCK"}}
		writeConfig(t, h.dir, cfg)
		want := "ssh=/tmp/e2e-ssh-agent.sock dbus=unset"
		if !waitFor(30*time.Second, func() bool {
			out, _ = confinedTurn(h, th.ID, "terminal sh "+script, approve)
			return strings.Contains(out, want)
		}) {
			t.Fatalf("after terminals.inheritEnv [SSH_AUTH_SOCK]: %q, want %q", out, want)
		}

		// A command that outlives its turn: what it prints after the
		// next turn started is still its own turn's (turns' seq ranges,
		// ADR 0026), in the history, and not the next turn's.
		late := filepath.Join(cwd, "late.sh")
		write(late, "echo early\nsleep 1\necho late-output\n")
		out, perms = confinedTurn(h, th.ID, "terminal-bg sh "+late, approve)
		if !strings.HasPrefix(out, "terminal-bg ") || len(perms) != 1 {
			t.Fatalf("terminal-bg: %q, %+v", out, perms)
		}
		first := perms[0].TurnID
		next := h.startTurn(th.ID, "echo next")
		h.waitTurn(th.ID, next.ID, 60*time.Second)
		var lateSeq, nextStart int64
		waitFor(30*time.Second, func() bool {
			for _, tu := range h.history(th.ID, true) {
				for _, e := range tu.Events {
					switch {
					case e.Type == "terminal_output" && strings.Contains(e.Text, "late-output"):
						if tu.ID != first {
							t.Fatalf("the late output is in turn %s's history, want %s's", tu.ID, first)
						}
						lateSeq = e.Seq
					case e.Type == "turn_started" && tu.ID == next.ID:
						nextStart = e.Seq
					}
				}
			}
			return lateSeq != 0
		})
		if lateSeq == 0 || nextStart == 0 || lateSeq < nextStart {
			t.Errorf("late output at seq %d, the next turn started at %d: want it in the first turn's history, after", lateSeq, nextStart)
		}

		// The agent asked about this very command and the user approved:
		// the terminal runs without a second question.
		// The run is recorded: a terminal permission covered by the agent's.
		out, perms = confinedTurn(h, th.ID, "ask-terminal echo approved once", approve)
		if out != "terminal exit 0 signal null truncated false\napproved once\n" || len(perms) != 2 {
			t.Fatalf("ask-terminal: %q, %+v: want the agent's permission and the covered terminal", out, perms)
		}
		if agent, term := permOfKind(perms, "agent"), permOfKind(perms, "terminal"); strings.HasPrefix(permToolCallID(agent), "hub_") || agent.DecidedBy != "client:alice" ||
			term.Kind != "terminal" || term.DecidedBy != "covered:"+agent.ID || term.Request == nil || strings.Join(term.Request.Argv, " ") != "echo approved once" {
			t.Errorf("ask-terminal permissions %+v", perms)
		}
	})
}

// confinedTurn runs input as a turn of the thread and returns its output
// and the permissions it raised, as they ended. Each pending permission is
// handed to decide once: the decision it returns is posted (nil: left to
// expire).
func confinedTurn(h *hubProc, threadID, input string, decide func(apiPermission) any) (string, []apiPermission) {
	h.t.Helper()
	turn := h.startTurn(threadID, input)
	seen := map[string]bool{}
	var done *apiTurn
	if !waitFor(60*time.Second, func() bool {
		for _, p := range h.permissions("pending") {
			if p.TurnID == turn.ID && !seen[p.ID] {
				seen[p.ID] = true
				if d := decide(p); d != nil {
					if r := h.decide(p.ID, d); r.status != 200 {
						h.t.Errorf("deciding %s: %s", p.ID, r)
					}
				}
			}
		}
		for _, tu := range h.history(threadID, false) {
			if tu.ID == turn.ID && tu.Status != "running" {
				done = &tu
			}
		}
		return done != nil
	}) {
		h.t.Fatalf("turn %q still running after 60s", input)
	}
	var perms []apiPermission
	for _, p := range h.permissions("") {
		if p.TurnID == turn.ID {
			perms = append(perms, p)
		}
	}
	return done.Output, perms
}

// permOfKind is the first of perms of hub kind kind (zero if none).
func permOfKind(perms []apiPermission, kind string) apiPermission {
	for _, p := range perms {
		if p.Kind == kind {
			return p
		}
	}
	return apiPermission{}
}

func toolCallKind(p apiPermission) string {
	var tc struct{ Kind string }
	json.Unmarshal(p.ToolCall, &tc)
	return tc.Kind
}

func permToolCallID(p apiPermission) string {
	var tc struct{ ToolCallID string }
	json.Unmarshal(p.ToolCall, &tc)
	return tc.ToolCallID
}
