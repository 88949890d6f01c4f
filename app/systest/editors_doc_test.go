//go:build linux

package systest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// docs/EDITORS.md promises "exact, tested configuration": this is the
// test. Every editor configuration in it (Zed's and JetBrains' JSON,
// CodeCompanion's Lua, agent-shell's Emacs Lisp) is read back into the
// command line and environment the editor would start, and each is run as
// written — only "switchboard" resolved to the binary under test, as the
// editor's PATH would — against a running hub found the way the docs say,
// through the default data dir: initialize, session/new, a prompt.

// editorsDoc is the file under test, from the app package.
const editorsDoc = "../../docs/EDITORS.md"

// editorEntry is one agent entry of one editor's configuration.
type editorEntry struct {
	editor string // the section it is in: "Zed", "Neovim: CodeCompanion", …
	name   string // its name in that configuration
	argv   []string
	env    map[string]string
}

// agentID is the value of --agent in the entry's command line.
func (e editorEntry) agentID() string {
	if i := slices.Index(e.argv, "--agent"); i >= 0 && i+1 < len(e.argv) {
		return e.argv[i+1]
	}
	return ""
}

// docBlock is one fenced code block of a Markdown file.
type docBlock struct {
	section string // the last "## " heading above it
	lang    string
	text    string
}

func docBlocks(t *testing.T, path string) []docBlock {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []docBlock
	var section string
	var cur *docBlock
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case cur != nil && strings.HasPrefix(line, "```"):
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		case strings.HasPrefix(line, "```"):
			cur = &docBlock{section: section, lang: strings.TrimPrefix(line, "```")}
		case strings.HasPrefix(line, "## "):
			section = strings.TrimPrefix(line, "## ")
		}
	}
	if cur != nil {
		t.Fatalf("%s: a code block is not closed", path)
	}
	return out
}

var (
	quoted         = regexp.MustCompile(`"([^"]*)"`)
	luaCommand     = regexp.MustCompile(`default\s*=\s*\{([^}]*)\}`)
	luaName        = regexp.MustCompile(`formatted_name\s*=\s*"([^"]*)"`)
	elispCommand   = regexp.MustCompile(`:command\s+"([^"]*)"`)
	elispParams    = regexp.MustCompile(`:command-params\s+\(list((?:\s+"[^"]*")*)\s+agent\)`)
	elispAgentCall = regexp.MustCompile(`\(my/switchboard-agent-config\s+"([^"]*)"\s+"([^"]*)"\)`)
	longFlag       = regexp.MustCompile(`--([a-z-]+)`)
)

