package app

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// Every make target that builds a binary (go build, or go test, whose
// tests build the headless binary) builds the frontend first: a binary
// built around an empty frontend/dist serves "this build has no web UI"
// (issue 14: `make serve` on a fresh checkout did). Checked with
// `make -n -B TARGET` (print everything the target would run, nothing
// run): `npm run build` must come before the first go build or go test.
func TestMakeBuildsFrontendFirst(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	b, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	var targets []string
	for _, m := range regexp.MustCompile(`(?m)^([a-z][a-z-]*):(?:[^=]|$)`).FindAllStringSubmatch(string(b), -1) {
		targets = append(targets, m[1])
	}
	if len(targets) < 10 {
		t.Fatalf("found only %q in the Makefile", targets)
	}
	building := 0
	for _, target := range targets {
		cmd := exec.Command("make", "-n", "-B", target)
		cmd.Dir = ".."
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("make -n -B %s: %v\n%s", target, err, out)
			continue
		}
		lines := strings.Split(string(out), "\n")
		first, frontend := -1, -1
		for i, l := range lines {
			if first < 0 && regexp.MustCompile(`(^|[ ;&])go (build|test) `).MatchString(l) {
				first = i
			}
			if frontend < 0 && strings.Contains(l, "npm run build") {
				frontend = i
			}
		}
		if first < 0 {
			continue
		}
		building++
		if frontend < 0 || frontend > first {
			t.Errorf("make %s runs %q before building the frontend (npm run build)", target, strings.TrimSpace(lines[first]))
		}
	}
	if building < 5 {
		t.Errorf("only %d targets build a binary: the check finds nothing to check", building)
	}
}
