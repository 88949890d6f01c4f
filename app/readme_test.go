package app

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// The README's Commands block and `switchboard --help` agree: every command
// the help lists has its line in the README, every switchboard line of the
// README is a command, and every flag the README shows for a command is
// one that command's -h lists.
func TestREADMECommandsMatchHelp(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "## Commands\n\n```\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("README.md has no ## Commands code block")
	}
	readme := map[string]string{} // command name ("" the desktop app) → its README line
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != "switchboard" {
			continue // switchboard-tray is its own binary
		}
		name := ""
		if len(f) > 1 && !strings.HasPrefix(f[1], "[") && !strings.HasPrefix(f[1], "-") {
			name = f[1]
		}
		readme[name] = line
	}
	_, help, _ := run(t, "--help")
	for _, c := range commands() {
		line, ok := readme[c.name]
		if !ok {
			t.Errorf("README.md's Commands lack `switchboard %s` (in --help: %s)", c.name, c.summary)
			continue
		}
		want := "switchboard " + c.name
		if c.name == "" {
			want = "switchboard "
		}
		if !strings.Contains(help, want) {
			t.Errorf("--help lacks %q", want)
		}
		// The flags the README shows are the command's: its words up
		// to the first flag ("token rotate"), then -h.
		synopsis := regexp.MustCompile(`\s{2,}`).Split(line, 2)[0] // without the description
		var args []string
		for _, w := range strings.Fields(synopsis)[1:] {
			if strings.HasPrefix(w, "-") || strings.HasPrefix(w, "[") {
				break
			}
			args = append(args, w)
		}
		if len(args) == 0 { // the desktop app: -h alone is the general help
			args = []string{"--data-dir", t.TempDir()}
		}
		args = append(args, "-h")
		_, stdout, stderr := run(t, args...)
		for _, flag := range regexp.MustCompile(`--[a-z-]+`).FindAllString(synopsis, -1) {
			if !strings.Contains(stdout+stderr, flag[1:]+" ") && !strings.Contains(stdout+stderr, flag[1:]+"\n") {
				t.Errorf("README.md shows %s for `switchboard %s`, which `switchboard %s -h` does not list:\n%s", flag, c.name, c.name, stdout+stderr)
			}
		}
		delete(readme, c.name)
	}
	for name, line := range readme {
		t.Errorf("README.md's Commands show %q, which is not a command of --help (%q)", line, name)
	}
}
