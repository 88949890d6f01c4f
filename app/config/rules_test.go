package config

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/policy"
)

const rulesConf = `# my rules
permissions:
  timeout: 10m
  escalateAfter: 2m
  rules:
    - name: reads-in-project
      agents: ["*"]
      folders: ["~/src/**"]
      kinds: [read, search]
      inside: folder
      decision: allow
    - name: no-curl-sh
      match: 'curl .*\|\s*sh'
      decision: deny
`

func TestLoadRules(t *testing.T) {
	home, _ := os.UserHomeDir()
	c, err := Load(writeConfig(t, rulesConf), true)
	if err != nil {
		t.Fatal(err)
	}
	want := []hub.PermissionRule{
		{Name: "reads-in-project", Agents: []string{"*"}, Folders: []string{"~/src/**"}, Kinds: []string{"read", "search"}, Inside: "folder", Decision: "allow"},
		{Name: "no-curl-sh", Match: `curl .*\|\s*sh`, Decision: "deny"},
	}
	if c.Permissions.EscalateAfter != 2*time.Minute || !reflect.DeepEqual(c.Permissions.Rules, want) {
		t.Fatalf("permissions %+v", c.Permissions)
	}
	ec := c.EngineConfig()
	if ec.EscalateAfter != 2*time.Minute || ec.Rules.Len() != 2 {
		t.Fatalf("engine config %+v", ec)
	}
	// ~ is expanded for matching.
	r := &policy.Request{Agent: "x", Folder: filepath.Join(home, "src", "app"), Root: filepath.Join(home, "src", "app"),
		Kind: "read", Title: "Read", Locations: []string{filepath.Join(home, "src", "app", "f")},
		Options: []hub.PermissionOption{{OptionID: "o", Kind: "allow_once"}}}
	if v := ec.Rules.Evaluate(r, nil); v.Rule != "reads-in-project" || !v.Decided() {
		t.Fatalf("verdict %+v", v)
	}
	d, err := Load(filepath.Join(t.TempDir(), "missing.yaml"), false)
	if err != nil || d.Permissions.EscalateAfter != 0 || len(d.Permissions.Rules) != 0 || d.EngineConfig().Rules.Len() != 0 {
		t.Fatalf("defaults %+v %v", d.Permissions, err)
	}
}

func TestLoadRulesRefused(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		want       []string // in the error
	}{
		{"unknown kind", "permissions:\n  rules:\n    - name: a\n      decision: allow\n    - name: b\n      kinds: [reed]\n      decision: allow\n",
			[]string{"line 6:", `permissions.rules[1] ("b")`, `unknown kind "reed"`}},
		{"bad regexp", "permissions:\n  rules:\n    - name: a\n      match: '(unclosed'\n      decision: deny\n",
			[]string{"line 4:", `("a")`, "match", "invalid regular expression"}},
		{"bad glob", "permissions:\n  rules:\n    - name: a\n      folders: ['/src/[x']\n      decision: allow\n",
			[]string{"line 4:", `("a")`, "folders"}},
		{"unknown decision", "permissions:\n  rules:\n    - name: a\n      decision: maybe\n",
			[]string{"line 4:", `unknown decision "maybe"`}},
		{"no name", "permissions:\n  rules:\n    - decision: allow\n",
			[]string{"line 3:", "permissions.rules[0]", "name"}},
		{"unknown key", "permissions:\n  rules:\n    - name: a\n      decison: allow\n",
			[]string{"decison"}},
		{"escalate after timeout", "permissions:\n  timeout: 1m\n  escalateAfter: 1m\n",
			[]string{"permissions.escalateAfter (1m)", "permissions.timeout (1m)"}},
		{"negative escalate", "permissions:\n  escalateAfter: -1m\n",
			[]string{"permissions.escalateAfter"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(writeConfig(t, tt.body), true)
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// Settings edit both keys; rules replace the list; a broken rule is
// refused and the file and config in force stay.
func TestSettingsRules(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	writeFile(t, path, rulesConf)
	cur, err := Load(path, true)
	if err != nil {
		t.Fatal(err)
	}
	applied := 0
	w := NewWatcher(path, cur, slog.New(slog.DiscardHandler), func(from, to Config) { applied++ }, nil)
	s := NewSettings(w)
	ctx := context.Background()
	st, _ := s.Settings(ctx)
	if st.Permissions.EscalateAfter != "2m" || len(st.Permissions.Rules) != 2 || st.Permissions.Rules[0].Folders[0] != "~/src/**" {
		t.Fatalf("settings %+v", st.Permissions)
	}

	rules := []hub.PermissionRule{{Name: "tests", Agents: []string{"claude"}, Kinds: []string{"execute"}, Match: `^go test( |$)`, Decision: "allow"}}
	esc := "90s"
	st, err = s.UpdateSettings(ctx, hub.SettingsPatch{Permissions: &hub.PermissionSettingsPatch{Rules: &rules, EscalateAfter: &esc}})
	if err != nil || !reflect.DeepEqual(st.Permissions.Rules, rules) || st.Permissions.EscalateAfter != "1m30s" || applied != 1 {
		t.Fatalf("update: %+v %v (applied %d)", st.Permissions, err, applied)
	}
	data, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(data), "# my rules") || strings.Contains(string(data), "reads-in-project") {
		t.Fatalf("file:\n%s", data)
	}
	if w.Config().EngineConfig().Rules.Len() != 1 {
		t.Fatal("rules not in force")
	}

	bad := []hub.PermissionRule{rules[0], {Name: "x", Kinds: []string{"teleport"}, Decision: "allow"}}
	_, err = s.UpdateSettings(ctx, hub.SettingsPatch{Permissions: &hub.PermissionSettingsPatch{Rules: &bad}})
	var herr *hub.Error
	if !errors.As(err, &herr) || herr.Code != hub.CodeInvalidArgument || !strings.Contains(err.Error(), "teleport") ||
		herr.Details["field"] != "permissions.rules[1].kinds" || herr.Details["rule"] != 1 {
		t.Fatalf("bad rule: %v (%+v)", err, herr)
	}
	for _, e := range []string{"10m", "soon"} {
		e := e
		if _, err := s.UpdateSettings(ctx, hub.SettingsPatch{Permissions: &hub.PermissionSettingsPatch{EscalateAfter: &e}}); hub.ErrorCode(err) != hub.CodeInvalidArgument {
			t.Fatalf("escalateAfter %s: %v", e, err)
		}
	}
	if after, _ := os.ReadFile(path); string(after) != string(data) || applied != 1 {
		t.Fatalf("a refused update changed the file or applied:\n%s", after)
	}

	none, empty := []hub.PermissionRule{}, ""
	st, err = s.UpdateSettings(ctx, hub.SettingsPatch{Permissions: &hub.PermissionSettingsPatch{Rules: &none, EscalateAfter: &empty}})
	if err != nil || len(st.Permissions.Rules) != 0 || st.Permissions.EscalateAfter != "" || st.Permissions.Rules == nil {
		t.Fatalf("clear: %+v %v", st.Permissions, err)
	}
}
