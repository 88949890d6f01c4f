//go:build unix

package acp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
)

func newTerminals(t *testing.T, opts TerminalOptions) *Terminals {
	t.Helper()
	if opts.Grace == 0 {
		opts.Grace = 300 * time.Millisecond
	}
	ts := NewTerminals(opts)
	t.Cleanup(ts.Close)
	return ts
}

// run creates a terminal in session "s" and waits for its exit.
func run(t *testing.T, ts *Terminals, cwd string, req CreateTerminalRequest) (string, TerminalOutputResponse) {
	t.Helper()
	if req.SessionID == "" {
		req.SessionID = "s"
	}
	c, err := ts.Create(context.Background(), cwd, req)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
	defer cancel()
	if _, err := ts.WaitForExit(ctx, WaitForTerminalExitRequest{SessionID: req.SessionID, TerminalID: c.TerminalID}); err != nil {
		t.Fatalf("WaitForExit: %v", err)
	}
	out, err := ts.Output(context.Background(), TerminalOutputRequest{SessionID: req.SessionID, TerminalID: c.TerminalID})
	if err != nil {
		t.Fatalf("Output: %v", err)
	}
	return c.TerminalID, out
}

func exitOf(t *testing.T, out TerminalOutputResponse) string {
	t.Helper()
	st := out.ExitStatus
	switch {
	case st == nil:
		t.Fatal("no exit status")
	case (st.ExitCode == nil) == (st.Signal == nil):
		t.Fatalf("exit status %+v: want exactly one of code and signal", st)
	case st.Signal != nil:
		return *st.Signal
	}
	return strconv.Itoa(*st.ExitCode)
}

func TestTerminalRun(t *testing.T) {
	cwd := t.TempDir()
	other := t.TempDir()
	realCwd, _ := filepath.EvalSymlinks(cwd)
	realOther, _ := filepath.EvalSymlinks(other)
	ts := newTerminals(t, TerminalOptions{BaseEnv: []string{"PATH=" + os.Getenv("PATH"), "SWITCHBOARD_TOKEN=secret"}})
	tests := []struct {
		name      string
		req       CreateTerminalRequest
		want      string
		exit      string
		truncated bool
	}{
		{"echo", CreateTerminalRequest{Command: "echo", Args: []string{"hello", "world"}}, "hello world\n", "0", false},
		{"args are not shell words", CreateTerminalRequest{Command: "echo", Args: []string{"$HOME", "a;b"}}, "$HOME a;b\n", "0", false},
		{"stderr merged", CreateTerminalRequest{Command: "sh", Args: []string{"-c", "echo out; echo err >&2"}}, "out\nerr\n", "0", false},
		{"exit code", CreateTerminalRequest{Command: "sh", Args: []string{"-c", "exit 7"}}, "", "7", false},
		{"signal", CreateTerminalRequest{Command: "sh", Args: []string{"-c", "kill -KILL $$"}}, "", "SIGKILL", false},
		{"cwd defaults to the session's", CreateTerminalRequest{Command: "pwd"}, realCwd + "\n", "0", false},
		{"explicit cwd", CreateTerminalRequest{Command: "pwd", Cwd: other}, realOther + "\n", "0", false},
		{"env", CreateTerminalRequest{Command: "sh", Args: []string{"-c", `echo "$FOO ${SWITCHBOARD_TOKEN-unset}"`},
			Env: []EnvVariable{{Name: "FOO", Value: "bar baz"}, {Name: "SWITCHBOARD_TOKEN", Value: "x"}}}, "bar baz unset\n", "0", false},
		{"shell line without args", CreateTerminalRequest{Command: "echo one | tr a-z A-Z && echo two"}, "ONE\ntwo\n", "0", false},
		{"capped", CreateTerminalRequest{Command: "sh", Args: []string{"-c", "yes | head -c 5000000"}, OutputByteLimit: intp(1000)},
			strings.Repeat("y\n", 500), "0", true},
		{"zero limit", CreateTerminalRequest{Command: "echo", Args: []string{"x"}, OutputByteLimit: intp(0)}, "", "0", true},
		{"capped at a character boundary", CreateTerminalRequest{Command: "sh", Args: []string{"-c", `i=0; while [ $i -lt 300 ]; do printf 'é'; i=$((i+1)); done`}, OutputByteLimit: intp(101)},
			strings.Repeat("é", 50), "0", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, out := run(t, ts, cwd, tt.req)
			if out.Output != tt.want {
				t.Errorf("output = %.100q, want %.100q", out.Output, tt.want)
			}
			if !utf8.ValidString(out.Output) {
				t.Errorf("output is not valid UTF-8")
			}
			if out.Truncated != tt.truncated {
				t.Errorf("truncated = %v, want %v", out.Truncated, tt.truncated)
			}
			if got := exitOf(t, out); got != tt.exit {
				t.Errorf("exit = %s, want %s", got, tt.exit)
			}
		})
	}
}

