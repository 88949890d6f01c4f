package httpapi

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The UI's TypeScript types of the API's resources are written by hand
// (docs/DECISIONS.md 0031) and held here to docs/openapi.yaml: each schema
// the UI mirrors has an interface of the same fields, no more, no fewer.
// A schema added to the spec must be mirrored or listed in notMirrored.

// mirrored maps a schema to the TypeScript interface that mirrors it, when
// the names differ; every other mirrored schema has an interface of its
// own name.
var mirrored = map[string]string{
	"Event":          "HubEvent",    // Event is the DOM's
	"TurnWithEvents": "TurnHistory", // a Turn with its events, the history's
}

// notMirrored lists the schemas with no interface of their own, and why.
var notMirrored = map[string]string{
	"Error":            "the UI reads it into HubError (transport.ts)",
	"EventStream":      "the SSE stream's description, not a JSON value",
	"ClientAnswer":     "the answers to clients' own requests are built inline",
	"ThreadAnswer":     "a {thread} envelope, typed at the call",
	"TurnAnswer":       "a {turn} envelope, typed at the call",
	"SettingsAnswer":   "a {settings} envelope, typed at the call",
	"ImportedSession":  "the UI keeps {thread, created} (sessions.ts ImportSessionResult)",
	"RestoreResult":    "the restore's answer is typed at the call (work.ts)",
	"Decision":         "a union in types.ts (outcome | optionId, remember)",
	"TurnInput":        "a union in types.ts (input | content)",
	"PermissionStatus": "a string union in types.ts",
	"MCPServerPatches": "a map, typed inline in SettingsPatch",
}

// tsInterfaces reads the exported interfaces (and object type aliases) of
// the .ts files (tests left out) in dir: name → its members' names, and the
// names it extends.
func tsInterfaces(t *testing.T, dir string) (map[string][]string, map[string][]string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.ts"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no .ts files in %s: %v", dir, err)
	}
	head := regexp.MustCompile(`^export (?:interface (\w+)(?:\s+extends\s+([\w\s,]+))?\s*\{|type (\w+) = \{\s*$)`)
	member := regexp.MustCompile(`^\s*(?:readonly\s+)?([A-Za-z_$][\w$]*|'[^']*'|"[^"]*")\??\s*:`)
	members := map[string][]string{}
	extends := map[string][]string{}
	for _, f := range files {
		if strings.HasSuffix(f, ".test.ts") || strings.HasSuffix(f, ".bench.ts") || strings.HasSuffix(f, ".d.ts") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src := stripComments(string(b))
		lines := strings.Split(src, "\n")
		for i := 0; i < len(lines); i++ {
			m := head.FindStringSubmatch(lines[i])
			if m == nil {
				continue
			}
			name := m[1] + m[3]
			if _, dup := members[name]; dup {
				t.Errorf("%s: interface %s declared twice", f, name)
			}
			members[name] = []string{}
			for _, e := range strings.Split(m[2], ",") {
				if e = strings.TrimSpace(e); e != "" {
					extends[name] = append(extends[name], e)
				}
			}
			depth := strings.Count(lines[i], "{") - strings.Count(lines[i], "}")
			for i++; i < len(lines) && depth > 0; i++ {
				if depth == 1 {
					if mm := member.FindStringSubmatch(lines[i]); mm != nil {
						members[name] = append(members[name], strings.Trim(mm[1], `'"`))
					}
				}
				depth += strings.Count(lines[i], "{") - strings.Count(lines[i], "}")
			}
			i--
		}
	}
	return members, extends
}

// stripComments removes /* */ and // comments (a // after a ':' is kept:
// URLs in strings).
func stripComments(s string) string {
	s = regexp.MustCompile(`(?s)/\*.*?\*/`).ReplaceAllStringFunc(s, func(c string) string {
		return strings.Repeat("\n", strings.Count(c, "\n"))
	})
	return regexp.MustCompile(`(?m)(^|[^:])//.*$`).ReplaceAllString(s, "$1")
}

// schemaFields lists a schema's property names, allOf members included.
func schemaFields(spec map[string]any, s map[string]any) []string {
	var out []string
	for k := range asMap(s["properties"]) {
		out = append(out, k)
	}
	for _, part := range asSlice(s["allOf"]) {
		if p, ok := resolve(spec, part).(map[string]any); ok {
			out = append(out, schemaFields(spec, p)...)
		}
	}
	return out
}

func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }
func asSlice(v any) []any        { s, _ := v.([]any); return s }

func TestOpenAPIMatchesTypeScript(t *testing.T) {
	spec := loadSpec(t)
	schemas := obj(t, obj(t, spec["components"], "components")["schemas"], "schemas")
	members, extends := tsInterfaces(t, filepath.Join("..", "..", "frontend", "src", "lib"))
	var fields func(name string) []string
	fields = func(name string) []string {
		out := slices.Clone(members[name])
		for _, e := range extends[name] {
			out = append(out, fields(e)...)
		}
		return out
	}
	for name, s := range schemas {
		if _, ok := notMirrored[name]; ok {
			if _, has := members[name]; has {
				t.Errorf("schema %s is listed as not mirrored, but frontend/src/lib has an interface %s: remove it from notMirrored", name, name)
			}
			continue
		}
		ts := name
		if m, ok := mirrored[name]; ok {
			ts = m
		}
		if _, ok := members[ts]; !ok {
			t.Errorf("schema %s has no TypeScript interface %s in frontend/src/lib (add one, or list it in notMirrored with the reason)", name, ts)
			continue
		}
		want := schemaFields(spec, obj(t, s, name))
		got := fields(ts)
		for _, f := range want {
			if !slices.Contains(got, f) {
				t.Errorf("TypeScript %s lacks %q (docs/openapi.yaml %s)", ts, f, name)
			}
		}
		for _, f := range got {
			if !slices.Contains(want, f) {
				t.Errorf("TypeScript %s has %q, which docs/openapi.yaml %s does not", ts, f, name)
			}
		}
	}
	for name := range notMirrored {
		if _, ok := schemas[name]; !ok {
			t.Errorf("notMirrored lists %s, which docs/openapi.yaml does not have", name)
		}
	}
}
