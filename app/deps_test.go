package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The dependency direction of DESIGN.md, read off `go list -deps`:
//
//	app → hub, hub/httpapi, store, acp;  hub/httpapi → hub;  store → hub;
//	hub → acp;  acp → nothing internal;  tray → nothing internal.
//
// Internal edges are checked on each package's direct imports (a package may
// reach further through an allowed edge: store → hub → acp is fine); GUI
// libraries on its whole dependency graph, under every build-tag set, since
// the GUI code sits behind tags. Test-only imports are not checked.
const module = "github.com/switchboard-hub/switchboard"

// A rule applies to the packages in dir and below (except those in skip).
type rule struct {
	dir  string
	skip []string // subtrees under dir with rules of their own
	// allow lists the internal packages (and subtrees, with a trailing
	// "/...") the package may import besides its own subtree; nil means none.
	allow []string
	// forbid lists import paths (or prefixes, "/...") that must not be
	// direct imports.
	forbid []string
}

var rules = []rule{
	{dir: "hub", skip: []string{"hub/httpapi"}, allow: []string{"acp/..."}, forbid: []string{"net/http"}},
	{dir: "hub/httpapi", allow: []string{"hub"}},
	{dir: "acp"},
	{dir: "store", allow: []string{"hub"}},
	{dir: "tray"},
}

// guiRules: which packages may depend, even indirectly, on each GUI library.
var guiRules = []struct {
	lib     string // import path prefix
	allowed []string
	why     string
}{
	{"github.com/wailsapp/", []string{"", "app"}, "only app and main may use Wails"},
	{"github.com/getlantern/", []string{"tray"}, "only the tray may use systray: it cannot share a process with Wails on macOS"},
}

var tagSets = []string{"", "desktop,production,webkit2_41", "headless"}

func TestDependencyRules(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("go not on PATH: %v", err)
	}
	for _, tags := range tagSets {
		t.Run("tags="+tags, func(t *testing.T) {
			cmd := exec.Command(goTool, "list", "-e", "-tags="+tags,
				"-json=ImportPath,Imports,Deps", module+"/...")
			cmd.Dir = ".."
			out, err := cmd.Output()
			if err != nil {
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					t.Fatalf("go list: %v\n%s", err, ee.Stderr)
				}
				t.Fatalf("go list: %v", err)
			}
			pkgs, err := decodePackages(strings.NewReader(string(out)))
			if err != nil {
				t.Fatal(err)
			}
			if len(pkgs) == 0 {
				t.Fatal("go list found no packages")
			}
			for _, v := range checkDependencies(pkgs) {
				t.Error(v)
			}
		})
	}
}

// listedPackage is what `go list -json` says of one package.
type listedPackage struct {
	ImportPath string
	Imports    []string // direct, non-test
	Deps       []string // transitive, non-test
}

func decodePackages(r io.Reader) ([]listedPackage, error) {
	var pkgs []listedPackage
	dec := json.NewDecoder(r)
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			return pkgs, nil
		} else if err != nil {
			return nil, fmt.Errorf("decoding go list output: %w", err)
		}
		pkgs = append(pkgs, p)
	}
}

// checkDependencies returns one message per broken rule. Packages that no
// rule names are not checked by the internal-edge rules; packages that do not
// exist yet are simply absent.
func checkDependencies(pkgs []listedPackage) []string {
	var bad []string
	for _, p := range pkgs {
		rel, ok := internal(p.ImportPath)
		if !ok {
			continue
		}
		if r := ruleFor(rel); r != nil {
			for _, imp := range p.Imports {
				irel, isInternal := internal(imp)
				switch {
				case isInternal && !under(irel, r.dir) && !matchesAny(irel, r.allow):
					bad = append(bad, fmt.Sprintf("%s imports %s: %s may import only %s", rel, irel, r.dir, allowed(r)))
				case !isInternal && matchesAny(imp, r.forbid):
					bad = append(bad, fmt.Sprintf("%s imports %s, which %s must not", rel, imp, r.dir))
				}
			}
		}
		for _, g := range guiRules {
			if slices.ContainsFunc(g.allowed, func(dir string) bool { return under(rel, dir) }) {
				continue
			}
			for _, d := range p.Deps {
				if strings.HasPrefix(d, g.lib) {
					bad = append(bad, fmt.Sprintf("%s depends on %s: %s", displayName(rel), d, g.why))
					break
				}
			}
		}
	}
	return bad
}

// internal reports whether path is in this module, and its path relative to
// the module root ("" for main).
func internal(path string) (string, bool) {
	if path == module {
		return "", true
	}
	rel, ok := strings.CutPrefix(path, module+"/")
	return rel, ok
}