func TestTerminalCreateErrors(t *testing.T) {
	ts := newTerminals(t, TerminalOptions{})
	cwd := t.TempDir()
	tests := []struct {
		name string
		req  CreateTerminalRequest
		code int // 0: a plain error
		msg  string
	}{
		{"no command", CreateTerminalRequest{}, CodeInvalidParams, "command"},
		{"relative cwd", CreateTerminalRequest{Command: "pwd", Cwd: "sub"}, CodeInvalidParams, "absolute"},
		{"missing cwd", CreateTerminalRequest{Command: "pwd", Cwd: "/nonexistent-switchboard"}, CodeInvalidParams, "/nonexistent-switchboard"},
		{"bad env name", CreateTerminalRequest{Command: "pwd", Env: []EnvVariable{{Name: "A=B", Value: "x"}}}, CodeInvalidParams, "A=B"},
		{"negative limit", CreateTerminalRequest{Command: "pwd", OutputByteLimit: intp(-1)}, CodeInvalidParams, "outputByteLimit"},
		{"missing program", CreateTerminalRequest{Command: "switchboard-no-such-cmd", Args: []string{"x"}}, 0, `"switchboard-no-such-cmd"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.SessionID = "s"
			_, err := ts.Create(context.Background(), cwd, tt.req)
			code, coded := ErrorCode(err)
			if err == nil || code != tt.code || coded != (tt.code != 0) || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err = %v (code %d), want code %d mentioning %q", err, code, tt.code, tt.msg)
			}
		})
	}
}

// startGrandparent starts sh with a background sleep whose pid it prints,
// then waits for it, and returns the terminal id and the sleep's pid.
func startGrandparent(t *testing.T, ts *Terminals, session string) (string, int) {
	t.Helper()
	c, err := ts.Create(context.Background(), t.TempDir(), CreateTerminalRequest{
		SessionID: session, Command: "sh", Args: []string{"-c", "sleep 60 & echo $!; wait"},
	})
	if err != nil {
		t.Fatal(err)
	}
	pid := 0
	testkit.Eventually(t, 5*time.Second, "a pid printed", func() bool {
		out, err := ts.Output(context.Background(), TerminalOutputRequest{SessionID: session, TerminalID: c.TerminalID})
		if err != nil {
			t.Fatal(err)
		}
		line, ok := strings.CutSuffix(out.Output, "\n")
		if !ok {
			return false
		}
		if pid, err = strconv.Atoi(line); err != nil {
			t.Fatalf("output %q", out.Output)
		}
		if out.ExitStatus != nil {
			t.Fatalf("exited early: %+v", out.ExitStatus)
		}
		return true
	})
	return c.TerminalID, pid
}

func TestTerminalKill(t *testing.T) {
	ts := newTerminals(t, TerminalOptions{})
	id, gpid := startGrandparent(t, ts, "s")
	if _, err := ts.Kill(context.Background(), KillTerminalRequest{SessionID: "s", TerminalID: id}); err != nil {
		t.Fatal(err)
	}
	waitGone(t, gpid, 2*time.Second)
	// Still valid after kill, with an exit status.
	out, err := ts.Output(context.Background(), TerminalOutputRequest{SessionID: "s", TerminalID: id})
	if err != nil {
		t.Fatal(err)
	}
	if got := exitOf(t, out); got != "SIGTERM" {
		t.Errorf("exit = %s, want SIGTERM", got)
	}
	w, err := ts.WaitForExit(context.Background(), WaitForTerminalExitRequest{SessionID: "s", TerminalID: id})
	if err != nil || w.Signal == nil || *w.Signal != "SIGTERM" || w.ExitCode != nil {
		t.Errorf("WaitForExit = %+v, %v", w, err)
	}
	// Killing again is harmless.
	if _, err := ts.Kill(context.Background(), KillTerminalRequest{SessionID: "s", TerminalID: id}); err != nil {
		t.Errorf("second Kill: %v", err)
	}
}

func TestTerminalKillEscalates(t *testing.T) {
	ts := newTerminals(t, TerminalOptions{Grace: 200 * time.Millisecond})
	c, err := ts.Create(context.Background(), t.TempDir(), CreateTerminalRequest{
		SessionID: "s", Command: "sh", Args: []string{"-c", `trap "" TERM; echo ready; while :; do sleep 1; done`},
	})
	if err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 5*time.Second, "the terminal to print ready", func() bool {
		out, _ := ts.Output(context.Background(), TerminalOutputRequest{SessionID: "s", TerminalID: c.TerminalID})
		return out.Output == "ready\n"
	})
	start := time.Now()
	ts.Kill(context.Background(), KillTerminalRequest{SessionID: "s", TerminalID: c.TerminalID})
	if d := time.Since(start); d < 200*time.Millisecond || d > 3*time.Second {
		t.Errorf("Kill took %v, want about one grace", d)
	}
	out, _ := ts.Output(context.Background(), TerminalOutputRequest{SessionID: "s", TerminalID: c.TerminalID})
	if got := exitOf(t, out); got != "SIGKILL" {
		t.Errorf("exit = %s, want SIGKILL", got)
	}
}

func TestTerminalRelease(t *testing.T) {
	ts := newTerminals(t, TerminalOptions{})
	id, gpid := startGrandparent(t, ts, "s")
	if _, err := ts.Release(context.Background(), ReleaseTerminalRequest{SessionID: "s", TerminalID: id}); err != nil {
		t.Fatal(err)
	}
	waitGone(t, gpid, 2*time.Second)
	_, err := ts.Output(context.Background(), TerminalOutputRequest{SessionID: "s", TerminalID: id})
	wantCode(t, err, CodeResourceNotFound, id)
	_, err = ts.Release(context.Background(), ReleaseTerminalRequest{SessionID: "s", TerminalID: id})
	wantCode(t, err, CodeResourceNotFound, id)
}

func TestTerminalBackgroundJobKilledAtExit(t *testing.T) {
	ts := newTerminals(t, TerminalOptions{Grace: 5 * time.Second})
	start := time.Now()
	_, out := run(t, ts, t.TempDir(), CreateTerminalRequest{Command: "sh", Args: []string{"-c", "sleep 60 & echo $!"}})
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("exit took %v: the background job held the output", d)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(out.Output))
	if err != nil {
		t.Fatalf("output %q", out.Output)
	}
	waitGone(t, pid, 2*time.Second)
}

func TestTerminalSessionOwnership(t *testing.T) {
	ts := newTerminals(t, TerminalOptions{})
	ctx := context.Background()
	a, err := ts.Create(ctx, t.TempDir(), CreateTerminalRequest{SessionID: "A", Command: "sleep", Args: []string{"30"}})
	if err != nil {
		t.Fatal(err)
	}
	a2, _ := ts.Create(ctx, t.TempDir(), CreateTerminalRequest{SessionID: "A", Command: "sleep", Args: []string{"30"}})
	b, _ := ts.Create(ctx, t.TempDir(), CreateTerminalRequest{SessionID: "B", Command: "sleep", Args: []string{"30"}})

	_, err = ts.Output(ctx, TerminalOutputRequest{SessionID: "B", TerminalID: a.TerminalID})
	wantCode(t, err, CodeResourceNotFound, a.TerminalID)
	_, err = ts.WaitForExit(ctx, WaitForTerminalExitRequest{SessionID: "B", TerminalID: a.TerminalID})
	wantCode(t, err, CodeResourceNotFound, a.TerminalID)
	_, err = ts.Kill(ctx, KillTerminalRequest{SessionID: "B", TerminalID: a.TerminalID})
	wantCode(t, err, CodeResourceNotFound, a.TerminalID)
	_, err = ts.Release(ctx, ReleaseTerminalRequest{SessionID: "B", TerminalID: a.TerminalID})
	wantCode(t, err, CodeResourceNotFound, a.TerminalID)
	// A's terminal survived B's attempts.
	if out, err := ts.Output(ctx, TerminalOutputRequest{SessionID: "A", TerminalID: a.TerminalID}); err != nil || out.ExitStatus != nil {
		t.Fatalf("A's terminal: %+v, %v", out, err)
	}

	start := time.Now()
	ts.ReleaseSession("A")
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("ReleaseSession took %v", d)
	}
	for _, id := range []string{a.TerminalID, a2.TerminalID} {
		_, err = ts.Output(ctx, TerminalOutputRequest{SessionID: "A", TerminalID: id})
		wantCode(t, err, CodeResourceNotFound, id)
	}
	if out, err := ts.Output(ctx, TerminalOutputRequest{SessionID: "B", TerminalID: b.TerminalID}); err != nil || out.ExitStatus != nil {
		t.Fatalf("B's terminal after releasing A: %+v, %v", out, err)
	}

	ts.Close()
	_, err = ts.Output(ctx, TerminalOutputRequest{SessionID: "B", TerminalID: b.TerminalID})
	wantCode(t, err, CodeResourceNotFound, b.TerminalID)
	if _, err := ts.Create(ctx, t.TempDir(), CreateTerminalRequest{SessionID: "B", Command: "true"}); err == nil {
		t.Error("Create after Close succeeded")
	}
	ts.Close() // idempotent
}

func TestTerminalWaitHonoursContext(t *testing.T) {
	ts := newTerminals(t, TerminalOptions{})
	c, err := ts.Create(context.Background(), t.TempDir(), CreateTerminalRequest{SessionID: "s", Command: "sleep", Args: []string{"30"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = ts.WaitForExit(ctx, WaitForTerminalExitRequest{SessionID: "s", TerminalID: c.TerminalID})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("WaitForExit took %v", d)
	}
	// The command is untouched by an abandoned wait.
	out, _ := ts.Output(context.Background(), TerminalOutputRequest{SessionID: "s", TerminalID: c.TerminalID})
	if out.ExitStatus != nil {
		t.Fatalf("exited: %+v", out.ExitStatus)
	}
}

func TestTerminalConcurrentWaiters(t *testing.T) {
	ts := newTerminals(t, TerminalOptions{})
	c, err := ts.Create(context.Background(), t.TempDir(), CreateTerminalRequest{SessionID: "s", Command: "sh", Args: []string{"-c", "sleep 0.2; exit 4"}})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() {
			w, err := ts.WaitForExit(context.Background(), WaitForTerminalExitRequest{SessionID: "s", TerminalID: c.TerminalID})
			if err != nil || w.ExitCode == nil || *w.ExitCode != 4 {
				t.Errorf("WaitForExit = %+v, %v", w, err)
			}
		})
	}
	wg.Wait()
}

func TestTerminalJSON(t *testing.T) {
	var req CreateTerminalRequest
	in := `{"sessionId":"s","command":"npm","args":["test"],"env":[{"name":"CI","value":"1"}],"cwd":"/w","outputByteLimit":1024}`
	if err := json.Unmarshal([]byte(in), &req); err != nil {
		t.Fatal(err)
	}
	if req.Command != "npm" || req.Args[0] != "test" || req.Env[0].Name != "CI" || req.Cwd != "/w" || *req.OutputByteLimit != 1024 {
		t.Fatalf("decoded %+v", req)
	}
	code, sig := 0, "SIGTERM"
	tests := []struct {
		v    any
		want string
	}{
		{CreateTerminalResponse{TerminalID: "t1"}, `{"terminalId":"t1"}`},
		{TerminalOutputResponse{Output: "", Truncated: false}, `{"output":"","truncated":false}`},
		{TerminalOutputResponse{Output: "x", Truncated: true, ExitStatus: &TerminalExitStatus{ExitCode: &code}}, `{"output":"x","truncated":true,"exitStatus":{"exitCode":0,"signal":null}}`},
		{WaitForTerminalExitResponse{Signal: &sig}, `{"exitCode":null,"signal":"SIGTERM"}`},
		{KillTerminalResponse{}, `{}`},
		{ReleaseTerminalResponse{}, `{}`},
		{ReleaseTerminalRequest{SessionID: "s", TerminalID: "t"}, `{"sessionId":"s","terminalId":"t"}`},
	}
	for _, tt := range tests {
		if b, _ := json.Marshal(tt.v); string(b) != tt.want {
			t.Errorf("%T = %s, want %s", tt.v, b, tt.want)
		}
	}
}

// A terminal command inherits neither the SSH agent nor the session bus,
// unless its grant names them; a grant's Dir replaces the cwd asked.
func TestTerminalWithheldEnv(t *testing.T) {
	base := []string{"PATH=" + os.Getenv("PATH"), "SSH_AUTH_SOCK=/run/agent.sock", "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/bus", "LANG=C", "EXTRA_VAR=x"}
	ts := newTerminals(t, TerminalOptions{BaseEnv: base})
	cwd, other := t.TempDir(), t.TempDir()
	realOther, _ := filepath.EvalSymlinks(other)
	script := `echo "${SSH_AUTH_SOCK-unset} ${DBUS_SESSION_BUS_ADDRESS-unset} ${LANG-unset} ${EXTRA_VAR-unset} $(pwd)"`
	tests := []struct {
		name  string
		grant TerminalGrant
		want  string
	}{
		{"default", TerminalGrant{}, "unset unset C unset " + cwd},
		{"ssh inherited", TerminalGrant{InheritEnv: []string{"SSH_AUTH_SOCK"}}, "/run/agent.sock unset C unset " + cwd},
		{"prefix and extra", TerminalGrant{InheritEnv: []string{"DBUS_*", "EXTRA_VAR"}}, "unset unix:path=/run/bus C x " + cwd},
		{"dir", TerminalGrant{Dir: other}, "unset unset C unset " + realOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ts.CreateWith(context.Background(), cwd, CreateTerminalRequest{SessionID: "s", Command: "sh", Args: []string{"-c", script}}, tt.grant)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
			defer cancel()
			if _, err := ts.WaitForExit(ctx, WaitForTerminalExitRequest{SessionID: "s", TerminalID: c.TerminalID}); err != nil {
				t.Fatal(err)
			}
			out, _ := ts.Output(ctx, TerminalOutputRequest{SessionID: "s", TerminalID: c.TerminalID})
			want := tt.want
			if tt.grant.Dir == "" {
				real, _ := filepath.EvalSymlinks(cwd)
				want = strings.Replace(want, cwd, real, 1)
			}
			if out.Output != want+"\n" {
				t.Errorf("output %q, want %q", out.Output, want+"\n")
			}
		})
	}
}
