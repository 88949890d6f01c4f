package hub

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// Spend in tokens and agent time (issue 33): limits beside money under
// the same names (API.md Conventions "Spend"), a price table that turns
// tokens into an estimate, and the shares that bound a running turn that
// crosses a limit (the budget permission, PermKindBudget).

// Measures of a limit: the prefix of its budget name ("tokens.daily",
// "minutes.agents.<id>.monthly"); money has none ("daily").
const (
	MeasureMoney   = ""
	MeasureTokens  = "tokens"
	MeasureMinutes = "minutes"
)

// Defaults of budgets.grace and budgets.allowMore (shares of a limit).
const (
	DefaultBudgetGrace     = 0.10
	DefaultBudgetAllowMore = 0.20
)

// The budget permission's options (PermKindBudget): the hub's own, so a
// person answers "allow-more" (the turn may spend budgets.allowMore more)
// or "stop" (the turn is cancelled); no answer is stop.
const (
	BudgetOptionAllowMore = "allow-more"
	BudgetOptionStop      = "stop"
)

// BudgetLimits are limits in one measure (tokens: input + output tokens;
// minutes: wall time of running turns less the time a person was asked);
// a zero limit is none.
type BudgetLimits struct {
	Daily     float64                `json:"daily,omitempty"`
	Monthly   float64                `json:"monthly,omitempty"`
	PerThread float64                `json:"perThread,omitempty"`
	Agents    map[string]AgentBudget `json:"agents,omitempty"`
}

// Prices are budgets.prices: a Price by model name, as the agent names
// the model.
type Prices map[string]Price

// Price is a model's price in the budgets' currency per million tokens
// (budgets.prices.<model>): what turns the tokens of an agent that
// reports no cost into an estimate, always labelled as one.
type Price struct {
	Input  float64 `json:"input"`
	Output float64 `json:"output"`
}

// BudgetDetails are the amounts of a budget permission
// (PermissionRequest.Budget): the budget crossed, in its measure, what
// was spent, the limit it crossed (raised by what "allow more" already
// added), what "allow more" adds and the grace a turn that asks nothing
// runs on before it is cancelled; Currency for money.
type BudgetDetails struct {
	Budget    string  `json:"budget"`
	Measure   string  `json:"measure,omitempty"`
	Spent     float64 `json:"spent"`
	Limit     float64 `json:"limit"`
	AllowMore float64 `json:"allowMore"`
	Grace     float64 `json:"grace"`
	Currency  string  `json:"currency,omitempty"`
}

// Estimate is the cost of input and output tokens at p.
func (p Price) Estimate(input, output int64) float64 {
	return (float64(input)*p.Input + float64(output)*p.Output) / 1e6
}

// any reports whether a limit is set.
func (l BudgetLimits) any() bool {
	if l.Daily > 0 || l.Monthly > 0 || l.PerThread > 0 {
		return true
	}
	for _, a := range l.Agents {
		if a.Daily > 0 || a.Monthly > 0 {
			return true
		}
	}
	return false
}

// limit is the named limit of l (name without its measure) and whether
// the name is a budget name.
func (l BudgetLimits) limit(name string) (float64, bool) {
	switch name {
	case BudgetDaily:
		return l.Daily, true
	case BudgetMonthly:
		return l.Monthly, true
	case BudgetPerThread:
		return l.PerThread, true
	}
	if rest, ok := strings.CutPrefix(name, "agents."); ok {
		i := strings.LastIndexByte(rest, '.')
		if i <= 0 {
			return 0, false
		}
		a := l.Agents[rest[:i]]
		switch rest[i+1:] {
		case BudgetDaily:
			return a.Daily, true
		case BudgetMonthly:
			return a.Monthly, true
		}
	}
	return 0, false
}

