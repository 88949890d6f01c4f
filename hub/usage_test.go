package hub

import "testing"

func TestBudgetLimit(t *testing.T) {
	b := Budgets{Currency: "USD", Daily: 5, Monthly: 50, PerThread: 2, Agents: map[string]AgentBudget{"claude": {Daily: 3}, "a.b": {Monthly: 9}}}
	for name, want := range map[string]float64{
		"daily": 5, "monthly": 50, "perThread": 2, "agents.claude.daily": 3, "agents.claude.monthly": 0,
		"agents.a.b.monthly": 9, "agents.other.daily": 0,
	} {
		if got, ok := b.Limit(name); !ok || got != want {
			t.Errorf("%s: %v %v, want %v", name, got, ok, want)
		}
	}
	for _, name := range []string{"weekly", "agents.", "agents.claude", "agents.claude.yearly", "agents..daily", ""} {
		if _, ok := b.Limit(name); ok {
			t.Errorf("%q is a budget", name)
		}
	}
	if err := (Budgets{Daily: 1}).Validate(); err == nil {
		t.Error("a limit without a currency passed")
	}
	if err := (Budgets{}).Validate(); err != nil {
		t.Errorf("no budgets: %v", err)
	}
}
