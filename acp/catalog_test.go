package acp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBuiltinCatalogue(t *testing.T) {
	want := map[string]string{
		"claude": "claude-agent-acp", "codex": "codex-acp", "gemini": "gemini --acp", "qwen": "qwen --acp",
		"opencode": "opencode acp", "copilot": "copilot --acp", "goose": "goose acp",
	}
	got := map[string]string{}
	for _, s := range Builtin() {
		got[s.ID] = strings.Join(append([]string{s.Command.Path}, s.Command.Args...), " ")
		if s.Install == "" || s.Name == "" || len(s.Command.PassEnv) == 0 {
			t.Errorf("%s: incomplete entry %+v", s.ID, s)
		}
		for _, p := range s.Command.PassEnv {
			if strings.HasPrefix(p, "SWITCHBOARD") || p == "*" {
				t.Errorf("%s passes %q", s.ID, p)
			}
		}
	}
	if len(got) != len(want) {
		t.Fatalf("catalogue %v", got)
	}
	for id, cmd := range want {
		if got[id] != cmd {
			t.Errorf("%s: command %q, want %q", id, got[id], cmd)
		}
	}
}

func TestMergeConfig(t *testing.T) {
	off := false
	merged, err := Merge(Builtin(), map[string]AgentConfig{
		"claude": {Env: map[string]string{"B": "2", "A": "1"}},
		"gemini": {Enabled: &off},
		"qwen":   {Command: "/opt/qwen/bin/qwen", Args: []string{"--acp", "--auth-type=openai"}},
		"mine":   {Name: "My agent", Command: "/usr/local/bin/my-agent"},
	})
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]AgentSpec{}
	for i, s := range merged {
		by[s.ID] = s
		if i > 0 && merged[i-1].ID >= s.ID {
			t.Fatalf("not sorted by id: %v", merged)
		}
	}
	if c := by["claude"].Command; c.Path != "claude-agent-acp" || strings.Join(c.Env, ",") != "A=1,B=2" || len(c.PassEnv) == 0 {
		t.Errorf("claude %+v", c)
	}
	if !by["gemini"].Disabled || Detect(by["gemini"]).Available {
		t.Errorf("gemini not disabled: %+v", by["gemini"])
	}
	if c := by["qwen"].Command; c.Path != "/opt/qwen/bin/qwen" || strings.Join(c.Args, " ") != "--acp --auth-type=openai" {
		t.Errorf("qwen %+v", c)
	}
	if m := by["mine"]; !m.Custom || m.Name != "My agent" || m.Command.Path != "/usr/local/bin/my-agent" {
		t.Errorf("custom %+v", m)
	}
	if Builtin()[0].Command.Env != nil {
		t.Error("Merge modified the built-in catalogue")
	}
	if _, err := Merge(Builtin(), map[string]AgentConfig{"nocmd": {Name: "x"}}); err == nil || !strings.Contains(err.Error(), "agents.nocmd") {
		t.Errorf("custom agent without command: %v", err)
	}
}

func TestDetect(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "my-agent")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	if d := Detect(AgentSpec{ID: "x", Command: Command{Path: "my-agent"}}); !d.Available || d.Path != prog {
		t.Errorf("on PATH: %+v", d)
	}
	d := Detect(AgentSpec{ID: "claude", Command: Command{Path: "claude-agent-acp"}, Install: "npm install -g @agentclientprotocol/claude-agent-acp"})
	if d.Available || !strings.Contains(d.Reason, "not found on PATH") || !strings.Contains(d.Reason, "npm install -g") {
		t.Errorf("missing: %+v", d)
	}
}
