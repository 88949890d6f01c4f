package policy

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

var options = []hub.PermissionOption{
	{OptionID: "once", Kind: "allow_once"},
	{OptionID: "always", Kind: "allow_always"},
	{OptionID: "no", Kind: "reject_once"},
}

// req is a request of agent claude in thread th_1 of /src/app, kind read of
// /src/app/x.go, with the three options.
func req(mod ...func(*Request)) *Request {
	r := &Request{Agent: "claude", ThreadID: "th_1", ClientID: "c1", Folder: "/src/app", Root: "/src/app",
		Kind: "read", Title: "Read x.go", Locations: []string{"/src/app/x.go"}, Options: options}
	for _, m := range mod {
		m(r)
	}
	return r
}

func mustCompile(t *testing.T, rules ...hub.PermissionRule) *Policy {
	t.Helper()
	p, err := Compile(rules)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCompileRefuses(t *testing.T) {
	ok := hub.PermissionRule{Name: "ok", Decision: "allow"}
	for _, tt := range []struct {
		name  string
		rule  hub.PermissionRule
		field string
	}{
		{"no name", hub.PermissionRule{Decision: "allow"}, "name"},
		{"space in name", hub.PermissionRule{Name: "a b", Decision: "allow"}, "name"},
		{"control in name", hub.PermissionRule{Name: "a\x00b", Decision: "allow"}, "name"},
		{"long name", hub.PermissionRule{Name: strings.Repeat("n", 65), Decision: "allow"}, "name"},
		{"duplicate name", hub.PermissionRule{Name: "ok", Decision: "deny"}, "name"},
		{"no decision", hub.PermissionRule{Name: "x"}, "decision"},
		{"unknown decision", hub.PermissionRule{Name: "x", Decision: "yes"}, "decision"},
		{"unknown kind", hub.PermissionRule{Name: "x", Kinds: []string{"reed"}, Decision: "allow"}, "kinds"},
		{"bad regexp", hub.PermissionRule{Name: "x", Match: "(", Decision: "deny"}, "match"},
		{"backreference", hub.PermissionRule{Name: "x", Match: `(a)\1`, Decision: "deny"}, "match"},
		{"bad agent glob", hub.PermissionRule{Name: "x", Agents: []string{"[a"}, Decision: "allow"}, "agents"},
		{"empty agent glob", hub.PermissionRule{Name: "x", Agents: []string{""}, Decision: "allow"}, "agents"},
		{"relative folder", hub.PermissionRule{Name: "x", Folders: []string{"src/**"}, Decision: "allow"}, "folders"},
		{"bad folder glob", hub.PermissionRule{Name: "x", Folders: []string{"/src/[a"}, Decision: "allow"}, "folders"},
		{"unknown inside", hub.PermissionRule{Name: "x", Inside: "home", Decision: "allow"}, "inside"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile([]hub.PermissionRule{ok, tt.rule})
			var re *RuleError
			if !errors.As(err, &re) || re.Index != 1 || re.Field != tt.field {
				t.Fatalf("Compile: %v, want a RuleError on rules[1].%s", err, tt.field)
			}
			if !strings.Contains(err.Error(), "permissions.rules[1]") || !strings.Contains(err.Error(), tt.field) {
				t.Errorf("message %q names neither the rule nor the field", err)
			}
		})
	}
	if p, err := Compile(nil); err != nil || p.Len() != 0 {
		t.Fatalf("no rules: %v", err)
	}
}

