package httpapi

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docs/API.md is the API's concepts and guarantees, docs/openapi.yaml its
// reference; these tests keep the prose in step with the spec and the code.

const repoRoot = "../.."

func readAPIDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "docs", "API.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// docPathExamples are paths API.md names that are not operations of the
// spec, and why.
var docPathExamples = map[string]string{
	"PUT /v1/threads/x": "the unknown-method example",
	"GET /":             "the web UI's page, served beside the API, not a part of it",
}

// Every "METHOD /path" API.md names is an operation of docs/openapi.yaml,
// and every /v1 path it names is a path of it (a concrete segment matches
// a {parameter}).
func TestOpenAPIHasEveryPathAPIDocNames(t *testing.T) {
	doc := readAPIDoc(t)
	spec := loadSpec(t)
	type op struct{ method, path string }
	var ops []op
	for path, item := range obj(t, spec["paths"], "paths") {
		for _, m := range httpMethods {
			if _, ok := obj(t, item, path)[m]; ok {
				ops = append(ops, op{strings.ToUpper(m), path})
			}
		}
	}
	match := func(tmpl, path string) bool {
		ts, ps := strings.Split(tmpl, "/"), strings.Split(path, "/")
		if len(ts) != len(ps) {
			return false
		}
		for i := range ts {
			if ts[i] != ps[i] && !(strings.HasPrefix(ts[i], "{") && strings.HasSuffix(ts[i], "}")) {
				return false
			}
		}
		return true
	}
	known := func(method, path string) bool {
		for _, o := range ops {
			if (method == "" || o.method == method) && match(o.path, path) {
				return true
			}
		}
		return false
	}
	clean := func(p string) string {
		p, _, _ = strings.Cut(p, "?")
		p, _, _ = strings.Cut(p, "#")
		return strings.TrimRight(p, ".,;:")
	}
	withMethod := regexp.MustCompile("`(GET|POST|PUT|PATCH|DELETE|OPTIONS) (/[^`\\s]*)")
	seen := map[string]bool{}
	for _, m := range withMethod.FindAllStringSubmatch(doc, -1) {
		p := clean(m[2])
		key := m[1] + " " + p
		if _, ok := docPathExamples[key]; ok || strings.Contains(p, "…") || seen[key] {
			continue
		}
		seen[key] = true
		if !known(m[1], p) {
			t.Errorf("docs/API.md names %s, which docs/openapi.yaml does not have", key)
		}
	}
	bare := regexp.MustCompile("`(/v1/[^`\\s]*)`")
	for _, m := range bare.FindAllStringSubmatch(doc, -1) {
		p := clean(m[1])
		if strings.Contains(p, "…") || strings.HasSuffix(p, "/") || strings.HasSuffix(p, "*") || seen[p] {
			continue // a prefix (`/v1/`, `/v1/*`), not a path
		}
		seen[p] = true
		if !known("", p) {
			t.Errorf("docs/API.md names %s, which is no path of docs/openapi.yaml", p)
		}
	}
	if len(seen) < 20 {
		t.Fatalf("only %d paths found in docs/API.md: is the pattern still right?", len(seen))
	}
}

// notAPIReasons are details.reason-like values the hub sends elsewhere
// than in an API error: to an agent, in ACP.
var notAPIReasons = map[string]string{
	"FILE_TOO_LARGE":    "acp/fs.go: the data of an ACP error answered to the agent",
	"PROTECTED_PATH":    "hub/engine/guard.go: an ACP error's data, to the agent (docs/SECURITY.md)",
	"PERMISSION_DENIED": "hub/engine/guard.go: an ACP error's data, to the agent",
	"OUTSIDE_FOLDERS":   "hub/engine/guard.go: an ACP error's data, to the agent (docs/SECURITY.md)",
}

