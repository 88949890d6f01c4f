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