func TestEvaluateFields(t *testing.T) {
	for _, tt := range []struct {
		name string
		rule hub.PermissionRule
		req  *Request
		want string // the option sent; "" asks
	}{
		{"everything", hub.PermissionRule{}, req(), "once"},
		{"agent glob", hub.PermissionRule{Agents: []string{"cl*"}}, req(), "once"},
		{"other agent", hub.PermissionRule{Agents: []string{"gemini"}}, req(), ""},
		{"folder glob", hub.PermissionRule{Folders: []string{"/src/**"}}, req(), "once"},
		{"folder glob matches itself", hub.PermissionRule{Folders: []string{"/src/app/**"}}, req(), "once"},
		{"folder one level", hub.PermissionRule{Folders: []string{"/*"}}, req(), ""},
		{"other folder", hub.PermissionRule{Folders: []string{"/work/**"}}, req(), ""},
		{"kind", hub.PermissionRule{Kinds: []string{"search", "read"}}, req(), "once"},
		{"other kind", hub.PermissionRule{Kinds: []string{"edit"}}, req(), ""},
		{"no kind never matches a kinds list", hub.PermissionRule{Kinds: []string{"other"}}, req(func(r *Request) { r.Kind = "" }), ""},
		{"match on title", hub.PermissionRule{Match: `^Read .*\.go$`}, req(), "once"},
		{"match on command, not title", hub.PermissionRule{Match: `^Read`, Decision: "deny"},
			req(func(r *Request) { r.Kind, r.Command, r.HasCommand = "search", "grep x", true }), ""},
		{"match on command", hub.PermissionRule{Match: `^grep `}, req(func(r *Request) { r.Kind, r.Command, r.HasCommand = "search", "grep x", true }), "once"},
		{"inside", hub.PermissionRule{Inside: "folder"}, req(), "once"},
		{"inside, one outside", hub.PermissionRule{Inside: "folder"}, req(func(r *Request) { r.Locations = append(r.Locations, "/etc/passwd") }), ""},
		{"inside, a sibling with the same prefix", hub.PermissionRule{Inside: "folder"}, req(func(r *Request) { r.Locations = []string{"/src/app2/x"} }), ""},
		{"inside, no location", hub.PermissionRule{Inside: "folder"}, req(func(r *Request) { r.Locations = nil }), ""},
		{"inside a worktree root", hub.PermissionRule{Inside: "folder"}, req(func(r *Request) { r.Root, r.Locations = "/wt/a", []string{"/wt/a/x"} }), "once"},
		{"allow_always", hub.PermissionRule{Decision: "allow_always"}, req(), "always"},
		{"deny", hub.PermissionRule{Decision: "deny"}, req(), "no"},
		{"ask", hub.PermissionRule{Decision: "ask"}, req(), ""},
		{"allow without allow_once asks", hub.PermissionRule{}, req(func(r *Request) { r.Options = options[1:] }), ""},
		{"deny without reject_once asks", hub.PermissionRule{Decision: "deny"}, req(func(r *Request) { r.Options = options[:2] }), ""},
		// The built-in safety.
		{"no kind, no title: never allowed", hub.PermissionRule{}, req(func(r *Request) { r.Kind, r.Title = "", "" }), ""},
		{"no kind, no title: denied", hub.PermissionRule{Decision: "deny"}, req(func(r *Request) { r.Kind, r.Title = "", "" }), "no"},
		{"unresolved: never allowed", hub.PermissionRule{}, req(func(r *Request) { r.Unresolved = true }), ""},
		{"unresolved: never allowed always", hub.PermissionRule{Decision: "allow_always"}, req(func(r *Request) { r.Unresolved = true }), ""},
		{"unresolved: denied", hub.PermissionRule{Decision: "deny"}, req(func(r *Request) { r.Unresolved = true }), "no"},
		{"allow+match never applies to execute", hub.PermissionRule{Match: "^go test"},
			req(func(r *Request) { r.Kind, r.Command, r.HasCommand = "execute", "go test ./...", true }), ""},
		{"allow+match with a wildcard agent never applies to execute", hub.PermissionRule{Match: "^go test", Agents: []string{"*"}},
			req(func(r *Request) { r.Kind, r.Command, r.HasCommand = "execute", "go test ./...", true }), ""},
		{"allow+match naming agents applies to execute", hub.PermissionRule{Match: "^go test ", Agents: []string{"claude"}},
			req(func(r *Request) { r.Kind, r.Command, r.HasCommand = "execute", "go test ./...", true }), "once"},
		{"deny+match applies to execute", hub.PermissionRule{Match: "rm -rf", Decision: "deny"},
			req(func(r *Request) { r.Kind, r.Command, r.HasCommand = "execute", "rm -rf /", true }), "no"},
		{"allow without match applies to execute", hub.PermissionRule{Kinds: []string{"execute"}},
			req(func(r *Request) { r.Kind, r.Command, r.HasCommand = "execute", "make", true }), "once"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.rule.Name = "r"
			if tt.rule.Decision == "" {
				tt.rule.Decision = "allow"
			}
			v := mustCompile(t, tt.rule).Evaluate(tt.req, nil)
			if v.OptionID != tt.want || v.Decided() != (tt.want != "") {
				t.Fatalf("verdict %+v, want option %q", v, tt.want)
			}
			if v.Decided() && v.DecidedBy() != "rule:r" {
				t.Errorf("decidedBy %q", v.DecidedBy())
			}
		})
	}
}

