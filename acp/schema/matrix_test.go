package schema

import (
	"encoding/json"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// matrixRows is the first column of every table row of docs/ACP.md under
// heading, in order.
func matrixRows(t *testing.T, doc, heading string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(doc, heading+"\n")
	if !ok {
		t.Fatalf("docs/ACP.md has no %q", heading)
	}
	if i := strings.Index(rest, "\n#"); i >= 0 {
		rest = rest[:i]
	}
	cell := regexp.MustCompile("^\\| `([^`]+)` \\|")
	var out []string
	for _, line := range strings.Split(rest, "\n") {
		if m := cell.FindStringSubmatch(line); m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

func updateKinds(t *testing.T, f *File) []string {
	t.Helper()
	var def struct {
		OneOf []struct {
			Properties struct {
				Kind struct {
					Const string `json:"const"`
				} `json:"sessionUpdate"`
			} `json:"properties"`
		} `json:"oneOf"`
	}
	b, _ := json.Marshal(f.defs["SessionUpdate"])
	if err := json.Unmarshal(b, &def); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, o := range def.OneOf {
		if o.Properties.Kind.Const != "" {
			out = append(out, o.Properties.Kind.Const)
		}
	}
	if len(out) == 0 {
		t.Fatal("SessionUpdate lists no kinds: the schema's shape changed")
	}
	return out
}

// TestCapabilityMatrixMatchesSchema: docs/ACP.md's matrix names every
// method and update kind of the stable schema once, and nothing that is in
// neither file.
func TestCapabilityMatrixMatchesSchema(t *testing.T) {
	b, err := os.ReadFile("../../docs/ACP.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	if !strings.Contains(doc, "version **"+SDKVersion+"**") {
		t.Errorf("docs/ACP.md does not name the pinned SDK version %s", SDKVersion)
	}
	st, _ := Stable()
	un, _ := Unstable()
	check := func(heading string, want, known []string) {
		rows := matrixRows(t, doc, heading)
		seen := map[string]int{}
		for _, r := range rows {
			seen[r]++
		}
		for _, w := range want {
			if seen[w] != 1 {
				t.Errorf("%s: %q appears %d times in docs/ACP.md, want once", heading, w, seen[w])
			}
		}
		for r := range seen {
			if !contains(known, r) {
				t.Errorf("%s: docs/ACP.md names %q, which the schema does not have", heading, r)
			}
		}
	}
	methods := func(f *File) []string {
		var all []string
		for _, k := range []Kind{Request, Notification} {
			all = append(all, f.Methods(k)...)
		}
		sort.Strings(all)
		return all
	}
	check("### Methods", methods(st), methods(un))
	check("### Session update kinds", updateKinds(t, st), updateKinds(t, un))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
