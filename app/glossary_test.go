package app

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestGlossary holds the code to docs/ARCHITECTURE.md's glossary: no Go
// name (of any file, tests included) uses a spelling the glossary's last
// column rules out, so each word keeps naming one thing.
func TestGlossary(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	banned := glossaryBans(string(doc))
	if len(banned) < 3 {
		t.Fatalf("the glossary rules out %d spellings (%q): is its table still there?", len(banned), banned)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", ".tools", ".git", "testdata", "build":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		files++
		for _, v := range glossaryViolations(p, banned) {
			rel, _ := filepath.Rel(root, v.file)
			t.Errorf("%s:%d: %s uses %q, which the glossary rules out", rel, v.line, v.name, v.ban)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("walked %d Go files", files)
	}
}

// glossaryBans are the backquoted spellings in the last column of the
// glossary's table.
func glossaryBans(doc string) []string {
	_, after, ok := strings.Cut(doc, "\n## Glossary\n")
	if !ok {
		return nil
	}
	section, _, _ := strings.Cut(after, "\n## ")
	var bans []string
	code := regexp.MustCompile("`([^`]+)`")
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(strings.Trim(line, "| "), "|")
		if len(cells) < 4 || strings.HasPrefix(strings.TrimSpace(cells[0]), "---") {
			continue
		}
		for _, m := range code.FindAllStringSubmatch(cells[len(cells)-1], -1) {
			bans = append(bans, m[1])
		}
	}
	return bans
}

type glossaryViolation struct {
	file, name, ban string
	line            int
}

// glossaryViolations lists the identifiers of the Go file path that hold
// one of bans, case-insensitively (importer, Importer, fileImporterX …
// all hold "importer"; fileImporter is the allowed name, so a ban matches
// a whole word of the identifier: at its start or after a lower-case
// letter's end).
func glossaryViolations(path string, bans []string) []glossaryViolation {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil // not ours to judge: the build fails on it
	}
	var out []glossaryViolation
	seen := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok || seen[id.Name] {
			return true
		}
		for _, b := range bans {
			if holdsWord(id.Name, b) {
				seen[id.Name] = true
				out = append(out, glossaryViolation{file: path, name: id.Name, ban: b, line: fset.Position(id.Pos()).Line})
			}
		}
		return true
	})
	return out
}

// holdsWord reports whether ban is one of name's words, or a run of
// them, in camel case, with ban's first letter's case: "newSignInCode"
// holds "SignInCode", "signInCode" holds only "signInCode" (the glossary
// lists both when both are ruled out; "AuthSessionID", the API's field,
// does not hold "authSession"), "fileImporter" does not hold "importer"
// (a qualified word is another word).
func holdsWord(name, ban string) bool {
	lower, lb := strings.ToLower(name), strings.ToLower(ban)
	for i := 0; ; {
		j := strings.Index(lower[i:], lb)
		if j < 0 {
			return false
		}
		at := i + j
		end := at + len(lb)
		startOK := name[at] == ban[0] && (at == 0 || (ban[0] >= 'A' && ban[0] <= 'Z'))
		endOK := end == len(name) || (name[end] >= 'A' && name[end] <= 'Z') || name[end] == '_'
		if startOK && endOK {
			return true
		}
		i = at + 1
	}
}

func TestHoldsWord(t *testing.T) {
	for _, c := range []struct {
		name, ban string
		want      bool
	}{
		{"importer", "importer", true},
		{"importerFor", "importer", true},
		{"fileImporter", "importer", false},
		{"newSignInCode", "SignInCode", true},
		{"signInCodeRequest", "signInCode", true},
		{"signInCodeRequest", "SignInCode", false},
		{"SignInLinks", "SignInLink", false},
		{"authSession", "authSession", true},
		{"AuthSessionID", "authSession", false},
		{"authSessionMax", "authSession", true},
		{"signInLink", "SignInLink", false},
		{"signInLink", "signInLink", true},
		{"signInTerminal", "authSession", false},
		{"browserSessions", "BrowserSession", false},
		{"BrowserSession", "BrowserSession", true},
	} {
		if got := holdsWord(c.name, c.ban); got != c.want {
			t.Errorf("holdsWord(%q, %q) = %v, want %v", c.name, c.ban, got, c.want)
		}
	}
}