// First match wins, ask included; remembered rules come after every
// config rule, and a config rule shadows them.
func TestEvaluateOrder(t *testing.T) {
	p := mustCompile(t,
		hub.PermissionRule{Name: "edits-ask", Kinds: []string{"edit"}, Decision: "ask"},
		hub.PermissionRule{Name: "no-etc", Match: "/etc/", Decision: "deny"},
		hub.PermissionRule{Name: "reads", Kinds: []string{"read"}, Inside: "folder", Decision: "allow"},
		hub.PermissionRule{Name: "reads-too", Kinds: []string{"read"}, Decision: "deny"},
	)
	if v := p.Evaluate(req(), nil); v.Rule != "reads" || v.Status != hub.PermissionApproved {
		t.Fatalf("read: %+v", v)
	}
	if v := p.Evaluate(req(func(r *Request) { r.Title = "Read /etc/passwd" }), nil); v.Rule != "no-etc" || v.Status != hub.PermissionDeclined {
		t.Fatalf("read /etc: %+v", v)
	}
	if v := p.Evaluate(req(func(r *Request) { r.Locations = []string{"/tmp/x"} }), nil); v.Rule != "reads-too" {
		t.Fatalf("read outside: %+v", v)
	}
	edit := req(func(r *Request) { r.Kind = "edit" })
	remembered := []hub.RememberedRule{{ID: "ru_1", Scope: "thread", ThreadID: "th_1", Agent: "claude", Kind: "edit", Decision: "allow"}}
	if v := p.Evaluate(edit, remembered); v.Decided() || v.Rule != "edits-ask" {
		t.Fatalf("edit with an ask rule first: %+v", v)
	}
	if s := p.Shadow(edit); s != "edits-ask" {
		t.Fatalf("shadow %q", s)
	}
	if v := (*Policy)(nil).Evaluate(edit, remembered); v.Remembered != "ru_1" || v.DecidedBy() != "remembered:ru_1" || v.OptionID != "once" {
		t.Fatalf("remembered: %+v", v)
	}
	if s := p.Shadow(req(func(r *Request) { r.Kind = "think" })); s != "" {
		t.Fatalf("think shadowed by %q", s)
	}
}

