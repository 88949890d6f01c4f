package agentsetup

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/acp/acptest"
	"github.com/switchboard-hub/switchboard/hub"
)

func TestSignInRefusals(t *testing.T) {
	a := NewSignIns(SignInOptions{Catalogue: func() []acp.AgentSpec {
		return []acp.AgentSpec{{ID: "off", Name: "Off", Disabled: true}}
	}})
	ctx := context.Background()
	for _, id := range []string{"nobody", "off"} {
		if _, err := a.SignIn(ctx, id, "login"); hub.ErrorCode(err) != hub.CodeInvalidArgument {
			t.Errorf("signing %s in: %v", id, err)
		}
	}
	if _, err := a.WatchAuth(ctx, "auth_nope"); hub.ErrorCode(err) != hub.CodeNotFound {
		t.Errorf("watching an unknown session: %v", err)
	}
	if err := a.AuthInput(ctx, "auth_nope", "x"); hub.ErrorCode(err) != hub.CodeNotFound {
		t.Errorf("typing into an unknown session: %v", err)
	}
	if err := a.AuthResize(ctx, "auth_nope", 0, 30); hub.ErrorCode(err) != hub.CodeInvalidArgument {
		t.Errorf("a zero width: %v", err)
	}
	if err := a.CloseAuth(ctx, "auth_nope"); hub.ErrorCode(err) != hub.CodeNotFound {
		t.Errorf("closing an unknown session: %v", err)
	}
}

