package hub

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		10 * time.Minute:                "10m",
		time.Hour:                       "1h",
		90 * time.Minute:                "1h30m",
		90 * time.Second:                "1m30s",
		45 * time.Second:                "45s",
		24 * time.Hour:                  "24h",
		1500 * time.Millisecond:         "1.5s",
		2*time.Hour + 5*time.Second:     "2h0m5s",
		2*time.Hour + 1*time.Minute + 0: "2h1m",
	} {
		if got := FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%v) = %q, want %q", d, got, want)
		}
		if back, err := time.ParseDuration(FormatDuration(d)); err != nil || back != d {
			t.Errorf("%q does not parse back to %v: %v %v", FormatDuration(d), d, back, err)
		}
	}
}

func TestSettingsPatchValidate(t *testing.T) {
	builtin := func(id string) bool { return id == "claude" }
	tests := []struct {
		name, patch, field string // field "": valid
	}{
		{"empty", `{}`, ""},
		{"everything", `{"permissions":{"timeout":"90s"},"notifications":{"enabled":false},"ui":{"theme":"light"},"agents":{"my-agent.2":{"command":"/x","env":{"A_KEY":"v","OLD":null}},"gone":null}}`, ""},
		{"builtin override without command", `{"agents":{"claude":{"env":{"ANTHROPIC_BASE_URL":"http://x"}}}}`, ""},
		{"timeout bounds low", `{"permissions":{"timeout":"500ms"}}`, "permissions.timeout"},
		{"timeout bounds high", `{"permissions":{"timeout":"25h"}}`, "permissions.timeout"},
		{"timeout garbage", `{"permissions":{"timeout":"ten minutes"}}`, "permissions.timeout"},
		{"theme", `{"ui":{"theme":"Dark"}}`, "ui.theme"},
		{"id uppercase", `{"agents":{"Mine":{"command":"/x"}}}`, "agents"},
		{"id leading dash", `{"agents":{"-x":{"command":"/x"}}}`, "agents"},
		{"id too long", `{"agents":{"` + strings.Repeat("a", 65) + `":{"command":"/x"}}}`, "agents"},
		{"custom without command", `{"agents":{"mine":{"name":"Mine","command":"  "}}}`, "agents.mine.command"},
		{"env name", `{"agents":{"mine":{"command":"/x","env":{"1BAD":"v"}}}}`, "agents.mine.env"},
		{"NUL in args", `{"agents":{"mine":{"command":"/x","args":["a\u0000b"]}}}`, "agents.mine.args"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p SettingsPatch
			if err := json.Unmarshal([]byte(tt.patch), &p); err != nil {
				t.Fatal(err)
			}
			err := p.Validate(builtin)
			if tt.field == "" {
				if err != nil {
					t.Fatalf("want valid, got %v", err)
				}
				return
			}
			e, ok := err.(*Error)
			if !ok || e.Code != CodeInvalidArgument || e.Details["field"] != tt.field {
				t.Fatalf("got %#v, want INVALID_ARGUMENT on %s", err, tt.field)
			}
		})
	}
}