// ruleFor returns the most specific rule for rel, or nil.
func ruleFor(rel string) *rule {
	var best *rule
	for i := range rules {
		r := &rules[i]
		if !under(rel, r.dir) || slices.ContainsFunc(r.skip, func(s string) bool { return under(rel, s) }) {
			continue
		}
		if best == nil || len(r.dir) > len(best.dir) {
			best = r
		}
	}
	return best
}

// under reports whether rel is dir or inside it; "" (main) is under "" only.
func under(rel, dir string) bool {
	if dir == "" {
		return rel == ""
	}
	return rel == dir || strings.HasPrefix(rel, dir+"/")
}

// matchesAny reports whether path is one of patterns ("x/..." is x and below).
func matchesAny(path string, patterns []string) bool {
	for _, p := range patterns {
		if dir, ok := strings.CutSuffix(p, "/..."); ok {
			if under(path, dir) {
				return true
			}
		} else if path == p {
			return true
		}
	}
	return false
}

func allowed(r *rule) string {
	if len(r.allow) == 0 {
		return "its own packages"
	}
	return "its own packages and " + strings.Join(r.allow, ", ")
}

func displayName(rel string) string {
	if rel == "" {
		return "main"
	}
	return rel
}

// The checker catches each kind of violation (and passes a clean graph), so
// TestDependencyRules cannot pass by checking nothing.
func TestCheckDependencies(t *testing.T) {
	m := func(rel string) string { return module + "/" + rel }
	clean := []listedPackage{
		{ImportPath: module, Imports: []string{m("app")}, Deps: []string{"github.com/wailsapp/wails/v2"}},
		{ImportPath: m("app"), Imports: []string{m("hub"), m("store"), m("acp"), m("hub/httpapi")}, Deps: []string{"github.com/wailsapp/wails/v2"}},
		{ImportPath: m("hub"), Imports: []string{m("acp"), "context"}},
		{ImportPath: m("hub/httpapi"), Imports: []string{m("hub"), "net/http"}},
		{ImportPath: m("store"), Imports: []string{m("hub"), "modernc.org/sqlite"}, Deps: []string{m("hub"), m("acp")}},
		{ImportPath: m("acp"), Imports: []string{"os/exec"}},
		{ImportPath: m("acp/acptest"), Imports: []string{m("acp")}},
		{ImportPath: m("tray"), Imports: []string{m("tray/icon")}, Deps: []string{"github.com/getlantern/systray"}},
	}
	if bad := checkDependencies(clean); len(bad) > 0 {
		t.Fatalf("clean graph reported: %q", bad)
	}
	tests := []struct {
		name string
		pkg  listedPackage
		want string
	}{
		{"hub to store", listedPackage{ImportPath: m("hub"), Imports: []string{m("store")}}, "hub imports store"},
		{"hub to app", listedPackage{ImportPath: m("hub/engine"), Imports: []string{m("app")}}, "hub/engine imports app"},
		{"hub to net/http", listedPackage{ImportPath: m("hub"), Imports: []string{"net/http"}}, "hub imports net/http"},
		{"hub to wails", listedPackage{ImportPath: m("hub"), Deps: []string{"github.com/wailsapp/wails/v2/pkg/runtime"}}, "hub depends on github.com/wailsapp"},
		{"hub to systray", listedPackage{ImportPath: m("hub"), Deps: []string{"github.com/getlantern/systray"}}, "hub depends on github.com/getlantern"},
		{"httpapi to store", listedPackage{ImportPath: m("hub/httpapi"), Imports: []string{m("store")}}, "hub/httpapi imports store"},
		{"acp to hub", listedPackage{ImportPath: m("acp/acptest"), Imports: []string{m("hub")}}, "acp/acptest imports hub"},
		{"store to acp", listedPackage{ImportPath: m("store"), Imports: []string{m("acp")}}, "store imports acp"},
		{"tray to hub", listedPackage{ImportPath: m("tray"), Imports: []string{m("hub")}}, "tray imports hub"},
		{"tray to wails", listedPackage{ImportPath: m("tray/cmd/switchboard-tray"), Deps: []string{"github.com/wailsapp/wails/v2"}}, "tray/cmd/switchboard-tray depends on github.com/wailsapp"},
		{"app to systray", listedPackage{ImportPath: m("app"), Deps: []string{"github.com/getlantern/systray"}}, "app depends on github.com/getlantern"},
		{"main to systray", listedPackage{ImportPath: module, Deps: []string{"github.com/getlantern/systray"}}, "main depends on github.com/getlantern"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bad := checkDependencies([]listedPackage{tt.pkg})
			if len(bad) != 1 || !strings.Contains(bad[0], tt.want) {
				t.Errorf("got %q, want one violation containing %q", bad, tt.want)
			}
		})
	}
}
