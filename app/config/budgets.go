package config

import (
	"maps"
	"reflect"
	"slices"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/switchboard-hub/switchboard/hub"
)

// budgetsNode is the YAML of a budgets section (a settings edit replaces
// the section whole): the currency, and only the limits, prices and
// shares that are set.
func budgetsNode(b hub.Budgets) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	if b.Currency != "" {
		setScalar(m, "currency", b.Currency, "!!str")
	}
	limitsNode(m, hub.BudgetLimits{Daily: b.Daily, Monthly: b.Monthly, PerThread: b.PerThread, Agents: b.Agents})
	for _, l := range []struct {
		key    string
		limits hub.BudgetLimits
	}{{"tokens", b.Tokens}, {"minutes", b.Minutes}} {
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		if limitsNode(n, l.limits); len(n.Content) > 0 {
			m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: l.key}, n)
		}
	}
	if models := slices.Sorted(maps.Keys(b.Prices)); len(models) > 0 {
		prices := mapping(m, "prices")
		for _, model := range models {
			pm := mapping(prices, model)
			setScalar(pm, "input", strconv.FormatFloat(b.Prices[model].Input, 'f', -1, 64), "!!float")
			setScalar(pm, "output", strconv.FormatFloat(b.Prices[model].Output, 'f', -1, 64), "!!float")
		}
	}
	for _, s := range []struct {
		key string
		v   *float64
	}{{"grace", b.Grace}, {"allowMore", b.AllowMore}} {
		if s.v != nil {
			setScalar(m, s.key, strconv.FormatFloat(*s.v, 'f', -1, 64), "!!float")
		}
	}
	return m
}

// limitsNode adds l's limits that are set to the mapping m.
func limitsNode(m *yaml.Node, l hub.BudgetLimits) {
	num := func(m *yaml.Node, key string, v float64) {
		if v > 0 {
			setScalar(m, key, strconv.FormatFloat(v, 'f', -1, 64), "!!float")
		}
	}
	num(m, "daily", l.Daily)
	num(m, "monthly", l.Monthly)
	num(m, "perThread", l.PerThread)
	ids := slices.Sorted(maps.Keys(l.Agents))
	if len(ids) > 0 {
		agents := mapping(m, "agents")
		for _, id := range ids {
			a := l.Agents[id]
			am := mapping(agents, id)
			num(am, "daily", a.Daily)
			num(am, "monthly", a.Monthly)
		}
	}
}

// pricesType is hub.Prices' reflect type: decodeOption leaves values of
// it empty and decodePrices fills them from the YAML.
var pricesType = reflect.TypeOf(hub.Prices(nil))

// decodePrices reads budgets.prices from data (the config file; nil when
// there is none), not through viper, which lowercases keys and splits
// them at dots: a price is for the model as the agent names it
// ("Claude-Sonnet-4.5").
func decodePrices(data []byte, b *hub.Budgets) error {
	if data == nil {
		return nil
	}
	var raw struct {
		Budgets struct {
			Prices hub.Prices `yaml:"prices"`
		} `yaml:"budgets"`
	}
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return err
	}
	b.Prices = raw.Budgets.Prices
	return nil
}
