//go:build linux

package systest

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestE2EGitTrust (issue 28, section 3): an agent that writes a filter
// driver into .git/config, a .gitattributes naming it and hooks straight to
// disk (fake agent "plant-git") never gets the hub's own git to run them:
// not the turn-end snapshot nor the next turn's checkpoint, not GET
// …/changes, not a restore.
func TestE2EGitTrust(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed: ", err)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	h := newHub(t, buildE2E(t), nil)
	repo := gitRepo(t, map[string]string{"a.txt": "one\n"})
	markers := t.TempDir()
	th := h.newThread("fake", repo)
	turnIn := func(input string) string {
		t.Helper()
		turn := h.startTurn(th.ID, input)
		h.waitTurn(th.ID, turn.ID, 60*time.Second)
		return turn.ID
	}
	turnIn("plant-git " + markers)
	if got := readFile(t, filepath.Join(repo, ".gitattributes")); got != "* filter=evil\n" {
		t.Fatalf("the agent did not plant: .gitattributes %q", got)
	}
	after := turnIn("fs-write " + filepath.Join(repo, "a.txt") + " later\n") // its checkpoint holds what was planted
	var ch struct {
		Files []struct{ Path, Status string }
	}
	h.call("GET", "/v1/threads/"+th.ID+"/changes", nil, 200, &ch)
	if len(ch.Files) != 2 {
		t.Errorf("changes %+v, want a.txt and .gitattributes", ch.Files)
	}
	var res struct{ Files []string }
	h.call("POST", "/v1/threads/"+th.ID+"/checkpoints/"+after+"/restore", nil, 200, &res)
	if got := readFile(t, filepath.Join(repo, "a.txt")); got != "planted\n" || len(res.Files) != 1 {
		t.Errorf("restored %v, a.txt %q, want a.txt back to %q", res.Files, got, "planted\n")
	}
	ranAny := func() []string {
		m, _ := filepath.Glob(filepath.Join(markers, "ran-*"))
		return m
	}
	if m := ranAny(); len(m) > 0 {
		t.Errorf("the hub's git ran what the agent planted: %v", m)
	}
	// The planting works: git run as the user would runs it.
	git(t, repo, "update-ref", "refs/heads/probe", "HEAD")
	if m := ranAny(); !strings.Contains(strings.Join(m, " "), "reference-transaction") {
		t.Errorf("a git of the user's own did not run the planted hook (%v): the test proves nothing", m)
	}
}
