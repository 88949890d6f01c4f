package acp

import (
	"slices"
	"testing"
)

func TestBuildEnv(t *testing.T) {
	base := []string{
		"PATH=/usr/bin:/bin",
		"HOME=/home/u",
		"LANG=C.UTF-8",
		"LC_ALL=C",
		"XDG_CONFIG_HOME=/home/u/.config",
		"https_proxy=http://proxy:3128",
		"HTTPS_PROXY=http://PROXY:3128",
		"NODE_EXTRA_CA_CERTS=/etc/ca.pem",
		"AWS_SECRET_ACCESS_KEY=hunter2",
		"ANTHROPIC_API_KEY=sk-ant",
		"ANTHROPIC_BASE_URL=http://127.0.0.1:9",
		"OPENAI_API_KEY=sk-oai",
		"SWITCHBOARD_TOKEN=secret",
		"SWITCHBOARD_DATA=/data",
		"LD_PRELOAD=/evil.so",
		"=C:=C:\\",
		"NOEQUALS",
		"PATH=/override/bin", // a later duplicate wins
	}
	tests := []struct {
		name string
		cmd  Command
		want []string
	}{
		{
			name: "allowlist only",
			want: []string{
				"HOME=/home/u", "HTTPS_PROXY=http://PROXY:3128", "LANG=C.UTF-8", "LC_ALL=C",
				"NODE_EXTRA_CA_CERTS=/etc/ca.pem", "PATH=/override/bin",
				"XDG_CONFIG_HOME=/home/u/.config", "https_proxy=http://proxy:3128",
			},
		},
		{
			name: "pass env prefix and exact",
			cmd:  Command{PassEnv: []string{"ANTHROPIC_*", "OPENAI_API_KEY", "MISSING"}},
			want: []string{
				"ANTHROPIC_API_KEY=sk-ant", "ANTHROPIC_BASE_URL=http://127.0.0.1:9",
				"HOME=/home/u", "HTTPS_PROXY=http://PROXY:3128", "LANG=C.UTF-8", "LC_ALL=C",
				"NODE_EXTRA_CA_CERTS=/etc/ca.pem", "OPENAI_API_KEY=sk-oai", "PATH=/override/bin",
				"XDG_CONFIG_HOME=/home/u/.config", "https_proxy=http://proxy:3128",
			},
		},
		{
			name: "hub variables never pass from base",
			cmd:  Command{PassEnv: []string{"SWITCHBOARD_*", "SWITCHBOARD_TOKEN", "*"}},
			want: []string{
				"ANTHROPIC_API_KEY=sk-ant", "ANTHROPIC_BASE_URL=http://127.0.0.1:9",
				"AWS_SECRET_ACCESS_KEY=hunter2",
				"HOME=/home/u", "HTTPS_PROXY=http://PROXY:3128", "LANG=C.UTF-8", "LC_ALL=C",
				"LD_PRELOAD=/evil.so", "NODE_EXTRA_CA_CERTS=/etc/ca.pem",
				"OPENAI_API_KEY=sk-oai", "PATH=/override/bin",
				"XDG_CONFIG_HOME=/home/u/.config", "https_proxy=http://proxy:3128",
			},
		},
		{
			name: "cmd env overrides and adds; token dropped",
			cmd: Command{Env: []string{
				"PATH=/agent/bin", "IS_SANDBOX=1", "EMPTY=", "SWITCHBOARD_TOKEN=leak",
				"SWITCHBOARD_THREAD=t1", "bad", "=x",
			}},
			want: []string{
				"EMPTY=", "HOME=/home/u", "HTTPS_PROXY=http://PROXY:3128", "IS_SANDBOX=1",
				"LANG=C.UTF-8", "LC_ALL=C", "NODE_EXTRA_CA_CERTS=/etc/ca.pem", "PATH=/agent/bin",
				"SWITCHBOARD_THREAD=t1",
				"XDG_CONFIG_HOME=/home/u/.config", "https_proxy=http://proxy:3128",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := BuildEnv(base, tt.cmd)
			if !slices.Equal(got, tt.want) {
				t.Errorf("BuildEnv =\n %q\nwant\n %q", got, tt.want)
			}
			if !slices.IsSorted(got) {
				t.Errorf("not sorted: %q", got)
			}
			for _, kv := range got {
				if kv == "SWITCHBOARD_TOKEN=secret" || kv == "SWITCHBOARD_TOKEN=leak" || kv == "SWITCHBOARD_DATA=/data" {
					t.Errorf("hub variable leaked: %q", kv)
				}
			}
		})
	}
}

func TestBuildEnvEmpty(t *testing.T) {
	if got := BuildEnv(nil, Command{}); len(got) != 0 {
		t.Fatalf("BuildEnv(nil) = %q, want empty", got)
	}
	// Names are case-sensitive: "path" is not PATH.
	if got := BuildEnv([]string{"path=/x", "Home=/h"}, Command{}); len(got) != 0 {
		t.Fatalf("BuildEnv = %q, want empty", got)
	}
}
