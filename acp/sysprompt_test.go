//go:build unix

package acp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest"
)

// TestSystemPromptSentOnlyWhenAdvertised: the client system prompt goes on
// session/new, load and resume to an agent that advertises it, in the mode
// asked; an agent that does not advertise it gets no systemPrompt field; an
// agent that advertises only append is never sent override (the request is
// not sent, ErrUnsupported), nor is it quietly sent as append.
func TestSystemPromptSentOnlyWhenAdvertised(t *testing.T) {
	ctx := context.Background()
	launch := func(t *testing.T, opts ...string) (*Agent, string) {
		rec := filepath.Join(t.TempDir(), "rec")
		path, args, env := acptest.FakeAgentArgv(t, append(opts, "FAKEAGENT_RECORD="+rec)...)
		a, err := Launch(ctx, Command{Path: path, Args: args, Env: env}, newRecorder(), AgentOptions{Process: ProcessOptions{Grace: 200 * time.Millisecond}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Close(ctx) })
		return a, rec
	}
	sent := func(t *testing.T, rec string) []string { // each request's systemPrompt, "" when absent
		b, err := os.ReadFile(rec)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var r struct {
				Method string `json:"method"`
				Params struct {
					SystemPrompt json.RawMessage `json:"systemPrompt"`
				} `json:"params"`
			}
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatal(err)
			}
			out = append(out, r.Method+" "+string(r.Params.SystemPrompt))
		}
		return out
	}
	appendP := SystemPrompt{Mode: SystemPromptAppend, Text: "Answer in French."}
	overrideP := SystemPrompt{Mode: SystemPromptOverride, Text: "You are terse."}

	t.Run("override advertised", func(t *testing.T) {
		a, rec := launch(t, "FAKEAGENT_SYSTEM_PROMPT=override", "FAKEAGENT_LOAD_SESSION=1", "FAKEAGENT_SESSION_CAPS=1")
		if s := a.Capabilities().SystemPromptSupport(); !s.Append || !s.Override {
			t.Fatalf("support %+v, want append and override", s)
		}
		dir := t.TempDir()
		s, err := a.NewSessionIn(ctx, SessionDirs{Cwd: dir, SystemPrompt: overrideP}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.LoadSessionIn(ctx, s.SessionID, SessionDirs{Cwd: dir, SystemPrompt: appendP}, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := a.ResumeSessionIn(ctx, s.SessionID, SessionDirs{Cwd: dir, SystemPrompt: overrideP}, nil); err != nil {
			t.Fatal(err)
		}
		want := []string{
			`session/new {"content":[{"type":"text","text":"You are terse."}],"mode":"override"}`,
			`session/load {"content":[{"type":"text","text":"Answer in French."}],"mode":"append"}`,
			`session/resume {"content":[{"type":"text","text":"You are terse."}],"mode":"override"}`,
		}
		if got := sent(t, rec); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("sent:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
	t.Run("append only", func(t *testing.T) {
		a, rec := launch(t, "FAKEAGENT_SYSTEM_PROMPT=append")
		if s := a.Capabilities().SystemPromptSupport(); !s.Append || s.Override {
			t.Fatalf("support %+v, want append only", s)
		}
		_, err := a.NewSessionIn(ctx, SessionDirs{Cwd: t.TempDir(), SystemPrompt: overrideP}, nil)
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "override") {
			t.Fatalf("override to an append-only agent: %v, want ErrUnsupported naming override", err)
		}
		if _, err := a.NewSessionIn(ctx, SessionDirs{Cwd: t.TempDir(), SystemPrompt: appendP}, nil); err != nil {
			t.Fatal(err)
		}
		want := `session/new {"content":[{"type":"text","text":"Answer in French."}],"mode":"append"}`
		if got := sent(t, rec); len(got) != 1 || got[0] != want {
			t.Fatalf("sent %q, want only %q (the refused override never went out)", got, want)
		}
	})
	t.Run("not advertised", func(t *testing.T) {
		a, rec := launch(t)
		if s := a.Capabilities().SystemPromptSupport(); s.Append || s.Override {
			t.Fatalf("support %+v, want none", s)
		}
		for _, p := range []SystemPrompt{appendP, overrideP} {
			if _, err := a.NewSessionIn(ctx, SessionDirs{Cwd: t.TempDir(), SystemPrompt: p}, nil); err != nil {
				t.Fatalf("%s to an agent without the capability: %v, want a session without it", p.Mode, err)
			}
		}
		if got := sent(t, rec); len(got) != 2 || got[0] != "session/new " || got[1] != "session/new " {
			t.Fatalf("sent %q, want two session/new without systemPrompt", got)
		}
	})
}
