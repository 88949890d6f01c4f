//go:build unix

package acptest

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/fakemodel"
)

// TestRealAgentStarts starts each recipe's agent and checks that it answers
// initialize with ACP version 1 and the version install-agents.sh pins.
func TestRealAgentStarts(t *testing.T) {
	for _, tt := range []struct {
		name, agentName, version string
		start                    func(testing.TB, string, string) RealAgent
	}{
		{"qwen", "qwen-code", QwenVersion, Qwen},
		{"claude", "@agentclientprotocol/claude-agent-acp", ClaudeVersion, Claude},
		{"opencode", "OpenCode", OpenCodeVersion, OpenCode},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			model := fakemodel.Start(t)
			ra := tt.start(t, ToolsDir(t), model.URL)
			start := time.Now()
			line := realInitialize(t, ra)
			t.Logf("%s answered initialize after %v", ra.Name, time.Since(start).Round(time.Millisecond))
			var resp struct {
				ID     *int `json:"id"`
				Result struct {
					ProtocolVersion int `json:"protocolVersion"`
					AgentInfo       struct {
						Name, Version string
					} `json:"agentInfo"`
				} `json:"result"`
			}
			if err := json.Unmarshal([]byte(line), &resp); err != nil || resp.ID == nil || *resp.ID != 0 {
				t.Fatalf("initialize answer %s: %v", line, err)
			}
			if r := resp.Result; r.ProtocolVersion != 1 || r.AgentInfo.Name != tt.agentName || r.AgentInfo.Version != tt.version {
				t.Errorf("initialize answered %s; want protocolVersion 1 from %s %s", line, tt.agentName, tt.version)
			}
		})
	}
}

// realInitialize starts ra in a process group of its own, with PATH and
// ra.Env only, sends initialize and returns the first line answering it.
// The group is killed at cleanup.
func realInitialize(t *testing.T, ra RealAgent) string {
	t.Helper()
	cmd := exec.Command(ra.Path, ra.Args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, ra.Env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 2 * time.Second
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", ra.Name, err)
	}
	waited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(waited) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-waited
		if t.Failed() {
			t.Logf("%s stderr:\n%s", ra.Name, stderr.String())
		}
	})

	const req = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,` +
		`"clientCapabilities":{"fs":{"readTextFile":false,"writeTextFile":false},"terminal":false},` +
		`"clientInfo":{"name":"acptest","version":"0"}}}` + "\n"
	if _, err := stdin.Write([]byte(req)); err != nil {
		t.Fatalf("%s: writing initialize: %v", ra.Name, err)
	}
	answer := make(chan string, 1)
	go func() {
		defer close(answer)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(sc.Bytes(), &m) == nil && m.Method == "" && string(m.ID) == "0" {
				answer <- sc.Text()
				return
			}
		}
	}()
	// Qwen answers after ~3 s on an idle machine, 10+ s on a loaded one.
	select {
	case line, ok := <-answer:
		if !ok {
			t.Fatalf("%s closed its stdout without answering initialize", ra.Name)
		}
		return line
	case <-time.After(90 * time.Second):
		t.Fatalf("%s: no answer to initialize within 90s", ra.Name)
	}
	return ""
}