func TestRemembered(t *testing.T) {
	exec := func(cmd string) func(*Request) {
		return func(r *Request) { r.Kind, r.Command, r.HasCommand, r.Locations = "execute", cmd, true, nil }
	}
	for _, tt := range []struct {
		name  string
		scope string
		from  *Request // the remembered request
		req   *Request
		want  bool
	}{
		{"same thread, same command", "thread", req(exec("go test ./...")), req(exec("go test ./...")), true},
		{"same thread, another command", "thread", req(exec("go test ./...")), req(exec("go test ./... ; rm -rf /")), false},
		{"same command, same folder and environment", "thread", req(exec("ls"), func(r *Request) { r.Cwd, r.Env = "/src/app", EnvKey([]hub.EnvVar{{Name: "A", Value: "1"}}) }),
			req(exec("ls"), func(r *Request) { r.Cwd, r.Env = "/src/app", EnvKey([]hub.EnvVar{{Name: "A", Value: "1"}}) }), true},
		{"same command, another folder", "thread", req(exec("ls"), func(r *Request) { r.Cwd = "/src/app" }), req(exec("ls"), func(r *Request) { r.Cwd = "/src/app/sub" }), false},
		{"same command, another value", "thread", req(exec("ls"), func(r *Request) { r.Env = EnvKey([]hub.EnvVar{{Name: "A", Value: "1"}}) }),
			req(exec("ls"), func(r *Request) { r.Env = EnvKey([]hub.EnvVar{{Name: "A", Value: "2"}}) }), false},
		{"same command, an environment added", "thread", req(exec("ls")), req(exec("ls"), func(r *Request) { r.Env = EnvKey([]hub.EnvVar{{Name: "PATH", Value: "/evil"}}) }), false},
		{"names and values do not run together", "thread", req(exec("ls"), func(r *Request) { r.Env = EnvKey([]hub.EnvVar{{Name: "AB", Value: "C"}}) }),
			req(exec("ls"), func(r *Request) { r.Env = EnvKey([]hub.EnvVar{{Name: "A", Value: "BC"}}) }), false},
		{"another thread", "thread", req(exec("go test ./...")), req(exec("go test ./..."), func(r *Request) { r.ThreadID = "th_2" }), false},
		{"folder scope, another thread of the folder", "folder", req(exec("make")), req(exec("make"), func(r *Request) { r.ThreadID = "th_2" }), true},
		{"folder scope, another folder", "folder", req(exec("make")), req(exec("make"), func(r *Request) { r.Folder = "/src/b" }), false},
		{"agent scope, anywhere", "agent", req(exec("make")), req(exec("make"), func(r *Request) { r.ThreadID, r.Folder = "th_9", "/x" }), true},
		{"agent scope, another agent", "agent", req(exec("make")), req(exec("make"), func(r *Request) { r.Agent = "gemini" }), false},
		{"read: any file inside", "thread", req(), req(func(r *Request) { r.Locations = []string{"/src/app/sub/y.go"}; r.Title = "Read y" }), true},
		{"read: not outside", "thread", req(), req(func(r *Request) { r.Locations = []string{"/src/y.go"} }), false},
		{"read: not without locations", "thread", req(), req(func(r *Request) { r.Locations = nil }), false},
		{"read: not unresolved", "thread", req(), req(func(r *Request) { r.Unresolved = true }), false},
		{"read: not an edit", "thread", req(), req(func(r *Request) { r.Kind = "edit" }), false},
		{"read outside: that title only", "thread", req(func(r *Request) { r.Locations, r.Title = []string{"/etc/hosts"}, "Read /etc/hosts" }),
			req(func(r *Request) { r.Locations, r.Title = []string{"/etc/hosts"}, "Read /etc/hosts" }), true},
		{"read outside: not another", "thread", req(func(r *Request) { r.Locations, r.Title = []string{"/etc/hosts"}, "Read /etc/hosts" }),
			req(func(r *Request) { r.Locations, r.Title = []string{"/etc/passwd"}, "Read /etc/passwd" }), false},
		{"think without locations: the same title", "thread", req(func(r *Request) { r.Kind, r.Locations, r.Title = "think", nil, "Plan" }),
			req(func(r *Request) { r.Kind, r.Locations, r.Title = "think", nil, "Plan" }), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rr, ok := RememberAs(tt.from, tt.scope, hub.RuleAllow)
			if !ok {
				t.Fatalf("RememberAs refused %+v", tt.from)
			}
			rr.ID = "ru_1"
			if got := MatchRemembered(&rr, tt.req); got != tt.want {
				t.Fatalf("MatchRemembered(%+v) = %v, want %v", rr, got, tt.want)
			}
		})
	}
	// A client's rule applies to its threads only.
	rr, _ := RememberAs(req(), "agent", hub.RuleAllow)
	rr.ClientID = "c1"
	if MatchRemembered(&rr, req(func(r *Request) { r.ClientID = "c2" })) || !MatchRemembered(&rr, req()) {
		t.Fatal("client scoping")
	}
	// A remembered deny still refuses what is unsafe to allow.
	rr, _ = RememberAs(req(exec("curl x")), "thread", hub.RuleDeny)
	if v := (*Policy)(nil).Evaluate(req(exec("curl x"), func(r *Request) { r.Unresolved = true }), []hub.RememberedRule{rr}); v.Status != hub.PermissionDeclined {
		t.Fatalf("deny on unresolved: %+v", v)
	}
	rr, _ = RememberAs(req(exec("curl x")), "thread", hub.RuleAllow)
	if v := (*Policy)(nil).Evaluate(req(exec("curl x"), func(r *Request) { r.Unresolved = true }), []hub.RememberedRule{rr}); v.Decided() {
		t.Fatalf("allow on unresolved: %+v", v)
	}
	for name, r := range map[string]*Request{
		"no kind":          req(func(r *Request) { r.Kind = "" }),
		"unresolved":       req(func(r *Request) { r.Unresolved = true }),
		"nothing to match": req(func(r *Request) { r.Kind, r.Title, r.Locations = "execute", "", nil }),
	} {
		if _, ok := RememberAs(r, "thread", hub.RuleAllow); ok {
			t.Errorf("%s: remembered", name)
		}
	}
	if _, ok := RememberAs(req(), "forever", hub.RuleAllow); ok {
		t.Error("unknown scope remembered")
	}
}

