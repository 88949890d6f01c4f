package config

import (
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

func TestBudgetsConfig(t *testing.T) {
	c, err := parse("c.yaml", []byte("budgets:\n  daily: 5\n  monthly: 50.5\n  perThread: 2\n  agents:\n    claude: {daily: 3}\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := hub.Budgets{Currency: "USD", Daily: 5, Monthly: 50.5, PerThread: 2, Agents: map[string]hub.AgentBudget{"claude": {Daily: 3}}}
	if b := c.EngineConfig().Budgets; b.Currency != want.Currency || b.Daily != 5 || b.Monthly != 50.5 || b.PerThread != 2 || b.Agents["claude"].Daily != 3 {
		t.Fatalf("budgets %+v", b)
	}
	for body, field := range map[string]string{
		"budgets: {daily: -1}":                  "budgets.daily",
		"budgets: {currency: dollars}":          "budgets.currency",
		"budgets: {agents: {Bad!: {daily: 1}}}": "budgets.agents",
	} {
		if _, err := parse("c.yaml", []byte(body)); err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: %v, want an error naming %s", body, err, field)
		}
	}
	// A settings edit replaces the section, keeping the rest of the file.
	out, err := patchConfigYAML([]byte("# mine\nui: {theme: dark}\nbudgets:\n  daily: 1\n"), hub.SettingsPatch{Budgets: &want})
	if err != nil {
		t.Fatal(err)
	}
	c, err = parse("c.yaml", out)
	if err != nil || c.Budgets.Monthly != 50.5 || c.Budgets.Agents["claude"].Daily != 3 || c.UI.Theme != "dark" || !strings.Contains(string(out), "# mine") {
		t.Fatalf("patched %s: %+v %v", out, c.Budgets, err)
	}
	if err := (hub.SettingsPatch{Budgets: &hub.Budgets{Currency: "USD", Daily: -2}}).Validate(nil); err == nil {
		t.Fatal("a negative limit passed the patch's validation")
	}
}

// Limits in tokens and minutes, prices (model names keep their case) and
// the shares: read, validated, and written back by a settings edit.
func TestBudgetsSpendConfig(t *testing.T) {
	body := "budgets:\n  tokens: {daily: 2000000, agents: {claude: {monthly: 9000000}}}\n  minutes: {perThread: 30}\n" +
		"  prices:\n    Claude-Sonnet-4.5: {input: 3, output: 15}\n  grace: 0.05\n  allowMore: 0.5\n"
	c, err := parse("c.yaml", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	b := c.EngineConfig().Budgets
	if b.Tokens.Daily != 2e6 || b.Tokens.Agents["claude"].Monthly != 9e6 || b.Minutes.PerThread != 30 ||
		b.Prices["Claude-Sonnet-4.5"] != (hub.Price{Input: 3, Output: 15}) || b.GraceShare() != 0.05 || b.AllowMoreShare() != 0.5 {
		t.Fatalf("budgets %+v", b)
	}
	if d := (hub.Budgets{}); d.GraceShare() != 0.10 || d.AllowMoreShare() != 0.20 {
		t.Fatalf("defaults: grace %v allowMore %v", d.GraceShare(), d.AllowMoreShare())
	}
	if l, ok := b.Limit("minutes.perThread"); !ok || l != 30 {
		t.Fatalf("minutes.perThread: %v %v", l, ok)
	}
	for body, field := range map[string]string{
		"budgets: {tokens: {daily: -1}}":                   "budgets.tokens.daily",
		"budgets: {minutes: {agents: {Bad!: {daily: 1}}}}": "budgets.minutes.agents",
		"budgets: {grace: -0.1}":                           "budgets.grace",
		"budgets: {allowMore: 20}":                         "budgets.allowMore",
		"budgets: {prices: {m: {input: -3, output: 1}}}":   "budgets.prices.m",
		"budgets: {tokens: {weekly: 5}}":                   "weekly",
	} {
		if _, err := parse("c.yaml", []byte(body)); err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: %v, want an error naming %s", body, err, field)
		}
	}
	out, err := patchConfigYAML([]byte("ui: {theme: dark}\n"), hub.SettingsPatch{Budgets: &b})
	if err != nil {
		t.Fatal(err)
	}
	back, err := parse("c.yaml", out)
	if err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	if bb := back.Budgets; bb.Tokens.Daily != 2e6 || bb.Minutes.PerThread != 30 || bb.Prices["Claude-Sonnet-4.5"].Output != 15 ||
		bb.GraceShare() != 0.05 || bb.AllowMoreShare() != 0.5 || bb.Tokens.Agents["claude"].Monthly != 9e6 {
		t.Fatalf("written back %s: %+v", out, bb)
	}
}
