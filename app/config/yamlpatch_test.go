package config

import (
	"encoding/json"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

func TestPatchConfigYAML(t *testing.T) {
	tests := []struct {
		name, file, patch, want string
	}{
		{"new file", "", `{"ui":{"theme":"dark"},"notifications":{"enabled":false}}`,
			"notifications:\n  enabled: false\nui:\n  theme: dark\n"},
		{"comment-only file", "# nothing yet\n", `{"ui":{"theme":"light"}}`,
			"# nothing yet\nui:\n  theme: light\n"},
		{"in place, comments kept", "# top\npermissions: # section\n  timeout: 5m # why\n", `{"permissions":{"timeout":"90s"}}`,
			"# top\npermissions: # section\n  timeout: 90s # why\n"},
		{"empty section", "permissions:\nlisten: 127.0.0.1:1\n", `{"permissions":{"timeout":"1m"}}`,
			"permissions:\n  timeout: 1m\nlisten: 127.0.0.1:1\n"},
		{"keys matched case-insensitively", "UI:\n  Theme: dark\n", `{"ui":{"theme":"system"}}`,
			"UI:\n  Theme: system\n"},
		{"four-space indent kept", "permissions:\n    timeout: 5m\n", `{"ui":{"theme":"dark"}}`,
			"permissions:\n    timeout: 5m\nui:\n    theme: dark\n"},
		{"add agent, values quoted when needed", "", `{"agents":{"x":{"name":"true","command":"/opt/x","args":["--acp","1"]}}}`,
			"agents:\n  x:\n    name: \"true\"\n    command: /opt/x\n    args: [--acp, \"1\"]\n"},
		{"replace agent keeps unnamed env, null removes", "agents:\n  x: # mine\n    command: /old\n    args: [a]\n    env:\n      KEEP: k # secret\n      DROP: d\n",
			`{"agents":{"x":{"command":"/new","env":{"ADD":"a","DROP":null}}}}`,
			"agents:\n  x: # mine\n    command: /new\n    env:\n      KEEP: k # secret\n      ADD: a\n"},
		{"remove agent", "agents:\n  x:\n    command: /x\n  y:\n    command: /y\n", `{"agents":{"X":null}}`,
			"agents:\n  y:\n    command: /y\n"},
		{"remove missing agent is a no-op", "listen: 127.0.0.1:1\n", `{"agents":{"x":null}}`,
			"listen: 127.0.0.1:1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p hub.SettingsPatch
			if err := json.Unmarshal([]byte(tt.patch), &p); err != nil {
				t.Fatal(err)
			}
			var file []byte
			if tt.file != "" {
				file = []byte(tt.file)
			}
			got, err := patchConfigYAML(file, p)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestPatchConfigYAMLRefusesBrokenFiles(t *testing.T) {
	theme := "dark"
	p := hub.SettingsPatch{UI: &hub.UISettingsPatch{Theme: &theme}}
	for _, file := range []string{"listen: [\n", "- a list\n- not a mapping\n"} {
		if _, err := patchConfigYAML([]byte(file), p); hub.ErrorCode(err) != hub.CodeConflict {
			t.Errorf("%q: err %v, want CONFLICT", file, err)
		}
	}
}
