//go:build unix

package engine_test

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// maxPromptPathReturns bounds how often a prompt's way through hub/engine
// returns to a file it already left, shared helpers looked up, not
// followed (see TestPromptPath): 15 before the engine was regrouped by
// what each piece is (issue 34), 10 after. Raise it only with a reason.
const maxPromptPathReturns = 10

// promptPathPackages are the packages whose files the way is measured in:
// the adapter, the engine and the ACP client. The domain's leaves (hub,
// hub/redact, hub/policy, store) are called from everywhere and are not
// counted.
var promptPathPackages = []string{"hub/httpapi", "hub/engine", "acp"}

// TestPromptPath measures the way one prompt takes from the HTTP handler
// to the agent's stdin, as a function-entry trace:
//
//  1. it copies the non-test files of promptPathPackages with one call
//     added at the top of every function (and before every go statement)
//     that reports to a recorder added to package hub
//     (testdata/promptpath/sink.go); the copies are an -overlay, the tree
//     is not touched;
//  2. it runs TestPromptPathTraced (promptpath_trace_test.go, build tag
//     prompttrace) over that overlay in a child `go test`: one real prompt
//     through httpapi (POST /v1/threads/{id}/turns) → engine → the fake
//     agent, recorded from the handler until the prompt's line is queued for
//     the agent's stdin (acp's writeQueue, inside ClientConn.Prompt), on the
//     goroutines that lead there (the handler's, then the one it started for
//     the turn; each up to the go statement that started the next);
//  3. it collapses consecutive entries in the same file and counts the
//     returns to a file already left: over the whole way, over the entries
//     in hub/engine, and over hub/engine's entries with the shared helpers
//     left out — a function the way enters from more than one file
//     (e.config, e.commit, hasJSON, agentDir, …) is looked up once by a
//     reader, not followed, so its entry and everything under it are not
//     steps of the way. No layout removes those look-ups (e.config is
//     called from five pieces); the order of the pieces is what the bound
//     holds.
//
// It prints the file sequence (every entry with -v) and fails when the last
// count passes maxPromptPathReturns.
func TestPromptPath(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an instrumented copy of the engine")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	replace := map[string]string{}
	for _, pkg := range promptPathPackages {
		instrumentPackage(t, root, pkg, dir, replace)
	}
	replace[filepath.Join(root, "hub", "zz_prompttrace.go")] = filepath.Join(root, "hub", "engine", "testdata", "promptpath", "sink.go")
	overlay, _ := json.Marshal(map[string]any{"Replace": replace})
	overlayPath := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(overlayPath, overlay, 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "path.txt")
	cmd := exec.Command(goTool, "test", "-tags", "prompttrace", "-overlay", overlayPath,
		"-run", "^TestPromptPathTraced$", "-count=1", "./hub/engine/")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "SWITCHBOARD_PROMPT_PATH="+out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the traced run failed: %v\n%s", err, b)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var way []wayStep
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		f := strings.Split(line, "\t")
		depth, err := strconv.Atoi(f[len(f)-1])
		if len(f) != 3 || err != nil {
			t.Fatalf("bad line %q", line)
		}
		way = append(way, wayStep{file: f[0], fn: f[1], depth: depth})
	}
	shared := sharedHelpers(way)
	var all, entries, followed []string
	skipBelow := -1 // the depth of the shared helper being skipped
	for i, w := range way {
		all = append(all, w.file)
		if !strings.HasPrefix(w.file, "hub/engine/") {
			continue
		}
		entries = append(entries, w.file)
		if skipBelow >= 0 && w.depth > skipBelow {
			continue
		}
		skipBelow = -1
		if shared[w.fn] && i < len(way)-1 {
			skipBelow = w.depth
			continue
		}
		followed = append(followed, w.file)
	}
	all, allReturns := collapseFiles(all)
	entries, entryReturns := collapseFiles(entries)
	followed, returns := collapseFiles(followed)
	if testing.Verbose() {
		for _, w := range way {
			t.Logf("%s%s %s", strings.Repeat(" ", w.depth), w.file, w.fn)
		}
	}
	var names []string
	for fn := range shared {
		names = append(names, strings.TrimPrefix(fn, "github.com/switchboard-hub/switchboard/hub/engine."))
	}
	sort.Strings(names)
	t.Logf("the whole way (%s): %d function entries, %d files, %d returns to a file already left", strings.Join(promptPathPackages, ", "), len(way), distinct(all), allReturns)
	t.Logf("in hub/engine, every entry: %d files, %d returns", distinct(entries), entryReturns)
	t.Logf("in hub/engine, shared helpers looked up, not followed (%s): %d files, %d returns; in order:\n%s",
		strings.Join(names, ", "), distinct(followed), returns, numbered(followed))
	if returns > maxPromptPathReturns {
		t.Errorf("the prompt's way through hub/engine returns to a file already left %d times (at most %d): keep each piece of the way in one file, in order (docs/ARCHITECTURE.md)", returns, maxPromptPathReturns)
	}
}

