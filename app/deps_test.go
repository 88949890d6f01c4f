package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The dependency direction of DESIGN.md, read off `go list -deps`:
//
//	app → anything;  hub → nothing internal;  hub/engine → hub, acp,
//	hub/redact, hub/policy, hub/gitwork, hub/eventbus;  hub/eventbus → hub;
//	hub/redact → nothing internal;  hub/gitwork → nothing internal;
//	hub/policy → hub;
//	hub/httpapi → hub;  hub/client → hub;  hub/hosts → hub, hub/client;  store → hub;
//	acp → nothing internal;  tray → hub, hub/client;
//	app/editorbridge → hub, hub/client, acp;  app/config → hub, acp,
//	hub/engine, hub/policy;  hub/agentsetup → hub, acp, acp/install (and
//	imported by app alone);  app/datadir → hub;  tray/autostart → nothing
//	internal;  viper and fsnotify imported by app/config alone.
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

// configLibs may be imported by app/config alone: the config file, its
// watcher and its edits live there, and nowhere else reads it.
var configLibs = []string{"github.com/spf13/viper", "github.com/fsnotify/fsnotify"}

var rules = []rule{
	// hub/hosts and hub/hostmirror have rules of their own below, and are
	// held to this one's too (no net/http: the remote hub is reached
	// through hub/client).
	{dir: "hub", skip: []string{"hub/httpapi", "hub/engine", "hub/client", "hub/redact", "hub/policy", "hub/gitwork", "hub/agentsetup", "hub/eventbus"}, forbid: []string{"net/http"}},
	// Agent installs and sign-in, beside the engine: never the app, the
	// tray, the store or a GUI (guiRules); what it needs of the running
	// hub comes as values and funcs.
	{dir: "hub/agentsetup", allow: []string{"hub", "acp", "acp/install"}, forbid: []string{"net/http"}},
	{dir: "hub/engine", allow: []string{"hub", "acp", "hub/redact", "hub/policy", "hub/gitwork", "hub/eventbus"}, forbid: []string{"net/http"}},
	{dir: "hub/eventbus", allow: []string{"hub"}, forbid: []string{"net/http"}},
	{dir: "hub/gitwork", forbid: []string{"net/http"}},
	{dir: "hub/redact", forbid: []string{"net/http"}},
	{dir: "hub/policy", allow: []string{"hub"}, forbid: []string{"net/http", "os"}},
	{dir: "hub/httpapi", allow: []string{"hub"}},
	{dir: "hub/client", allow: []string{"hub"}},
	{dir: "hub/hostmirror", allow: []string{"hub", "hub/client"}},

	// The links to other hosts: the user's ssh, the remote hub's API
	// through hub/client; never the engine, the store or the config.
	{dir: "hub/hosts", allow: []string{"hub", "hub/client"}, forbid: configLibs},
	{dir: "acp"},
	{dir: "store", allow: []string{"hub"}},
	{dir: "tray", allow: []string{"hub", "hub/client"}},
	{dir: "app/editorbridge", allow: []string{"hub", "hub/client", "acp"}, forbid: configLibs},
	{dir: "app/config", allow: []string{"hub", "acp", "hub/engine", "hub/policy"}},
	{dir: "app/datadir", allow: []string{"hub"}, forbid: configLibs},
	// What a desktop notification says and offers: pure, over hub's
	// types; the notifier and the senders that call it stay in app.
	{dir: "app/notify", allow: []string{"hub"}, forbid: append([]string{"net/http"}, configLibs...)},
	{dir: "app", skip: []string{"app/editorbridge", "app/config", "app/datadir", "app/notify"}, allow: []string{"..."}, forbid: configLibs},
}

// requires: packages that must import another (directly): the one API
// client serves every Go client of the API.
var requires = []struct{ pkg, imports, why string }{
	{"tray", "hub/client", "the tray calls the API through hub/client"},
	{"app/editorbridge", "hub/client", "the editor bridge calls the API through hub/client"},
	{"hub/hosts", "hub/client", "a host's hub is called through hub/client"},
}