// validate checks l's limits (prefix: "budgets.tokens", …; unit: what the
// message calls a number of).
func (l BudgetLimits) validate(prefix, unit string) error {
	check := func(field string, v float64) error {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return FieldError(field, "%s must be a number of %s, zero or more", field, unit)
		}
		return nil
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{".daily", l.Daily}, {".monthly", l.Monthly}, {".perThread", l.PerThread}} {
		if err := check(prefix+f.name, f.v); err != nil {
			return err
		}
	}
	for _, id := range slices.Sorted(maps.Keys(l.Agents)) {
		if len(id) > 64 || !agentIDPattern.MatchString(id) {
			return FieldError(prefix+".agents", "%s.agents: %q is not an agent id", prefix, id)
		}
		a := l.Agents[id]
		if err := check(prefix+".agents."+id+".daily", a.Daily); err != nil {
			return err
		}
		if err := check(prefix+".agents."+id+".monthly", a.Monthly); err != nil {
			return err
		}
	}
	return nil
}

// Measure splits a budget name into its measure (MeasureTokens, …) and
// the name within it ("tokens.daily" → "tokens", "daily").
func Measure(name string) (measure, rest string) {
	for _, m := range []string{MeasureTokens, MeasureMinutes} {
		if r, ok := strings.CutPrefix(name, m+"."); ok {
			return m, r
		}
	}
	return MeasureMoney, name
}

// limits is b's limits in measure (money: b's own).
func (b Budgets) limits(measure string) BudgetLimits {
	switch measure {
	case MeasureTokens:
		return b.Tokens
	case MeasureMinutes:
		return b.Minutes
	}
	return BudgetLimits{Daily: b.Daily, Monthly: b.Monthly, PerThread: b.PerThread, Agents: b.Agents}
}

// HasAgentLimits reports whether b names agent in measure's limits.
func (b Budgets) HasAgentLimits(measure, agent string) bool {
	_, ok := b.limits(measure).Agents[agent]
	return ok
}

// GraceShare is budgets.grace, or its default when unset.
func (b Budgets) GraceShare() float64 {
	if b.Grace == nil {
		return DefaultBudgetGrace
	}
	return *b.Grace
}

// AllowMoreShare is budgets.allowMore, or its default when unset.
func (b Budgets) AllowMoreShare() float64 {
	if b.AllowMore == nil {
		return DefaultBudgetAllowMore
	}
	return *b.AllowMore
}

// validateSpend checks the tokens, minutes, prices and shares of b.
func (b Budgets) validateSpend() error {
	if err := b.Tokens.validate("budgets.tokens", "tokens"); err != nil {
		return err
	}
	if err := b.Minutes.validate("budgets.minutes", "minutes"); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		v    *float64
	}{{"budgets.grace", b.Grace}, {"budgets.allowMore", b.AllowMore}} {
		if f.v != nil && (*f.v < 0 || *f.v > 10 || math.IsNaN(*f.v)) {
			return FieldError(f.name, "%s must be a share of the limit from 0 to 10 (0.1 is 10 %%), not %v", f.name, *f.v)
		}
	}
	for _, model := range slices.Sorted(maps.Keys(b.Prices)) {
		p := b.Prices[model]
		field := "budgets.prices." + model
		if model == "" || len(model) > 200 {
			return FieldError("budgets.prices", "budgets.prices: %q is not a model name", model)
		}
		for _, v := range []float64{p.Input, p.Output} {
			if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				return FieldError(field, "%s: input and output are prices per million tokens, zero or more", field)
			}
		}
	}
	return nil
}

// FormatSpend is an amount of measure for people: "12,400 tokens",
// "25 min" ("2.5 min", "40 s" under a minute), "5.00 USD".
func FormatSpend(measure string, v float64, currency string) string {
	switch measure {
	case MeasureTokens:
		return groupThousands(int64(math.Round(v))) + " tokens"
	case MeasureMinutes:
		if v < 1 {
			return fmt.Sprintf("%.0f s", v*60)
		}
		if v < 10 {
			return fmt.Sprintf("%.1f min", v)
		}
		return fmt.Sprintf("%.0f min", v)
	}
	return fmt.Sprintf("%.2f %s", v, currency)
}

func groupThousands(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + groupThousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