func quotedStrings(s string) []string {
	var out []string
	for _, m := range quoted.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

// editorEntries reads every editor configuration of the doc. It fails
// the test when a section has none it can read: a change of shape in the
// doc must come with a change here.
func editorEntries(t *testing.T, blocks []docBlock) []editorEntry {
	t.Helper()
	var out []editorEntry
	for _, b := range blocks {
		before := len(out)
		switch {
		case b.lang == "json" && (b.section == "Zed" || strings.HasPrefix(b.section, "JetBrains")):
			var doc struct {
				AgentServers map[string]struct {
					Type    *string           `json:"type"`
					Command string            `json:"command"`
					Args    []string          `json:"args"`
					Env     map[string]string `json:"env"`
				} `json:"agent_servers"`
			}
			if err := json.Unmarshal([]byte(b.text), &doc); err != nil {
				t.Fatalf("%s: the JSON does not parse: %v", b.section, err)
			}
			for name, s := range doc.AgentServers {
				if b.section == "Zed" && (s.Type == nil || *s.Type != "custom") {
					t.Errorf("Zed %q: type %v, want \"custom\" (Zed's agent_servers schema)", name, s.Type)
				}
				out = append(out, editorEntry{editor: b.section, name: name, argv: append([]string{s.Command}, s.Args...), env: s.Env})
			}
		case b.lang == "lua":
			cmds, names := luaCommand.FindAllStringSubmatch(b.text, -1), luaName.FindAllStringSubmatch(b.text, -1)
			if len(cmds) != len(names) {
				t.Fatalf("%s: %d commands for %d adapter names", b.section, len(cmds), len(names))
			}
			for i, m := range cmds {
				out = append(out, editorEntry{editor: b.section, name: names[i][1], argv: quotedStrings(m[1])})
			}
		case b.lang == "elisp":
			cmd, params := elispCommand.FindStringSubmatch(b.text), elispParams.FindStringSubmatch(b.text)
			if cmd == nil || params == nil {
				t.Fatalf("%s: no :command and :command-params (list … agent) in the config function", b.section)
			}
			for _, m := range elispAgentCall.FindAllStringSubmatch(b.text, -1) {
				argv := append(append([]string{cmd[1]}, quotedStrings(params[1])...), m[1])
				out = append(out, editorEntry{editor: b.section, name: m[2], argv: argv})
			}
		default:
			continue
		}
		if len(out) == before {
			t.Errorf("%s: a %s block with no agent entry this test can read", b.section, b.lang)
		}
	}
	return out
}

// bridgeEditorsDoc runs every configuration of docs/EDITORS.md.
func bridgeEditorsDoc(t *testing.T, bins e2eBins) {
	blocks := docBlocks(t, editorsDoc)
	entries := editorEntries(t, blocks)
	var editors []string
	for _, e := range entries {
		if !slices.Contains(editors, e.editor) {
			editors = append(editors, e.editor)
		}
	}
	for _, want := range []string{"Zed", "Neovim: CodeCompanion", "Emacs: agent-shell", "JetBrains IDEs (AI Assistant)"} {
		if !slices.Contains(editors, want) {
			t.Errorf("no configuration read for %q (sections with one: %q)", want, editors)
		}
	}

	// The flags of the doc's synopsis are the bridge's.
	help, _ := exec.Command(bins.switchboard, "acp", "-h").CombinedOutput()
	for _, b := range blocks {
		if b.lang != "" || !strings.HasPrefix(b.text, "switchboard acp ") {
			continue
		}
		for _, f := range longFlag.FindAllStringSubmatch(b.text, -1) {
			if !strings.Contains(string(help), "-"+f[1]+" ") {
				t.Errorf("the synopsis names --%s; `switchboard acp -h` does not:\n%s", f[1], help)
			}
		}
	}

	// Every agent id the doc uses is the fake agent in this hub.
	agents := map[string]agentConf{}
	for _, e := range entries {
		agents[e.agentID()] = fakeAgentConf(t)
	}
	h := newHub(t, bins, hubConfig{"agents": agents})
	// The hub is found as an editor finds it: no flag, the default data
	// dir $XDG_DATA_HOME/switchboard.
	xdg := t.TempDir()
	if err := os.Symlink(h.dataDir, filepath.Join(xdg, "switchboard")); err != nil {
		t.Fatal(err)
	}

	for _, e := range entries {
		t.Run(strings.ReplaceAll(e.editor+"/"+e.name, " ", "_"), func(t *testing.T) {
			if e.argv[0] != "switchboard" || len(e.argv) < 4 || e.argv[1] != "acp" || e.agentID() == "" {
				t.Fatalf("command line %q, want switchboard acp --agent ID", e.argv)
			}
			env := append(hubEnv(), "XDG_DATA_HOME="+xdg)
			for k, v := range e.env {
				env = append(env, k+"="+v)
			}
			b := startBridgeCmd(t, exec.Command(bins.switchboard, e.argv[1:]...), env)
			b.mustInitialize(t)
			cwd := t.TempDir()
			sid := b.newSession(t, cwd)
			if th := h.withT(t).thread(sid, asEditor...); th.Agent != e.agentID() || th.Cwd != cwd {
				t.Errorf("thread %+v: want agent %s in %s", th, e.agentID(), cwd)
			}
			ups := b.mustPrompt(t, sid, "echo configured for "+e.editor, sdk.StopReasonEndTurn)
			if got := agentText(ups); got != "configured for "+e.editor {
				t.Errorf("echo: text %q (updates %v)", got, kinds(ups))
			}
		})
	}
}