func TestReadToolCall(t *testing.T) {
	type want struct {
		kind, title string
		lines       []string // each command field's line
		plain       []bool
		paths       []string
		cwd         string
		env         string // name=value,…
		malformed   bool
	}
	for _, tt := range []struct {
		json string
		want want
	}{
		{`{"kind":"execute","title":"` + "`ls`" + `","rawInput":{"command":"  ls -la "}}`, want{kind: "execute", title: "ls", lines: []string{"ls -la"}, plain: []bool{true}}},
		{`{"kind":"execute","title":"x","rawInput":{"cmd":["git","status"]}}`, want{kind: "execute", title: "x", lines: []string{"git status"}, plain: []bool{true}}},
		{`{"kind":"execute","rawInput":{"argv":["a","b c"]}}`, want{kind: "execute", lines: []string{"a 'b c'"}, plain: []bool{true}}},
		{`{"kind":"execute","rawInput":{"command":["bash","-lc","npm test; touch X"]}}`, want{kind: "execute", lines: []string{"bash -lc 'npm test; touch X'"}, plain: []bool{false}}},
		{`{"kind":"execute","rawInput":{"command":"go test ; touch X"}}`, want{kind: "execute", lines: []string{"go test ; touch X"}, plain: []bool{false}}},
		{`{"kind":"execute","rawInput":{"command":null,"cmd":"make"}}`, want{kind: "execute", lines: []string{"make"}, plain: []bool{true}}},
		{`{"kind":"execute","rawInput":{"command":"npm test","cmd":"touch X"}}`, want{kind: "execute", lines: []string{"npm test", "touch X"}, plain: []bool{true, true}}},
		{`{"kind":"execute","rawInput":{"command":"ls","cwd":"/w","env":{"PATH":"/w/bin","A":"1"}}}`, want{kind: "execute", lines: []string{"ls"}, plain: []bool{true}, cwd: "/w", env: "A=1,PATH=/w/bin"}},
		{`{"kind":"execute","rawInput":{"command":"ls","env":[{"name":"LD_PRELOAD","value":"/x.so"}]}}`, want{kind: "execute", lines: []string{"ls"}, plain: []bool{true}, env: "LD_PRELOAD=/x.so"}},
		{`{"kind":"read","title":"Read","locations":[{"path":"/a"},{"path":"/b","line":3}]}`, want{kind: "read", title: "Read", paths: []string{"/a", "/b"}}},
		{`{"kind":"edit","content":[{"type":"diff","path":"/c","oldText":null,"newText":"x"},{"type":"content","content":{"type":"text","text":"t"}}]}`, want{kind: "edit", paths: []string{"/c"}}},
		// Malformed: never decided by a rule.
		{`{"kind":"execute","rawInput":{"command":{"sh":"x"}},"title":"ls"}`, want{kind: "execute", title: "ls", malformed: true}},
		{`{"kind":7}`, want{malformed: true}},
		{`{"kind":"read","locations":[{"line":1}]}`, want{kind: "read", malformed: true}},
		{`{"kind":"edit","content":[{"type":"diff","newText":"x"}]}`, want{kind: "edit", malformed: true}},
		{`{"kind":"execute","rawInput":{"command":"ls","env":[{"value":"1"}]}}`, want{kind: "execute", lines: []string{"ls"}, plain: []bool{true}, malformed: true}},
		{`not json`, want{malformed: true}},
		// Names match case-sensitively, and a repeated name is malformed:
		// the hub never reads a field other readers of the bytes do not.
		{`{"kind":"execute","title":"t","KIND":"read"}`, want{kind: "execute", title: "t"}},
		{`{"kind":"execute","kind":"read"}`, want{malformed: true}},
		{`{"kind":"execute","rawInput":{"command":"ls","command":"rm -rf /"}}`, want{malformed: true}},
		{`{"kind":"read","locations":[{"path":"/a","path":"/b"}]}`, want{malformed: true}},
	} {
		got := ReadToolCall(json.RawMessage(tt.json))
		var lines []string
		var plain []bool
		for _, c := range got.Commands {
			lines, plain = append(lines, c.Line), append(plain, c.Plain)
		}
		var env []string
		for _, v := range got.Env {
			env = append(env, v.Name+"="+v.Value)
		}
		if got.Malformed != tt.want.malformed || (!tt.want.malformed || got.Kind != "") && (got.Kind != tt.want.kind || got.Title != tt.want.title ||
			!slices.Equal(lines, tt.want.lines) || !slices.Equal(plain, tt.want.plain) || !slices.Equal(got.Paths, tt.want.paths) ||
			got.Cwd != tt.want.cwd || strings.Join(env, ",") != tt.want.env) {
			t.Errorf("ReadToolCall(%s) = %+v, want %+v", tt.json, got, tt.want)
		}
	}
}