// wayStep is one function entry on the prompt's way, at depth on its
// goroutine's stack.
type wayStep struct {
	file, fn string
	depth    int
}

// sharedHelpers are the functions the way enters from more than one file
// (e.config, e.commit, hasJSON): a reader looks them up once, they are not
// a step of the way.
func sharedHelpers(way []wayStep) map[string]bool {
	from := map[string]map[string]bool{}
	var stack []wayStep
	for _, w := range way {
		for len(stack) > 0 && stack[len(stack)-1].depth >= w.depth {
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && strings.HasPrefix(w.file, "hub/engine/") {
			if from[w.fn] == nil {
				from[w.fn] = map[string]bool{}
			}
			from[w.fn][stack[len(stack)-1].file] = true
		}
		stack = append(stack, w)
	}
	shared := map[string]bool{}
	for fn, files := range from {
		if len(files) > 1 {
			shared[fn] = true
		}
	}
	return shared
}

func distinct(files []string) int {
	m := map[string]bool{}
	for _, f := range files {
		m[f] = true
	}
	return len(m)
}

func numbered(files []string) string {
	var b strings.Builder
	for i, f := range files {
		fmt.Fprintf(&b, "%3d %s\n", i+1, f)
	}
	return b.String()
}

// collapseFiles merges consecutive equal files and counts the entries of a
// file the sequence had already left.
func collapseFiles(files []string) (seq []string, returns int) {
	seen := map[string]bool{}
	for _, f := range files {
		if len(seq) > 0 && seq[len(seq)-1] == f {
			continue
		}
		if seen[f] {
			returns++
		}
		seen[f] = true
		seq = append(seq, f)
	}
	return seq, returns
}

// instrumentPackage writes a copy of each non-test Go file of pkg (a folder
// relative to root) into dir with a hub.ZZTraceEnter call at the top of
// every function body and a hub.ZZTraceSpawn before every go statement,
// all on their original lines, and adds the copy to replace.
func instrumentPackage(t *testing.T, root, pkg, dir string, replace map[string]string) {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(root, pkg, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		rel := filepath.ToSlash(filepath.Join(pkg, filepath.Base(name)))
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		type insert struct {
			at   int
			text string
		}
		var ins []insert
		enter := fmt.Sprintf("zzhub.ZZTraceEnter(%q);", rel)
		spawn := fmt.Sprintf("zzhub.ZZTraceSpawn(%q);", rel)
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if n.Body != nil {
					ins = append(ins, insert{fset.Position(n.Body.Lbrace).Offset + 1, enter})
				}
			case *ast.FuncLit:
				ins = append(ins, insert{fset.Position(n.Body.Lbrace).Offset + 1, enter})
			case *ast.GoStmt:
				ins = append(ins, insert{fset.Position(n.Pos()).Offset, spawn})
			}
			return true
		})
		if len(ins) > 0 {
			ins = append(ins, insert{fset.Position(f.Name.End()).Offset, `; import zzhub "github.com/switchboard-hub/switchboard/hub"`})
		}
		sort.SliceStable(ins, func(i, j int) bool { return ins[i].at > ins[j].at })
		for _, in := range ins {
			src = append(src[:in.at], append([]byte(in.text), src[in.at:]...)...)
		}
		copyPath := filepath.Join(dir, strings.ReplaceAll(rel, "/", "_"))
		if err := os.WriteFile(copyPath, src, 0o600); err != nil {
			t.Fatal(err)
		}
		replace[name] = copyPath
	}
}
