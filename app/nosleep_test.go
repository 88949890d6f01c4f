package app

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// sleepAllowed are the test files that may call time.Sleep, each because
// the time that passes is the thing under test (a deliberately slow fake,
// a burst spread in time, a time rule of the code), not a wait for
// something to happen: those wait on state (acp/acptest/testkit: Until,
// Eventually, Never, Buffer.WaitFor; or a channel). n is how many calls
// the file may have.
var sleepAllowed = []struct {
	file string
	n    int
	why  string
}{
	{"acp/gate_unix_test.go", 1, "countingFS: a slow read (a large file) holds its request slot"},
	{"acp/jsonrpc_test.go", 1, "a slow notification handler: the response waits for it"},
	{"app/bench_test.go", 1, "BenchmarkRSS: idle RSS is read half a second after start"},
	{"app/config/watch_test.go", 1, "TestConfigWatchDebouncesBursts: writes 5 ms apart are the burst debounced"},
	{"app/e2e_window_test.go", 1, "GTK focuses the Save dialog's name field after it maps: nothing xdotool can see"},
	{"app/systest/bridge_test.go", 1, "testEditor.slow: an editor slow to take each session/update"},
	{"app/systest/e2e_session_test.go", 1, "e2eTurnIdleTimeout: the user answers after limits.turnIdleTimeout"},
	{"hub/engine/engine_test.go", 2, "TestCancelRightAfterStart lands each cancel 20-35 ms after its start on purpose; TestCancelAgentThatIgnoresIt lets the prompt reach hang-hard, which says nothing the test could wait on"},
	{"store/checkpoint_test.go", 1, "TestGroupCommitWindow: writes 5 ms apart arrive one by one in the window"},
	{"tray/dbus_e2e_test.go", 2, "the tray ignores clicks on an entry for reassignGrace after it changed"},
	{"tray/watch_test.go", 1, "TestWatcherIdleStream: pings a third of the idle timeout apart keep the stream"},
}

// TestNoSleepInTests fails when a test file calls time.Sleep outside
// sleepAllowed: a test waits on state.
func TestNoSleepInTests(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]int{} // file (slash-separated, from the root) → time.Sleep calls
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (strings.HasPrefix(n, ".") || n == "node_modules" || n == "testdata" || n == "frontend") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		n, err := sleepCalls(p)
		if err != nil {
			return err
		}
		if n > 0 {
			rel, _ := filepath.Rel(root, p)
			calls[filepath.ToSlash(rel)] = n
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) == 0 {
		t.Fatal("no time.Sleep found anywhere: is the walk reading the test files?")
	}
	for _, v := range checkSleeps(calls) {
		t.Error(v)
	}
}

// checkSleeps returns what is wrong with calls (file → time.Sleep calls).
func checkSleeps(calls map[string]int) []string {
	var bad []string
	allowed := map[string]bool{}
	for _, a := range sleepAllowed {
		allowed[a.file] = true
		switch got := calls[a.file]; {
		case got > a.n:
			bad = append(bad, fmt.Sprintf("%s: %d time.Sleep calls, %d allowed (%s): wait on state (acp/acptest/testkit)", a.file, got, a.n, a.why))
		case got < a.n:
			bad = append(bad, fmt.Sprintf("%s: %d time.Sleep calls, the allowlist says %d: lower it in sleepAllowed", a.file, got, a.n))
		}
	}
	for _, f := range slices.Sorted(maps.Keys(calls)) {
		if !allowed[f] {
			bad = append(bad, fmt.Sprintf("%s: %d time.Sleep calls: wait on state (acp/acptest/testkit: Until, Eventually, Never, Buffer.WaitFor), or add the file to sleepAllowed saying why the time passing is what the test is about", f, calls[f]))
		}
	}
	return bad
}

// sleepCalls counts the calls of time.Sleep in the Go file named file,
// whatever name the file imports "time" as.
func sleepCalls(file string) (int, error) {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
	if err != nil {
		return 0, err
	}
	name := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == "time" {
			name = "time"
			if imp.Name != nil {
				name = imp.Name.Name
			}
		}
	}
	if name == "" || name == "_" {
		return 0, nil
	}
	n := 0
	ast.Inspect(f, func(node ast.Node) bool {
		if call, ok := node.(*ast.CallExpr); ok {
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Sleep" {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == name {
					n++
				}
			}
		}
		return true
	})
	return n, nil
}

// The checker itself: a new sleep fails, an allowed one passes, an
// allowance nobody uses fails.
func TestCheckSleeps(t *testing.T) {
	ok := map[string]int{}
	for _, a := range sleepAllowed {
		ok[a.file] = a.n
	}
	if bad := checkSleeps(ok); len(bad) != 0 {
		t.Errorf("the allowlist itself: %q", bad)
	}
	for name, tc := range map[string]struct {
		file string
		n    int
		want string
	}{
		"new file":    {"store/new_test.go", 1, "store/new_test.go: 1 time.Sleep calls: wait on state"},
		"one more":    {sleepAllowed[0].file, sleepAllowed[0].n + 1, "allowed (" + sleepAllowed[0].why + ")"},
		"stale entry": {sleepAllowed[0].file, 0, "lower it in sleepAllowed"},
	} {
		calls := map[string]int{}
		for f, n := range ok {
			calls[f] = n
		}
		calls[tc.file] = tc.n
		bad := checkSleeps(calls)
		if len(bad) != 1 || !strings.Contains(bad[0], tc.want) {
			t.Errorf("%s: %q, want one complaint with %q", name, bad, tc.want)
		}
	}
}
