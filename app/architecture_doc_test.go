package app

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docs/ARCHITECTURE.md is the map a newcomer reads first: it must name
// every Go package's folder (the root package as `main.go`), and every
// folder it names (`like/this/`) must exist.
func TestArchitectureMap(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-e", "-json=Dir", module+"/...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	var pkgDirs []string
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p struct{ Dir string }
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		rel, err := filepath.Rel(root, p.Dir)
		if err != nil {
			t.Fatal(err)
		}
		pkgDirs = append(pkgDirs, filepath.ToSlash(rel))
	}
	if len(pkgDirs) < 10 {
		t.Fatalf("go list found %d packages", len(pkgDirs))
	}
	exists := func(dir string) bool {
		fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(dir)))
		return err == nil && fi.IsDir()
	}
	for _, v := range checkArchitectureMap(string(doc), pkgDirs, exists) {
		t.Error(v)
	}
}

// docFolder is a folder the map names: `some/path/` in backticks.
var docFolder = regexp.MustCompile("`([A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)*)/`")

// checkArchitectureMap returns one message per package folder the doc
// does not name and per folder it names that does not exist.
func checkArchitectureMap(doc string, pkgDirs []string, exists func(string) bool) []string {
	named := map[string]bool{}
	for _, m := range docFolder.FindAllStringSubmatch(doc, -1) {
		named[m[1]] = true
	}
	var bad []string
	for _, dir := range pkgDirs {
		switch {
		case dir == ".":
			if !strings.Contains(doc, "`main.go`") {
				bad = append(bad, "docs/ARCHITECTURE.md does not name the root package (`main.go`)")
			}
		case !named[dir]:
			bad = append(bad, fmt.Sprintf("docs/ARCHITECTURE.md does not name the package folder `%s/`", dir))
		}
	}
	for dir := range named {
		if !exists(dir) {
			bad = append(bad, fmt.Sprintf("docs/ARCHITECTURE.md names `%s/`, which does not exist", dir))
		}
	}
	slices.Sort(bad)
	return bad
}

func TestCheckArchitectureMap(t *testing.T) {
	exists := func(dir string) bool { return dir == "hub" || dir == "hub/client" }
	doc := "`main.go`, `hub/` and `hub/client/`"
	if bad := checkArchitectureMap(doc, []string{".", "hub", "hub/client"}, exists); len(bad) != 0 {
		t.Errorf("a complete map: %q", bad)
	}
	bad := checkArchitectureMap("`hub/` and `gone/`", []string{".", "hub", "hub/client"}, exists)
	want := []string{
		"docs/ARCHITECTURE.md does not name the package folder `hub/client/`",
		"docs/ARCHITECTURE.md does not name the root package (`main.go`)",
		"docs/ARCHITECTURE.md names `gone/`, which does not exist",
	}
	if !slices.Equal(bad, want) {
		t.Errorf("got %q, want %q", bad, want)
	}
}