// Every error code of the code→status table and every details.reason the
// code sends is in docs/API.md; the reasons' table lists no reason the code
// no longer sends.
func TestAPIDocHasEveryErrorCodeAndReason(t *testing.T) {
	doc := readAPIDoc(t)
	for code := range statusOf {
		if !strings.Contains(doc, "`"+code+"`") {
			t.Errorf("error code %s (hub/errors.go) is not in docs/API.md", code)
		}
	}

	// The ways the code names a details.reason: a Reason… or reason…
	// constant, a "reason" key of a details map, reasonError(code, "…").
	reasonRes := []*regexp.Regexp{
		regexp.MustCompile(`\b[Rr]eason\w*\s*=\s*"([A-Z][A-Z_]+)"`),
		regexp.MustCompile(`"reason":\s*"([A-Z][A-Z_]+)"`),
		regexp.MustCompile(`\["reason"\]\s*=\s*"([A-Z][A-Z_]+)"`),
		regexp.MustCompile(`reasonError\([^,]+,\s*"([A-Z][A-Z_]+)"`),
	}
	sent := map[string]string{} // reason → a file that sends it
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", ".tools", ".git", "build", "frontend", "docs":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, re := range reasonRes {
			for _, m := range re.FindAllStringSubmatch(string(b), -1) {
				sent[m[1]] = path
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sent) < 10 {
		t.Fatalf("only %d reasons found in the code: is the pattern still right?", len(sent))
	}

	// The table: the rows after "Every reason the hub sends", to the first
	// line that is not a table row.
	_, after, ok := strings.Cut(doc, "Every reason\nthe hub sends:")
	if !ok {
		_, after, ok = strings.Cut(doc, "Every reason the hub sends:")
	}
	if !ok {
		t.Fatal(`docs/API.md has no table after "Every reason the hub sends:"`)
	}
	var listed []string
	started := false
	for _, line := range strings.Split(after, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			if started {
				break
			}
			continue
		}
		started = true
		cells := strings.Split(line, "|")
		if len(cells) < 2 {
			continue
		}
		for _, m := range regexp.MustCompile("`([A-Z][A-Z_]+)`").FindAllStringSubmatch(cells[1], -1) {
			listed = append(listed, m[1])
		}
	}
	for r, file := range sent {
		if _, ok := notAPIReasons[r]; ok {
			continue
		}
		if !slices.Contains(listed, r) {
			t.Errorf("details.reason %s (sent in %s) is not in docs/API.md's table of reasons", r, file)
		}
	}
	for _, r := range listed {
		if _, ok := sent[r]; !ok {
			t.Errorf("docs/API.md's table of reasons lists %s, which no code sends", r)
		}
	}
	for r := range notAPIReasons {
		if _, ok := sent[r]; !ok {
			t.Errorf("notAPIReasons lists %s, which no code sends", r)
		}
	}
}

// Every event type the hub defines (an Event… constant of package hub) is
// in docs/openapi.yaml's Event enum and described there, and named in
// docs/API.md; the enum has no other.
func TestOpenAPIHasEveryEventType(t *testing.T) {
	doc := readAPIDoc(t)
	spec := loadSpec(t)
	schemas := obj(t, obj(t, spec["components"], "components")["schemas"], "schemas")
	event := obj(t, schemas["Event"], "Event")
	desc, _ := event["description"].(string)
	var enum []string
	for _, v := range asSlice(obj(t, obj(t, event["properties"], "Event properties")["type"], "Event type")["enum"]) {
		enum = append(enum, v.(string))
	}
	files, err := filepath.Glob(filepath.Join(repoRoot, "hub", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`\bEvent\w*\s*=\s*"([a-z][a-z_]+)"`)
	var defined []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			defined = append(defined, m[1])
		}
	}
	if len(defined) < 20 {
		t.Fatalf("only %d event types found in hub/*.go: is the pattern still right?", len(defined))
	}
	for _, typ := range defined {
		if !slices.Contains(enum, typ) {
			t.Errorf("event type %s is not in docs/openapi.yaml's Event enum", typ)
		}
		if !strings.Contains(desc, "- "+typ) && !regexp.MustCompile(`- [a-z_, ]*\b`+typ+`\b`).MatchString(desc) {
			t.Errorf("docs/openapi.yaml's Event description does not describe %s", typ)
		}
		if !strings.Contains(doc, "`"+typ+"`") {
			t.Errorf("event type %s is not named in docs/API.md", typ)
		}
	}
	for _, typ := range enum {
		if !slices.Contains(defined, typ) {
			t.Errorf("docs/openapi.yaml's Event enum has %s, which package hub does not define", typ)
		}
	}
}

// Every operation of docs/openapi.yaml says what it does: a non-empty
// description (docs/API.md keeps only the concepts and guarantees, and
// points here for each endpoint's behaviour), under a tag the spec
// declares (the groups API.md's "Endpoints" maps).
func TestOpenAPIDescribesEveryOperation(t *testing.T) {
	spec := loadSpec(t)
	declared := map[string]bool{}
	for _, tg := range asSlice(spec["tags"]) {
		name, _ := obj(t, tg, "tag")["name"].(string)
		declared[name] = true
	}
	n := 0
	for path, item := range obj(t, spec["paths"], "paths") {
		for _, m := range httpMethods {
			v, ok := obj(t, item, path)[m]
			if !ok {
				continue
			}
			n++
			op := obj(t, v, m+" "+path)
			key := strings.ToUpper(m) + " " + path
			if d, _ := op["description"].(string); strings.TrimSpace(d) == "" {
				t.Errorf("docs/openapi.yaml: %s has no description", key)
			}
			tags := asSlice(op["tags"])
			if len(tags) == 0 {
				t.Errorf("docs/openapi.yaml: %s has no tag", key)
			}
			for _, tg := range tags {
				if s, _ := tg.(string); !declared[s] {
					t.Errorf("docs/openapi.yaml: %s has tag %v, which the spec's tags do not declare", key, tg)
				}
			}
		}
	}
	if n < 20 {
		t.Fatalf("only %d operations found in docs/openapi.yaml: is the walk still right?", n)
	}
}