// Hostile inputs: a huge command, a huge path, many locations and many
// path elements are matched (RE2 is linear) without a panic, and decide
// as the rules say.
func TestHostileInputs(t *testing.T) {
	p := mustCompile(t,
		hub.PermissionRule{Name: "no-rm", Match: `rm\s+-rf`, Decision: "deny"},
		hub.PermissionRule{Name: "nested", Match: `(a*)*b`, Decision: "deny"},
		hub.PermissionRule{Name: "deep", Folders: []string{"/**/x/**/y/**/z/**"}, Kinds: []string{"read"}, Decision: "deny"},
		hub.PermissionRule{Name: "reads", Kinds: []string{"read"}, Inside: "folder", Decision: "allow"},
	)
	huge := strings.Repeat("a", 8<<20)
	if v := p.Evaluate(req(func(r *Request) { r.Kind, r.Command, r.HasCommand = "execute", huge+" rm  -rf /", true }), nil); v.Rule != "no-rm" {
		t.Fatalf("huge command: %+v", v)
	}
	if v := p.Evaluate(req(func(r *Request) { r.Kind, r.Command, r.HasCommand = "execute", huge, true }), nil); v.Decided() {
		t.Fatalf("huge command, no match: %+v", v)
	}
	deep := "/" + strings.Repeat("d/", 4000)
	if v := p.Evaluate(req(func(r *Request) { r.Folder, r.Root, r.Locations = deep, deep, []string{deep + "f"} }), nil); v.Rule != "reads" {
		t.Fatalf("deep folder: %+v", v)
	}
	many := make([]string, 100000)
	for i := range many {
		many[i] = "/src/app/f"
	}
	if v := p.Evaluate(req(func(r *Request) { r.Locations = many }), nil); v.Rule != "reads" {
		t.Fatalf("many locations inside: %+v", v)
	}
	many[len(many)-1] = "/src/app/../../etc/passwd" // not clean: never inside
	if v := p.Evaluate(req(func(r *Request) { r.Locations = many }), nil); v.Decided() {
		t.Fatalf("an unclean location taken as inside: %+v", v)
	}
	// A folder glob of many "**" against a deep folder is quadratic at
	// worst, not exponential: this returns.
	g := "/" + strings.Repeat("**/d/", 30) + "**"
	if !MatchFolder(g, "/"+strings.Repeat("d/", 3000)) || MatchFolder(g, "/"+strings.Repeat("d/", 29)) {
		t.Fatal("many ** globs")
	}
}

func TestMatchFolder(t *testing.T) {
	for _, tt := range []struct {
		glob, dir string
		want      bool
	}{
		{"/home/me/work/**", "/home/me/work", true},
		{"/home/me/work/**", "/home/me/work/a/b", true},
		{"/home/me/work/**", "/home/me/workshop", false},
		{"/home/me/work/*", "/home/me/work/a", true},
		{"/home/me/work/*", "/home/me/work/a/b", false},
		{"/home/*/work", "/home/me/work", true},
		{"/**/src", "/a/b/src", true},
		{"/**/src", "/a/b/src/x", false},
		{"/a/**/b/**/c", "/a/x/b/y/z/c", true},
		{"/a/**/b/**/c", "/a/x/y/c", false},
		{"/", "/", true},
		{"/**", "/anything/at/all", true},
	} {
		if got := MatchFolder(tt.glob, tt.dir); got != tt.want {
			t.Errorf("MatchFolder(%q, %q) = %v", tt.glob, tt.dir, got)
		}
	}
}