// A terminal sign-in runs the agent's program with the method's args in a
// PTY: a watcher gets its output and its exit, and a clean exit tells the
// engine the agent is signed in.
func TestTerminalSignIn(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	var mu sync.Mutex
	var signedIn []string
	a := NewSignIns(SignInOptions{SignedIn: func(id string) { mu.Lock(); signedIn = append(signedIn, id); mu.Unlock() }})
	t.Cleanup(a.Stop)
	id, err := a.startTerminal(acp.AgentSpec{ID: "term", Name: "Term", Command: acp.Command{Path: sh}},
		acp.AuthMethod{ID: "login", Args: []string{"-c", `read line; printf "signed in as %s\n" "$line"`}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	frames, err := a.WatchAuth(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.AuthResize(ctx, id, 120, 40); err != nil {
		t.Fatal(err)
	}
	if err := a.AuthInput(ctx, id, "me\n"); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	var exit *int
	for f := range frames {
		out.WriteString(f.Output)
		if f.Exit != nil {
			exit = f.Exit
		}
	}
	if exit == nil || *exit != 0 || !strings.Contains(out.String(), "signed in as me") {
		t.Fatalf("output %q, exit %v", out.String(), exit)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(signedIn) != 1 || signedIn[0] != "term" {
		t.Fatalf("signed in: %v", signedIn)
	}
	if err := a.AuthInput(ctx, id, "again\n"); hub.ErrorCode(err) != hub.CodeConflict {
		t.Errorf("typing after the exit: %v", err)
	}
}

// TestTerminalSignInCurses: a full-screen login program — dialog's menu, a
// curses program — works in the sign-in terminal: it draws with escape
// sequences at the size the window asked for, reads keys raw (no line
// editing: an arrow key is three bytes, Enter a carriage return), and a
// Down arrow then Enter picks the second entry. dialog switches the
// terminal to application cursor keys (ESC [?1h), so Down is ESC O B, as
// xterm.js in the window sends it then.
func TestTerminalSignInCurses(t *testing.T) {
	dialog, err := exec.LookPath("dialog")
	if err != nil {
		t.Fatal("dialog (a curses program) is needed: make deps-smoke installs it: ", err)
	}
	choice := filepath.Join(t.TempDir(), "choice")
	a := NewSignIns(SignInOptions{SignedIn: func(string) {}})
	t.Cleanup(a.Stop)
	id, err := a.startTerminal(acp.AgentSpec{ID: "curses", Name: "Curses", Command: acp.Command{Path: "sh"}},
		acp.AuthMethod{ID: "menu", Args: []string{"-c", `"$0" --menu "Sign in with" 12 40 2 one Browser two "Device code" 2>"$1"; test "$(cat "$1")" = two`, dialog, choice}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	frames, err := a.WatchAuth(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.AuthResize(ctx, id, 80, 24); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	var exit *int
	typed := false
	for f := range frames {
		out.WriteString(f.Output)
		if f.Exit != nil {
			exit = f.Exit
		}
		if !typed && strings.Contains(out.String(), "Device code") && strings.Contains(out.String(), "\x1b[") {
			typed = true
			for _, key := range []string{"\x1bOB", "\r"} {
				if err := a.AuthInput(ctx, id, key); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	b, _ := os.ReadFile(choice)
	if !typed || exit == nil || *exit != 0 || string(b) != "two" {
		t.Fatalf("menu drawn and keys sent %v, exit %s, chosen %q; the screen:\n%q", typed, exitText(exit), b, out.String())
	}
}

// An env_var method is signed in once its variables reach the agent: from
// its env in the config, or passed through from the hub's own; an empty
// value or an optional variable's absence does not count.
func TestMissingVars(t *testing.T) {
	t.Setenv("SWB_TEST_PASSED", "from-the-hub")
	spec := acp.AgentSpec{ID: "k", Command: acp.Command{Path: "k", Env: []string{"SWB_TEST_KEY=sk-1", "SWB_TEST_EMPTY="}, PassEnv: []string{"SWB_TEST_PASSED"}}}
	for _, c := range []struct {
		m    acp.AuthMethod
		want string
	}{
		{acp.AuthMethod{Type: acp.AuthEnvVar, VarName: "SWB_TEST_KEY"}, ""},
		{acp.AuthMethod{Type: acp.AuthEnvVar, VarName: "SWB_TEST_PASSED"}, ""},
		{acp.AuthMethod{Type: acp.AuthEnvVar, VarName: "SWB_TEST_EMPTY"}, "SWB_TEST_EMPTY"},
		{acp.AuthMethod{Type: acp.AuthEnvVar, VarName: "SWB_TEST_NONE"}, "SWB_TEST_NONE"},
		{acp.AuthMethod{Type: acp.AuthEnvVar, Vars: []acp.AuthVar{{Name: "SWB_TEST_KEY"}, {Name: "SWB_TEST_OPT", Optional: true}, {Name: "SWB_TEST_NONE"}}}, "SWB_TEST_NONE"},
	} {
		if got := strings.Join(missingVars(spec, c.m), ","); got != c.want {
			t.Errorf("%+v: missing %q, want %q", c.m, got, c.want)
		}
	}
}

// An env_var method signs in once its key reaches the agent: before, a
// 400 naming the variable and no sign-in; after, {} and exactly one
// SignedIn (the engine's restart and retry).
func TestEnvVarSignIn(t *testing.T) {
	path, args, env := acptest.FakeAgentArgv(t, "FAKEAGENT_AUTH_REQUIRED=1", "FAKEAGENT_KEY_VAR=FAKEAGENT_TEST_KEY")
	spec := acp.AgentSpec{ID: "keyed", Name: "Keyed", Command: acp.Command{Path: path, Args: args, Env: env}}
	var mu sync.Mutex
	var signedIn []string
	a := NewSignIns(SignInOptions{
		Catalogue: func() []acp.AgentSpec { return []acp.AgentSpec{spec} },
		SignedIn:  func(id string) { mu.Lock(); signedIn = append(signedIn, id); mu.Unlock() },
	})
	t.Cleanup(a.Stop)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := a.SignIn(ctx, "keyed", "fake-key")
	if hub.ErrorCode(err) != hub.CodeInvalidArgument || !strings.Contains(err.Error(), "FAKEAGENT_TEST_KEY") {
		t.Fatalf("without the key: %v", err)
	}
	spec.Command.Env = append(spec.Command.Env, "FAKEAGENT_TEST_KEY=sk-1")
	if r, err := a.SignIn(ctx, "keyed", "fake-key"); err != nil || r.AuthSessionID != "" {
		t.Fatalf("with the key: %+v %v", r, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(signedIn) != 1 || signedIn[0] != "keyed" {
		t.Fatalf("signed in: %v", signedIn)
	}
}

// exitText is an exit code for a message ("none" when it never came).
func exitText(code *int) string {
	if code == nil {
		return "none"
	}
	return strconv.Itoa(*code)
}