// importers: packages only the named ones may import (directly): the
// composition root wires them, no other package reaches them.
var importers = []struct {
	pkg string
	by  []string // packages, or subtrees as "dir/..."
	why string
}{
	{"hub/agentsetup", []string{"app"}, "agent installs and sign-in are wired by app alone: a hub package takes them through hub.Services"},
}

// guiRules: which packages may depend, even indirectly, on each GUI or
// config library (app and main wire app/config, so they reach viper too).
var guiRules = []struct {
	lib     string   // import path prefix
	allowed []string // packages, or subtrees as "dir/..."
	why     string
}{
	{"github.com/wailsapp/", []string{"", "app"}, "only app and main may use Wails"},
	{"github.com/getlantern/", []string{"tray/..."}, "only the tray may use systray: it cannot share a process with Wails on macOS"},
	{"github.com/spf13/viper", []string{"", "app", "app/config"}, "only app/config may use viper (app and main through it)"},
	{"github.com/fsnotify/fsnotify", []string{"", "app", "app/config"}, "only app/config may use fsnotify (app and main through it)"},
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
		for _, q := range importers {
			if slices.Contains(p.Imports, module+"/"+q.pkg) && !matchesAny(rel, q.by) {
				bad = append(bad, fmt.Sprintf("%s imports %s: %s", displayName(rel), q.pkg, q.why))
			}
		}
		for _, q := range requires {
			if rel == q.pkg && !slices.Contains(p.Imports, module+"/"+q.imports) {
				bad = append(bad, fmt.Sprintf("%s does not import %s: %s", rel, q.imports, q.why))
			}
		}
		for _, g := range guiRules {
			if matchesAny(rel, g.allowed) {
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
		if p == "..." {
			return true
		}
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
	viper, fsnotify := "github.com/spf13/viper", "github.com/fsnotify/fsnotify"
	clean := []listedPackage{
		{ImportPath: module, Imports: []string{m("app")}, Deps: []string{"github.com/wailsapp/wails/v2", viper}},
		{ImportPath: m("app"), Imports: []string{m("hub"), m("store"), m("acp"), m("hub/httpapi"), m("app/config"), m("app/editorbridge"), m("hub/agentsetup"), m("app/datadir")}, Deps: []string{"github.com/wailsapp/wails/v2", viper, fsnotify}},
		{ImportPath: m("app/config"), Imports: []string{m("hub"), m("acp"), m("hub/engine"), viper, fsnotify}, Deps: []string{viper, fsnotify}},
		{ImportPath: m("app/editorbridge"), Imports: []string{m("hub"), m("hub/client"), m("acp")}},
		{ImportPath: m("hub"), Imports: []string{"context"}},
		{ImportPath: m("hub/engine"), Imports: []string{m("hub"), m("acp")}},
		{ImportPath: m("hub/httpapi"), Imports: []string{m("hub"), "net/http"}},
		{ImportPath: m("hub/client"), Imports: []string{m("hub"), "net/http"}},
		{ImportPath: m("store"), Imports: []string{m("hub"), "modernc.org/sqlite"}, Deps: []string{m("hub"), m("acp")}},
		{ImportPath: m("acp"), Imports: []string{"os/exec"}},
		{ImportPath: m("acp/acptest"), Imports: []string{m("acp")}},
		{ImportPath: m("tray"), Imports: []string{m("tray/icon"), m("hub"), m("hub/client")}, Deps: []string{"github.com/getlantern/systray"}},
		{ImportPath: m("tray/cmd/switchboard-tray"), Imports: []string{m("tray")}, Deps: []string{"github.com/getlantern/systray"}},
		{ImportPath: m("hub/agentsetup"), Imports: []string{m("hub"), m("acp"), m("acp/install"), "github.com/creack/pty"}},
		{ImportPath: m("app/datadir"), Imports: []string{m("hub"), "os"}},
	}
	if bad := checkDependencies(clean); len(bad) > 0 {
		t.Fatalf("clean graph reported: %q", bad)
	}
	client := m("hub/client")
	tests := []struct {
		name string
		pkg  listedPackage
		want string
	}{
		{"hub to store", listedPackage{ImportPath: m("hub"), Imports: []string{m("store")}}, "hub imports store"},
		{"hub to acp", listedPackage{ImportPath: m("hub"), Imports: []string{m("acp")}}, "hub imports acp"},
		{"engine to app", listedPackage{ImportPath: m("hub/engine"), Imports: []string{m("app")}}, "hub/engine imports app"},
		{"engine to store", listedPackage{ImportPath: m("hub/engine"), Imports: []string{m("store")}}, "hub/engine imports store"},
		{"hub to net/http", listedPackage{ImportPath: m("hub"), Imports: []string{"net/http"}}, "hub imports net/http"},
		{"hub to wails", listedPackage{ImportPath: m("hub"), Deps: []string{"github.com/wailsapp/wails/v2/pkg/runtime"}}, "hub depends on github.com/wailsapp"},
		{"hub to systray", listedPackage{ImportPath: m("hub"), Deps: []string{"github.com/getlantern/systray"}}, "hub depends on github.com/getlantern"},
		{"httpapi to store", listedPackage{ImportPath: m("hub/httpapi"), Imports: []string{m("store")}}, "hub/httpapi imports store"},
		{"client to engine", listedPackage{ImportPath: m("hub/client"), Imports: []string{m("hub/engine")}}, "hub/client imports hub/engine"},
		{"acp to hub", listedPackage{ImportPath: m("acp/acptest"), Imports: []string{m("hub")}}, "acp/acptest imports hub"},
		{"store to acp", listedPackage{ImportPath: m("store"), Imports: []string{m("acp")}}, "store imports acp"},
		{"tray to store", listedPackage{ImportPath: m("tray"), Imports: []string{client, m("store")}}, "tray imports store"},
		{"tray without hub/client", listedPackage{ImportPath: m("tray"), Imports: []string{m("hub")}}, "tray does not import hub/client"},
		{"tray to wails", listedPackage{ImportPath: m("tray/cmd/switchboard-tray"), Deps: []string{"github.com/wailsapp/wails/v2"}}, "tray/cmd/switchboard-tray depends on github.com/wailsapp"},
		{"bridge to engine", listedPackage{ImportPath: m("app/editorbridge"), Imports: []string{client, m("hub/engine")}}, "app/editorbridge imports hub/engine"},
		{"bridge without hub/client", listedPackage{ImportPath: m("app/editorbridge"), Imports: []string{m("hub")}}, "app/editorbridge does not import hub/client"},
		{"bridge to wails", listedPackage{ImportPath: m("app/editorbridge"), Imports: []string{client}, Deps: []string{"github.com/wailsapp/wails/v2"}}, "app/editorbridge depends on github.com/wailsapp"},
		{"bridge to viper", listedPackage{ImportPath: m("app/editorbridge"), Imports: []string{client}, Deps: []string{viper}}, "app/editorbridge depends on github.com/spf13/viper"},
		{"app imports viper", listedPackage{ImportPath: m("app"), Imports: []string{viper}}, "app imports github.com/spf13/viper"},
		{"app imports fsnotify", listedPackage{ImportPath: m("app"), Imports: []string{fsnotify}}, "app imports github.com/fsnotify/fsnotify"},
		{"engine to fsnotify", listedPackage{ImportPath: m("hub/engine"), Deps: []string{fsnotify}}, "hub/engine depends on github.com/fsnotify/fsnotify"},
		{"app to systray", listedPackage{ImportPath: m("app"), Deps: []string{"github.com/getlantern/systray"}}, "app depends on github.com/getlantern"},
		{"main to systray", listedPackage{ImportPath: module, Deps: []string{"github.com/getlantern/systray"}}, "main depends on github.com/getlantern"},
		{"agentsetup to app", listedPackage{ImportPath: m("hub/agentsetup"), Imports: []string{m("app")}}, "hub/agentsetup imports app"},
		{"agentsetup to store", listedPackage{ImportPath: m("hub/agentsetup"), Imports: []string{m("store")}}, "hub/agentsetup imports store"},
		{"agentsetup to tray", listedPackage{ImportPath: m("hub/agentsetup"), Imports: []string{m("tray")}}, "hub/agentsetup imports tray"},
		{"agentsetup to wails", listedPackage{ImportPath: m("hub/agentsetup"), Deps: []string{"github.com/wailsapp/wails/v2"}}, "hub/agentsetup depends on github.com/wailsapp"},
		{"main to agentsetup", listedPackage{ImportPath: module, Imports: []string{m("app"), m("hub/agentsetup")}}, "main imports hub/agentsetup: agent installs and sign-in are wired by app alone"},
		{"datadir to store", listedPackage{ImportPath: m("app/datadir"), Imports: []string{m("store")}}, "app/datadir imports store"},
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

// Event streams are read by hub/client alone: a Go package that names
// text/event-stream or Last-Event-ID in its non-test code asks for a
// stream (or resumes one), so it must be hub/client, or one that serves
// streams.
var streamNames = []string{"text/event-stream", "Last-Event-ID"}

var streamServers = map[string]string{
	"hub/client":            "the one client of the API: it reads the hub's streams",
	"hub/httpapi":           "serves the hub's streams",
	"acp/acptest/fakemodel": "serves a fake model's streams to agents under test",
}

func TestOnlyHubClientReadsEventStreams(t *testing.T) {
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Dir,GoFiles", module+"/...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	type listed struct {
		ImportPath, Dir string
		GoFiles         []string
	}
	uses := map[string][]string{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		rel, _ := internal(p.ImportPath)
		for _, f := range p.GoFiles {
			names, err := streamLiterals(filepath.Join(p.Dir, f))
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range names {
				uses[rel] = append(uses[rel], f+": "+n)
			}
		}
	}
	if len(uses["hub/client"]) == 0 {
		t.Fatal("hub/client names no event stream: is the scan broken?")
	}
	for _, v := range checkStreamReaders(uses) {
		t.Error(v)
	}
}

// streamLiterals returns the string literals of a Go file that name an
// event stream.
func streamLiterals(path string) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			for _, name := range streamNames {
				if strings.Contains(lit.Value, name) {
					found = append(found, lit.Value)
				}
			}
		}
		return true
	})
	return found, nil
}

// checkStreamReaders returns one message per package outside
// streamServers that names an event stream.
func checkStreamReaders(uses map[string][]string) []string {
	var bad []string
	for rel, where := range uses {
		if _, ok := streamServers[rel]; !ok {
			bad = append(bad, fmt.Sprintf("%s reads an event stream (%s): go through hub/client", displayName(rel), strings.Join(where, "; ")))
		}
	}
	slices.Sort(bad)
	return bad
}

func TestCheckStreamReaders(t *testing.T) {
	bad := checkStreamReaders(map[string][]string{
		"hub/client":       {`sse.go: "text/event-stream"`},
		"hub/httpapi":      {`sse.go: "text/event-stream"`},
		"app/editorbridge": {`prompt.go: "Last-Event-ID"`},
	})
	if len(bad) != 1 || !strings.Contains(bad[0], "app/editorbridge reads an event stream") {
		t.Errorf("got %q", bad)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "x.go")
	os.WriteFile(src, []byte("package x\n\nconst accept = \"text/event-stream\"\n\n// Last-Event-ID in a comment does not count\n"), 0o600)
	if names, err := streamLiterals(src); err != nil || len(names) != 1 {
		t.Errorf("streamLiterals: %q %v", names, err)
	}
}
