package policy

import (
	"fmt"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// benchRules are n rules of every shape (agents, folders, kinds, match,
// inside), none of which matches benchRequest: the loop runs to its end,
// the worst case for a request nobody wrote a rule for.
func benchRules(n int) []hub.PermissionRule {
	kinds := []string{"read", "edit", "search", "execute", "fetch"}
	rules := make([]hub.PermissionRule, n)
	for i := range rules {
		r := hub.PermissionRule{Name: fmt.Sprintf("rule-%d", i), Decision: "allow"}
		switch i % 5 {
		case 0:
			r.Agents = []string{fmt.Sprintf("agent-%d*", i)}
		case 1:
			r.Folders = []string{fmt.Sprintf("/home/me/src/project-%d/**", i)}
		case 2:
			r.Kinds = []string{kinds[i%len(kinds)]}
			r.Match = fmt.Sprintf(`^tool-%d\b`, i)
			r.Decision = "deny"
		case 3:
			r.Match = fmt.Sprintf(`(?i)secret-%d|token-%d`, i, i)
			r.Decision = "deny"
		case 4:
			r.Folders = []string{fmt.Sprintf("/home/*/src/p%d/**", i)}
			r.Kinds = []string{"read", "search"}
			r.Inside = "folder"
		}
		rules[i] = r
	}
	return rules
}

func benchRequest() *Request {
	return &Request{Agent: "claude", ThreadID: "th_1", ClientID: "window", Folder: "/home/me/src/app", Root: "/home/me/src/app",
		Kind: "execute", Title: "Run the tests", Command: "go test -race ./hub/... ./store/...", HasCommand: true,
		Locations: []string{"/home/me/src/app"}, Options: options}
}

// BenchmarkEvaluate1000 is the rule loop alone for one request with
// 1,000 config rules and 100 remembered ones, none matching (paths are
// resolved before it: see the engine's BenchmarkPolicyRequest).
func BenchmarkEvaluate1000(b *testing.B) {
	p, err := Compile(benchRules(1000))
	if err != nil {
		b.Fatal(err)
	}
	remembered := make([]hub.RememberedRule, 100)
	for i := range remembered {
		remembered[i] = hub.RememberedRule{ID: fmt.Sprint(i), Scope: "thread", ThreadID: fmt.Sprintf("th_%d", i+2), Agent: "claude", Kind: "execute", Command: "make", Decision: "allow"}
	}
	r := benchRequest()
	b.ReportAllocs()
	for b.Loop() {
		if v := p.Evaluate(r, remembered); v.Decided() {
			b.Fatal(v)
		}
	}
}

// BenchmarkCompile1000 compiles 1,000 rules (once per config reload).
func BenchmarkCompile1000(b *testing.B) {
	rules := benchRules(1000)
	for b.Loop() {
		if _, err := Compile(rules); err != nil {
			b.Fatal(err)
		}
	}
}
